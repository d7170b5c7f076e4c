/* strings: byte-at-a-time text processing. Builds a text of N words, then searches it with
 * strstr and a hand-written Knuth-Morris-Pratt matcher (they must agree), tokenises it with
 * strtok, reverses words in place, counts palindromes, changes case, and round-trips numbers
 * through snprintf/strtol. argv[1]: word count (default 20000). */
#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"

static const char *const vocabulary[] = {
    "level", "radar", "profile", "branch", "cache",  "stack", "refer", "loop",  "kernel",
    "civic", "block", "trace",   "noon",   "memory", "path",  "rotor", "sample", "hot",
};
#define NWORDS (sizeof vocabulary / sizeof vocabulary[0])

static size_t kmp_count(const char *text, const char *pat)
{
    size_t m = strlen(pat), fail[64], count = 0;
    if (m == 0 || m > 64)
        return 0;
    fail[0] = 0;
    for (size_t i = 1, k = 0; i < m; i++) {
        while (k > 0 && pat[i] != pat[k])
            k = fail[k - 1];
        if (pat[i] == pat[k])
            k++;
        fail[i] = k;
    }
    for (size_t i = 0, k = 0; text[i]; i++) {
        while (k > 0 && text[i] != pat[k])
            k = fail[k - 1];
        if (text[i] == pat[k])
            k++;
        if (k == m) {
            count++;
            k = fail[k - 1];
        }
    }
    return count;
}

static size_t strstr_count(const char *text, const char *pat)
{
    size_t count = 0;
    for (const char *p = strstr(text, pat); p; p = strstr(p + 1, pat))
        count++;
    return count;
}

static int is_palindrome(const char *s, size_t n)
{
    for (size_t i = 0; i < n / 2; i++)
        if (s[i] != s[n - 1 - i])
            return 0;
    return 1;
}

static void reverse(char *s, size_t n)
{
    for (size_t i = 0; i < n / 2; i++) {
        char t = s[i];
        s[i] = s[n - 1 - i];
        s[n - 1 - i] = t;
    }
}

static uint32_t fnv1a(const char *s)
{
    uint32_t h = 2166136261u;
    while (*s)
        h = (h ^ (unsigned char)*s++) * 16777619u;
    return h;
}

int main(int argc, char **argv)
{
    size_t words = (size_t)arg_size(argc, argv, 1, 20000);
    char *text = malloc(words * 8 + 1);
    if (!text) {
        puts("out of memory");
        return 1;
    }
    uint64_t seed = 12345;
    size_t len = 0;
    for (size_t i = 0; i < words; i++) {
        const char *w = vocabulary[rng_below(&seed, NWORDS)];
        size_t wl = strlen(w);
        memcpy(text + len, w, wl);
        len += wl;
        text[len++] = (i % 11 == 10) ? '\n' : ' ';
    }
    text[len] = '\0';
    printf("text: %lu words, %lu bytes, fnv1a %08x\n", (unsigned long)words,
           (unsigned long)strlen(text), (unsigned)fnv1a(text));

    static const char *const patterns[] = {"cache", "op ", "loop loop", "e\nr"};
    for (size_t i = 0; i < sizeof patterns / sizeof patterns[0]; i++) {
        size_t a = kmp_count(text, patterns[i]), b = strstr_count(text, patterns[i]);
        printf("pattern %lu: kmp %lu, strstr %lu%s\n", (unsigned long)i, (unsigned long)a,
               (unsigned long)b, a == b ? "" : " MISMATCH");
    }

    char *copy = malloc(len + 1);
    if (!copy) {
        puts("out of memory");
        return 1;
    }
    memcpy(copy, text, len + 1);
    size_t tokens = 0, palindromes = 0, longest = 0;
    for (char *tok = strtok(copy, " \n"); tok; tok = strtok(NULL, " \n")) {
        size_t n = strlen(tok);
        tokens++;
        palindromes += (size_t)is_palindrome(tok, n);
        if (n > longest)
            longest = n;
        reverse(tok, n);
    }
    printf("tokens %lu, palindromes %lu, longest %lu\n", (unsigned long)tokens,
           (unsigned long)palindromes, (unsigned long)longest);

    size_t upper = 0;
    for (size_t i = 0; i < len; i++) {
        if (islower((unsigned char)text[i]) && (i % 3 == 0)) {
            text[i] = (char)toupper((unsigned char)text[i]);
            upper++;
        }
    }
    printf("uppercased %lu, fnv1a now %08x, strcmp sign %d\n", (unsigned long)upper,
           (unsigned)fnv1a(text), strncmp(text, "LEVEL", 5) > 0 ? 1 : -1);

    char num[32];
    long total = 0;
    for (long i = 0; i < (long)words; i++) {
        snprintf(num, sizeof num, "%ld", i * 37 - 5000);
        total += strtol(num, NULL, 10) + (long)strlen(num);
    }
    printf("number round trip total %ld\n", total);
    free(copy);
    free(text);
    return 0;
}
