/* hash: a separately chained hash table with string keys that grows by rehashing, plus an
 * open-addressing (linear probing) table with integer keys that supports deletion by backward
 * shifting. argv[1]: number of operations (default 60000). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"

struct entry {
    struct entry *next;
    uint64_t hash;
    long value;
    char key[24];
};

struct chained {
    struct entry **buckets;
    size_t nbuckets, size, rehashes;
};

static uint64_t hash_str(const char *s)
{
    uint64_t h = 1469598103934665603ULL;
    while (*s)
        h = (h ^ (unsigned char)*s++) * 1099511628211ULL;
    return h;
}

static void *xcalloc(size_t n, size_t size)
{
    void *p = calloc(n, size);
    if (!p) {
        puts("out of memory");
        exit(1);
    }
    return p;
}

static void chained_grow(struct chained *t)
{
    size_t nb = t->nbuckets * 2;
    struct entry **b = xcalloc(nb, sizeof *b);
    for (size_t i = 0; i < t->nbuckets; i++)
        for (struct entry *e = t->buckets[i], *next; e; e = next) {
            next = e->next;
            e->next = b[e->hash & (nb - 1)];
            b[e->hash & (nb - 1)] = e;
        }
    free(t->buckets);
    t->buckets = b;
    t->nbuckets = nb;
    t->rehashes++;
}

/* Adds `delta` to the value under `key`, inserting it with value 0 first if absent. */
static void chained_add(struct chained *t, const char *key, long delta)
{
    uint64_t h = hash_str(key);
    for (struct entry *e = t->buckets[h & (t->nbuckets - 1)]; e; e = e->next)
        if (e->hash == h && strcmp(e->key, key) == 0) {
            e->value += delta;
            return;
        }
    if (t->size + 1 > t->nbuckets)
        chained_grow(t);
    struct entry *e = xcalloc(1, sizeof *e);
    e->hash = h;
    e->value = delta;
    snprintf(e->key, sizeof e->key, "%s", key);
    e->next = t->buckets[h & (t->nbuckets - 1)];
    t->buckets[h & (t->nbuckets - 1)] = e;
    t->size++;
}

static const struct entry *chained_get(const struct chained *t, const char *key)
{
    uint64_t h = hash_str(key);
    for (const struct entry *e = t->buckets[h & (t->nbuckets - 1)]; e; e = e->next)
        if (e->hash == h && strcmp(e->key, key) == 0)
            return e;
    return NULL;
}

/* Open addressing over 64-bit keys; key 0 marks an empty slot. */
#define OA_BITS 17
#define OA_SIZE (1u << OA_BITS)
static uint64_t oa_keys[OA_SIZE];
static uint32_t oa_vals[OA_SIZE];

static size_t oa_slot(uint64_t key)
{
    return (size_t)((key * 0x9E3779B97F4A7C15ULL) >> (64 - OA_BITS));
}

static int oa_put(uint64_t key, uint32_t val)
{
    for (size_t i = oa_slot(key), probes = 0; probes < OA_SIZE; i = (i + 1) & (OA_SIZE - 1), probes++)
        if (oa_keys[i] == 0 || oa_keys[i] == key) {
            int fresh = oa_keys[i] == 0;
            oa_keys[i] = key;
            oa_vals[i] = val;
            return fresh;
        }
    return -1;
}

static long oa_find(uint64_t key)
{
    for (size_t i = oa_slot(key); oa_keys[i]; i = (i + 1) & (OA_SIZE - 1))
        if (oa_keys[i] == key)
            return (long)i;
    return -1;
}

static int oa_delete(uint64_t key)
{
    long found = oa_find(key);
    if (found < 0)
        return 0;
    size_t hole = (size_t)found;
    for (size_t j = (hole + 1) & (OA_SIZE - 1); oa_keys[j]; j = (j + 1) & (OA_SIZE - 1)) {
        size_t home = oa_slot(oa_keys[j]);
        /* Move j into the hole unless its home lies cyclically in (hole, j]. */
        if (((j - home) & (OA_SIZE - 1)) >= ((j - hole) & (OA_SIZE - 1))) {
            oa_keys[hole] = oa_keys[j];
            oa_vals[hole] = oa_vals[j];
            hole = j;
        }
    }
    oa_keys[hole] = 0;
    return 1;
}

int main(int argc, char **argv)
{
    size_t ops = (size_t)arg_size(argc, argv, 1, 60000);
    if (ops > OA_SIZE / 2)
        ops = OA_SIZE / 2;
    uint64_t seed = 2024;

    struct chained t = {xcalloc(8, sizeof(struct entry *)), 8, 0, 0};
    char key[24];
    for (size_t i = 0; i < ops; i++) {
        snprintf(key, sizeof key, "k%lu", (unsigned long)rng_below(&seed, ops / 3 + 1));
        chained_add(&t, key, (long)(i & 7) + 1);
    }
    long hits = 0, total = 0;
    for (size_t i = 0; i < ops / 2; i++) {
        snprintf(key, sizeof key, "k%lu", (unsigned long)rng_below(&seed, ops / 2 + 1));
        const struct entry *e = chained_get(&t, key);
        if (e) {
            hits++;
            total += e->value;
        }
    }
    size_t longest = 0;
    for (size_t i = 0; i < t.nbuckets; i++) {
        size_t len = 0;
        for (const struct entry *e = t.buckets[i]; e; e = e->next)
            len++;
        if (len > longest)
            longest = len;
    }
    printf("chained: %lu keys, %lu buckets, %lu rehashes, longest chain %lu, %ld hits, total %ld\n",
           (unsigned long)t.size, (unsigned long)t.nbuckets, (unsigned long)t.rehashes,
           (unsigned long)longest, hits, total);

    for (size_t i = 0; i < t.nbuckets; i++)
        for (struct entry *e = t.buckets[i], *next; e; e = next) {
            next = e->next;
            free(e);
        }
    free(t.buckets);

    long inserted = 0, deleted = 0, present = 0;
    uint64_t sum = 0;
    for (size_t i = 0; i < ops; i++)
        inserted += oa_put(rng_below(&seed, ops * 2) + 1, (uint32_t)i) == 1;
    for (size_t i = 0; i < ops; i++)
        deleted += oa_delete(rng_below(&seed, ops * 2) + 1);
    for (uint64_t k = 1; k <= ops * 2; k++) {
        long s = oa_find(k);
        if (s >= 0) {
            present++;
            sum += oa_vals[s] ^ k;
        }
    }
    printf("open addressing: %ld inserted, %ld deleted, %ld present (%s), checksum %llu\n",
           inserted, deleted, present, present == inserted - deleted ? "consistent" : "INCONSISTENT",
           (unsigned long long)sum);
    return present == inserted - deleted ? 0 : 1;
}
