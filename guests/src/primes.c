/* primes: integer arithmetic with a deliberate non-zero exit status.
 * Counts primes below N with a sieve of Eratosthenes and with deterministic Miller-Rabin
 * (128-bit modular multiplication), then self-checks the Fermat base-2 test against the sieve
 * below 1000. Fermat's test is known to be fooled by 341, 561 and 645, so the self-check reports
 * 3 mismatches and the program exits with status 3: the exit-code passthrough test.
 * argv[1]: N (default 60000). */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "common.h"

static uint64_t mulmod(uint64_t a, uint64_t b, uint64_t m)
{
    return (uint64_t)((unsigned __int128)a * b % m);
}

static uint64_t powmod(uint64_t base, uint64_t exp, uint64_t m)
{
    uint64_t r = 1 % m;
    base %= m;
    while (exp) {
        if (exp & 1)
            r = mulmod(r, base, m);
        base = mulmod(base, base, m);
        exp >>= 1;
    }
    return r;
}

/* Deterministic for all 64-bit n with these seven bases. */
static int miller_rabin(uint64_t n)
{
    static const uint64_t bases[] = {2, 325, 9375, 28178, 450775, 9780504, 1795265022};
    if (n < 2)
        return 0;
    if (n % 2 == 0)
        return n == 2;
    uint64_t d = n - 1;
    int s = 0;
    while ((d & 1) == 0) {
        d >>= 1;
        s++;
    }
    for (unsigned i = 0; i < sizeof bases / sizeof bases[0]; i++) {
        uint64_t a = bases[i] % n;
        if (a == 0)
            continue;
        uint64_t x = powmod(a, d, n);
        if (x == 1 || x == n - 1)
            continue;
        int composite = 1;
        for (int r = 1; r < s && composite; r++) {
            x = mulmod(x, x, n);
            if (x == n - 1)
                composite = 0;
        }
        if (composite)
            return 0;
    }
    return 1;
}

static unsigned char composite[1 << 20];

static void sieve(long n)
{
    memset(composite, 0, (size_t)n);
    composite[0] = composite[1] = 1;
    for (long i = 2; i * i < n; i++)
        if (!composite[i])
            for (long j = i * i; j < n; j += i)
                composite[j] = 1;
}

int main(int argc, char **argv)
{
    long n = arg_size(argc, argv, 1, 60000);
    if (n < 1000)
        n = 1000;
    if (n > (long)sizeof composite)
        n = (long)sizeof composite;
    sieve(n);

    long by_sieve = 0, by_mr = 0, twins = 0;
    uint64_t sum = 0;
    for (long i = 0; i < n; i++) {
        if (!composite[i]) {
            by_sieve++;
            sum += (uint64_t)i;
            if (i >= 2 && !composite[i - 2])
                twins++;
        }
        by_mr += miller_rabin((uint64_t)i);
    }
    printf("primes below %ld: sieve %ld, miller-rabin %ld, twin pairs %ld, sum %llu\n", n,
           by_sieve, by_mr, twins, (unsigned long long)sum);

    int mismatches = 0;
    for (long i = 3; i < 1000; i += 2) {
        int fermat = powmod(2, (uint64_t)i - 1, (uint64_t)i) == 1;
        if (fermat != !composite[i]) {
            printf("fermat base 2 is fooled by %ld\n", i);
            mismatches++;
        }
    }
    printf("self-check: %d mismatches, exiting with status %d\n", mismatches, mismatches);
    return by_sieve == by_mr ? mismatches : 100;
}
