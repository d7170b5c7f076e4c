/* wordfreq: reads all of standard input (read system calls), splits it into lower-cased
 * alphabetic words, counts them in a hash table, and prints the totals and the K most frequent
 * words (ties broken alphabetically). argv[1]: K (default 12). */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"

#define MAX_WORD 32
#define TABLE_BITS 12
#define TABLE_SIZE (1u << TABLE_BITS)

struct word {
    char text[MAX_WORD];
    long count;
};

static struct word table[TABLE_SIZE];
static size_t distinct;

static unsigned hash_word(const char *s)
{
    unsigned h = 5381;
    while (*s)
        h = h * 33 + (unsigned char)*s++;
    return h & (TABLE_SIZE - 1);
}

/* Linear probing; returns 0 when the table is full. */
static int count_word(const char *w)
{
    for (unsigned i = hash_word(w), probes = 0; probes < TABLE_SIZE;
         i = (i + 1) & (TABLE_SIZE - 1), probes++) {
        if (table[i].count == 0) {
            strcpy(table[i].text, w);
            table[i].count = 1;
            distinct++;
            return 1;
        }
        if (strcmp(table[i].text, w) == 0) {
            table[i].count++;
            return 1;
        }
    }
    return 0;
}

static int by_count_then_word(const void *a, const void *b)
{
    const struct word *x = a, *y = b;
    if (x->count != y->count)
        return x->count < y->count ? 1 : -1;
    return strcmp(x->text, y->text);
}

/* Ends the word being collected, if any; returns 0 when the table is full. */
static int flush_word(char *word, size_t *wlen, long *total)
{
    if (*wlen == 0)
        return 1;
    word[*wlen] = '\0';
    *wlen = 0;
    ++*total;
    return count_word(word);
}

int main(int argc, char **argv)
{
    long k = arg_size(argc, argv, 1, 12);
    char buf[4096], word[MAX_WORD];
    size_t wlen = 0, got;
    long total = 0, lines = 0, bytes = 0;
    int ok = 1;
    while (ok && (got = fread(buf, 1, sizeof buf, stdin)) > 0) {
        bytes += (long)got;
        for (size_t i = 0; ok && i < got; i++) {
            int c = (unsigned char)buf[i];
            lines += c == '\n';
            if (isalpha(c)) {
                if (wlen < MAX_WORD - 1)
                    word[wlen++] = (char)tolower(c);
            } else {
                ok = flush_word(word, &wlen, &total);
            }
        }
    }
    if (!ok || !flush_word(word, &wlen, &total)) {
        puts("word table full");
        return 1;
    }
    printf("%ld bytes, %ld lines, %ld words, %lu distinct\n", bytes, lines, total,
           (unsigned long)distinct);

    qsort(table, TABLE_SIZE, sizeof table[0], by_count_then_word);
    for (long i = 0; i < k && i < (long)distinct; i++)
        printf("%6ld %s\n", table[i].count, table[i].text);
    return 0;
}
