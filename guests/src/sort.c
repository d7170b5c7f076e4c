/* sort: qsort from the C library against hand-written sorts. Integers are sorted by qsort, by a
 * top-down merge sort and by a heap sort; short strings by qsort(strcmp) and by an insertion-
 * sorted radix bucket pass. All results must agree. argv[1]: element count (default 40000). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"

static int cmp_int(const void *a, const void *b)
{
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void merge_sort(int32_t *a, int32_t *tmp, size_t n)
{
    if (n < 2)
        return;
    size_t mid = n / 2;
    merge_sort(a, tmp, mid);
    merge_sort(a + mid, tmp, n - mid);
    size_t i = 0, j = mid, k = 0;
    while (i < mid && j < n)
        tmp[k++] = a[j] < a[i] ? a[j++] : a[i++];
    while (i < mid)
        tmp[k++] = a[i++];
    while (j < n)
        tmp[k++] = a[j++];
    memcpy(a, tmp, n * sizeof *a);
}

static void sift_down(int32_t *a, size_t root, size_t n)
{
    for (;;) {
        size_t child = 2 * root + 1;
        if (child >= n)
            return;
        if (child + 1 < n && a[child + 1] > a[child])
            child++;
        if (a[root] >= a[child])
            return;
        int32_t t = a[root];
        a[root] = a[child];
        a[child] = t;
        root = child;
    }
}

static void heap_sort(int32_t *a, size_t n)
{
    for (size_t i = n / 2; i-- > 0;)
        sift_down(a, i, n);
    for (size_t end = n; end-- > 1;) {
        int32_t t = a[0];
        a[0] = a[end];
        a[end] = t;
        sift_down(a, 0, end);
    }
}

/* Strings: bucket by first letter, insertion sort inside each bucket, concatenate. */
static void bucket_sort_strings(char **s, size_t n, char **out)
{
    size_t start[27] = {0};
    for (size_t i = 0; i < n; i++)
        start[(unsigned char)s[i][0] - 'a' + 1]++;
    for (int b = 1; b < 27; b++)
        start[b] += start[b - 1];
    size_t fill[26];
    memcpy(fill, start, sizeof fill);
    for (size_t i = 0; i < n; i++) {
        int b = (unsigned char)s[i][0] - 'a';
        size_t k = fill[b]++;
        char *v = s[i];
        while (k > start[b] && strcmp(out[k - 1], v) > 0) {
            out[k] = out[k - 1];
            k--;
        }
        out[k] = v;
    }
}

static uint64_t checksum(const int32_t *a, size_t n)
{
    uint64_t h = 0;
    for (size_t i = 0; i < n; i++)
        h = h * 1000003 + (uint32_t)a[i];
    return h;
}

int main(int argc, char **argv)
{
    size_t n = (size_t)arg_size(argc, argv, 1, 40000);
    uint64_t seed = 7;
    int32_t *orig = malloc(n * sizeof *orig), *a = malloc(n * sizeof *a),
            *b = malloc(n * sizeof *b), *c = malloc(n * sizeof *c), *tmp = malloc(n * sizeof *tmp);
    size_t ns = n / 8 + 1;
    char **strs = malloc(ns * sizeof *strs), **sq = malloc(ns * sizeof *sq),
         **sb = malloc(ns * sizeof *sb);
    char *pool = malloc(ns * 8);
    if (!orig || !a || !b || !c || !tmp || !strs || !sq || !sb || !pool) {
        puts("out of memory");
        return 1;
    }
    for (size_t i = 0; i < n; i++)
        orig[i] = (int32_t)(rng_next(&seed) >> 40) - (1 << 23);
    memcpy(a, orig, n * sizeof *a);
    memcpy(b, orig, n * sizeof *b);
    memcpy(c, orig, n * sizeof *c);

    qsort(a, n, sizeof *a, cmp_int);
    merge_sort(b, tmp, n);
    heap_sort(c, n);
    int agree = memcmp(a, b, n * sizeof *a) == 0 && memcmp(a, c, n * sizeof *a) == 0;
    printf("ints: n=%lu min=%d median=%d max=%d checksum=%016llx %s\n", (unsigned long)n, a[0],
           a[n / 2], a[n - 1], (unsigned long long)checksum(a, n),
           agree ? "qsort=merge=heap" : "SORTS DISAGREE");

    for (size_t i = 0; i < ns; i++) {
        char *s = pool + i * 8;
        size_t len = 3 + rng_below(&seed, 5);
        for (size_t k = 0; k < len; k++)
            s[k] = (char)('a' + rng_below(&seed, 26));
        s[len] = '\0';
        strs[i] = sq[i] = s;
    }
    qsort(sq, ns, sizeof *sq, cmp_str);
    bucket_sort_strings(strs, ns, sb);
    int sagree = 1;
    for (size_t i = 0; i < ns; i++)
        sagree &= strcmp(sq[i], sb[i]) == 0;
    printf("strings: n=%lu first=%s middle=%s last=%s %s\n", (unsigned long)ns, sq[0], sq[ns / 2],
           sq[ns - 1], sagree ? "qsort=bucket" : "SORTS DISAGREE");
    free(pool);
    free(sb);
    free(sq);
    free(strs);
    free(tmp);
    free(c);
    free(b);
    free(a);
    free(orig);
    return agree && sagree ? 0 : 1;
}
