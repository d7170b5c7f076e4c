/* recursion: deep and wide call trees. Naive Fibonacci, Ackermann, N-queens by backtracking,
 * Towers of Hanoi and mutual recursion. argv[1]: board size n (default 9); the other problems
 * scale with it. */
#include <stdio.h>

#include "common.h"

static long fib(int n)
{
    return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

static long ackermann(long m, long n)
{
    if (m == 0)
        return n + 1;
    if (n == 0)
        return ackermann(m - 1, 1);
    return ackermann(m - 1, ackermann(m, n - 1));
}

/* Counts placements of queens on rows row..n-1, given the attacked columns and diagonals. */
static long queens(int n, int row, unsigned cols, unsigned diag1, unsigned diag2)
{
    if (row == n)
        return 1;
    long count = 0;
    for (int c = 0; c < n; c++) {
        unsigned d1 = 1u << (row + c), d2 = 1u << (row - c + n - 1);
        if ((cols & (1u << c)) || (diag1 & d1) || (diag2 & d2))
            continue;
        count += queens(n, row + 1, cols | (1u << c), diag1 | d1, diag2 | d2);
    }
    return count;
}

/* Moves n discs from peg `from` to peg `to`; returns a checksum of the moves. */
static unsigned long hanoi(int n, int from, int to, int via, unsigned long *moves)
{
    if (n == 0)
        return 0;
    unsigned long h = hanoi(n - 1, from, via, to, moves);
    ++*moves;
    h = h * 31 + (unsigned long)(from * 3 + to);
    return h ^ hanoi(n - 1, via, to, from, moves);
}

static int is_odd(unsigned n);
static int is_even(unsigned n)
{
    return n == 0 ? 1 : is_odd(n - 1);
}
static int is_odd(unsigned n)
{
    return n == 0 ? 0 : is_even(n - 1);
}

int main(int argc, char **argv)
{
    int n = (int)arg_size(argc, argv, 1, 9);
    if (n > 14)
        n = 14;
    printf("fib(%d) = %ld\n", n + 16, fib(n + 16));
    printf("ackermann(2, %d) = %ld\n", n * 20, ackermann(2, n * 20));
    printf("ackermann(3, %d) = %ld\n", n - 3 > 0 ? n - 3 : 1, ackermann(3, n - 3 > 0 ? n - 3 : 1));
    printf("queens(%d) = %ld\n", n, queens(n, 0, 0, 0, 0));
    unsigned long moves = 0;
    unsigned long h = hanoi(n + 6, 0, 2, 1, &moves);
    printf("hanoi(%d) = %lu moves, checksum %lu\n", n + 6, moves, h);
    printf("is_even(%d) = %d\n", n * 1001, is_even((unsigned)n * 1001));
    return 0;
}
