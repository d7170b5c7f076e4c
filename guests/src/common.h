/* Shared helpers for the profkit guest programs: a seeded PRNG and argument parsing.
 * Everything here is deterministic so that every run of a guest prints the same bytes. */
#ifndef PROFKIT_GUEST_COMMON_H
#define PROFKIT_GUEST_COMMON_H

#include <stdint.h>
#include <stdlib.h>

/* xorshift64*: small, fast, and identical on every libc (no rand()). */
static inline uint64_t rng_next(uint64_t *state)
{
    uint64_t x = *state;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *state = x;
    return x * 0x2545F4914F6CDD1DULL;
}

/* A value in [0, bound) (bound > 0); the modulo bias is irrelevant here. */
static inline uint64_t rng_below(uint64_t *state, uint64_t bound)
{
    return rng_next(state) % bound;
}

/* argv[idx] as a positive number, or `def` when it is absent or not positive. */
static inline long arg_size(int argc, char **argv, int idx, long def)
{
    if (argc > idx) {
        long v = strtol(argv[idx], NULL, 0);
        if (v > 0)
            return v;
    }
    return def;
}

#endif
