#!/usr/bin/env python3
"""Regenerates guests/inputs/ (synthetic, seeded: the same bytes on every run).

words.txt   English-like prose for `wordfreq` (Zipf-distributed words, sentences, punctuation)
samples.csv a table of sensor readings for `csvstats` (header, integers, decimals, labels)

Run from the repository root: python3 guests/tools/mkinputs.py
"""
import os
import random

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "inputs")
VOCAB = """the of and to a in is it that for on was with as by at be this from or an are
program profile branch loop cache memory stack heap path trace sample block edge call return
counter table hash value load store register fetch decode execute phase region kernel thread
emulator instruction compiler linker symbol function pointer buffer string number float double
integer array list tree node queue sort search merge split count measure report hot cold fast
slow small large first last next previous inner outer simple complex random stable""".split()


def words_txt(rng):
    weights = [1.0 / (rank + 1) for rank in range(len(VOCAB))]
    out, line = [], []
    for _ in range(2400):
        n = rng.randint(4, 14)
        sentence = rng.choices(VOCAB, weights, k=n)
        sentence[0] = sentence[0].capitalize()
        if n > 6 and rng.random() < 0.4:
            sentence[n // 2] += ","
        text = " ".join(sentence) + rng.choice([".", ".", ".", "?", "!"])
        line.append(text)
        if sum(len(s) + 1 for s in line) > 70:
            out.append(" ".join(line))
            line = []
            if rng.random() < 0.1:
                out.append("")
    out.append(" ".join(line))
    return "\n".join(out) + "\n"


def samples_csv(rng):
    labels = ["alpha", "beta", "gamma", "delta", "epsilon"]
    rows = ["id,temperature,pressure,count,label"]
    for i in range(3000):
        temp = rng.gauss(21.5, 4.0)
        pressure = rng.uniform(980.0, 1040.0)
        count = rng.randint(0, 5000)
        rows.append(f"{i},{temp:.3f},{pressure:.2f},{count},{rng.choice(labels)}")
    return "\n".join(rows) + "\n"


def main():
    os.makedirs(HERE, exist_ok=True)
    for name, make, seed in [("words.txt", words_txt, 1), ("samples.csv", samples_csv, 2)]:
        with open(os.path.join(HERE, name), "w", newline="\n") as f:
            f.write(make(random.Random(seed)))


if __name__ == "__main__":
    main()
