/* coremark: a CoreMark-like mixed kernel (written for profkit, not EEMBC's code). Each iteration
 * runs three workloads over small working sets and folds their results into a CRC-16:
 *   list   - find, reverse and merge-sort a linked list (pointer updates, data-dependent
 *            branches),
 *   matrix - add/multiply by constants, matrix-vector and matrix-matrix products, bit-field
 *            extraction (multiply-accumulate loops),
 *   state  - a switch-driven state machine classifying comma-separated numeric tokens
 *            (unpredictable branches).
 * argv[1]: iterations (default 40). */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "common.h"

/* ---- CRC-16 (CCITT polynomial, bit-reflected) over the results ---- */

static uint16_t crc16_byte(uint8_t data, uint16_t crc)
{
    for (int i = 0; i < 8; i++) {
        uint16_t mix = (uint16_t)((crc ^ data) & 1);
        crc >>= 1;
        data >>= 1;
        if (mix)
            crc ^= 0x8408;
    }
    return crc;
}

static uint16_t crc16_u32(uint32_t v, uint16_t crc)
{
    for (int i = 0; i < 4; i++)
        crc = crc16_byte((uint8_t)(v >> (8 * i)), crc);
    return crc;
}

/* ---- list ---- */

#define LIST_LEN 96

struct item {
    struct item *next;
    int16_t data;
    int16_t idx;
};

static struct item items[LIST_LEN];

static struct item *list_init(uint64_t *seed)
{
    for (int i = 0; i < LIST_LEN; i++) {
        items[i].data = (int16_t)(rng_next(seed) & 0x7FFF);
        items[i].idx = (int16_t)i;
        items[i].next = i + 1 < LIST_LEN ? &items[i + 1] : NULL;
    }
    return &items[0];
}

static struct item *list_reverse(struct item *l)
{
    struct item *prev = NULL;
    while (l) {
        struct item *next = l->next;
        l->next = prev;
        prev = l;
        l = next;
    }
    return prev;
}

static const struct item *list_find(const struct item *l, int16_t data_low)
{
    while (l && (l->data & 0xFF) != data_low)
        l = l->next;
    return l;
}

static int cmp_data(const struct item *a, const struct item *b)
{
    return (a->data > b->data) - (a->data < b->data);
}

static int cmp_idx(const struct item *a, const struct item *b)
{
    return a->idx - b->idx;
}

/* Bottom-up merge sort of a singly linked list, stable, O(n log n), no recursion. */
static struct item *list_sort(struct item *list, int (*cmp)(const struct item *, const struct item *))
{
    for (int width = 1;; width *= 2) {
        struct item *p = list, *head = NULL, **tail = &head;
        int merges = 0;
        while (p) {
            merges++;
            struct item *q = p;
            int psize = 0;
            while (psize < width && q) {
                psize++;
                q = q->next;
            }
            int qsize = width;
            while (psize > 0 || (qsize > 0 && q)) {
                struct item *e;
                if (psize == 0) {
                    e = q;
                    q = q->next;
                    qsize--;
                } else if (qsize == 0 || !q || cmp(p, q) <= 0) {
                    e = p;
                    p = p->next;
                    psize--;
                } else {
                    e = q;
                    q = q->next;
                    qsize--;
                }
                *tail = e;
                tail = &e->next;
            }
            p = q;
        }
        *tail = NULL;
        list = head;
        if (merges <= 1)
            return list;
    }
}

static uint16_t bench_list(struct item **list, int iter, uint16_t crc)
{
    int found = 0, missed = 0;
    for (int i = 0; i < 8; i++) {
        const struct item *f = list_find(*list, (int16_t)((iter * 8 + i) & 0xFF));
        if (f) {
            found++;
            crc = crc16_u32((uint32_t)f->idx, crc);
        } else {
            missed++;
        }
    }
    *list = list_reverse(*list);
    *list = list_sort(*list, cmp_data);
    crc = crc16_u32((uint32_t)(*list)->data, crc);
    for (struct item *p = *list; p; p = p->next) /* perturb so later iterations differ */
        p->data = (int16_t)((p->data * 5 + iter + p->idx) & 0x7FFF);
    *list = list_sort(*list, cmp_idx);
    return crc16_u32((uint32_t)(found * 16 + missed), crc);
}

/* ---- matrix ---- */

#define MAT_N 20

static int16_t mat_a[MAT_N][MAT_N], mat_b[MAT_N][MAT_N];
static int32_t mat_c[MAT_N][MAT_N];

static void matrix_init(uint64_t *seed)
{
    for (int i = 0; i < MAT_N; i++)
        for (int j = 0; j < MAT_N; j++) {
            mat_a[i][j] = (int16_t)(rng_next(seed) % 2001) - 1000;
            mat_b[i][j] = (int16_t)(rng_next(seed) % 201) - 100;
        }
}

static uint32_t matrix_sum(int32_t clip)
{
    uint32_t sum = 0;
    int32_t prev = 0;
    for (int i = 0; i < MAT_N; i++)
        for (int j = 0; j < MAT_N; j++) {
            int32_t v = mat_c[i][j];
            sum += v > clip ? 10u : 1u;
            sum += v > prev ? 1u : 0u;
            prev = v;
        }
    return sum;
}

static uint16_t bench_matrix(int iter, uint16_t crc)
{
    int16_t k = (int16_t)(iter | 1);
    for (int i = 0; i < MAT_N; i++) /* add a constant */
        for (int j = 0; j < MAT_N; j++)
            mat_a[i][j] = (int16_t)(mat_a[i][j] + k);
    for (int i = 0; i < MAT_N; i++) /* multiply by a constant */
        for (int j = 0; j < MAT_N; j++)
            mat_c[i][j] = (int32_t)mat_a[i][j] * k;
    crc = crc16_u32(matrix_sum(1000 * k), crc);
    for (int i = 0; i < MAT_N; i++) { /* matrix times vector (column iter % N of B) */
        int32_t s = 0;
        for (int j = 0; j < MAT_N; j++)
            s += (int32_t)mat_a[i][j] * mat_b[j][iter % MAT_N];
        mat_c[i][0] = s;
    }
    crc = crc16_u32((uint32_t)mat_c[MAT_N / 2][0], crc);
    for (int i = 0; i < MAT_N; i++) /* matrix times matrix */
        for (int j = 0; j < MAT_N; j++) {
            int32_t s = 0;
            for (int x = 0; x < MAT_N; x++)
                s += (int32_t)mat_a[i][x] * mat_b[x][j];
            mat_c[i][j] = s;
        }
    crc = crc16_u32(matrix_sum(k * 2000), crc);
    for (int i = 0; i < MAT_N; i++) /* matrix times matrix, bit fields of the products */
        for (int j = 0; j < MAT_N; j++) {
            int32_t s = 0;
            for (int x = 0; x < MAT_N; x++) {
                int32_t t = (int32_t)mat_a[i][x] * mat_b[x][j];
                s += ((t >> 2) & 0xF) * ((t >> 5) & 0x7F);
            }
            mat_c[i][j] = s;
        }
    crc = crc16_u32(matrix_sum(k * 50), crc);
    for (int i = 0; i < MAT_N; i++) /* undo the constant so values stay bounded */
        for (int j = 0; j < MAT_N; j++)
            mat_a[i][j] = (int16_t)(mat_a[i][j] - k);
    return crc;
}

/* ---- state machine ---- */

enum state { START, INT, FRAC, EXP_SIGN, EXP, INVALID, NSTATES };

static char state_input[1200];
static const char *const tokens[] = {"5012", "1.234", "-874", "+122", "3.5e-7", "1e9", "--9",
                                     "0.0", "12e", "7.1.2", "-.5", "65535", "x1", "4E+2"};

static void state_init(uint64_t *seed)
{
    size_t len = 0;
    while (len + 12 < sizeof state_input) {
        const char *t = tokens[rng_below(seed, sizeof tokens / sizeof tokens[0])];
        size_t tl = strlen(t);
        memcpy(state_input + len, t, tl);
        len += tl;
        state_input[len++] = ',';
    }
    state_input[len] = '\0';
}

/* Classifies the token at *p and advances past its comma; counts every state transition. */
static enum state next_token(const char **p, unsigned transitions[NSTATES])
{
    enum state s = START;
    const char *c = *p;
    for (; *c && *c != ','; c++) {
        enum state before = s;
        char ch = *c;
        int digit = ch >= '0' && ch <= '9';
        switch (s) {
        case START:
            s = (digit || ch == '+' || ch == '-') ? INT : ch == '.' ? FRAC : INVALID;
            break;
        case INT:
            s = digit ? INT : ch == '.' ? FRAC : (ch == 'e' || ch == 'E') ? EXP_SIGN : INVALID;
            break;
        case FRAC:
            s = digit ? FRAC : (ch == 'e' || ch == 'E') ? EXP_SIGN : INVALID;
            break;
        case EXP_SIGN:
            s = (digit || ch == '+' || ch == '-') ? EXP : INVALID;
            break;
        case EXP:
            s = digit ? EXP : INVALID;
            break;
        default:
            break;
        }
        if (s != before)
            transitions[s]++;
    }
    if (s == EXP_SIGN)
        s = INVALID;
    *p = *c ? c + 1 : c;
    return s;
}

static uint16_t bench_state(int iter, uint16_t crc)
{
    unsigned finals[NSTATES] = {0}, transitions[NSTATES] = {0};
    for (const char *p = state_input; *p;)
        finals[next_token(&p, transitions)]++;
    for (int s = 0; s < NSTATES; s++) {
        crc = crc16_u32(finals[s], crc);
        crc = crc16_u32(transitions[s], crc);
    }
    /* Corrupt a stride of characters, then repair them, as CoreMark's state test does. */
    size_t len = strlen(state_input), stride = (size_t)(iter % 7) + 3;
    for (size_t i = 0; i < len; i += stride)
        if (state_input[i] == ',')
            continue;
        else
            state_input[i] ^= 0x20;
    for (const char *p = state_input; *p;)
        finals[next_token(&p, transitions)]++;
    for (size_t i = 0; i < len; i += stride)
        if (state_input[i] != ',')
            state_input[i] ^= 0x20;
    return crc16_u32(finals[INVALID], crc);
}

int main(int argc, char **argv)
{
    long iterations = arg_size(argc, argv, 1, 40);
    uint64_t seed = 0x66;
    struct item *list = list_init(&seed);
    matrix_init(&seed);
    state_init(&seed);

    uint16_t crc_list = 0, crc_matrix = 0, crc_state = 0, crc = 0;
    for (long i = 0; i < iterations; i++) {
        crc_list = bench_list(&list, (int)i, crc_list);
        crc_matrix = bench_matrix((int)i, crc_matrix);
        crc_state = bench_state((int)i, crc_state);
        crc = crc16_u32((uint32_t)crc_list << 16 | crc_matrix, crc16_u32(crc_state, crc));
        if (i % 10 == 9)
            printf("iteration %ld: crc %04x\n", i + 1, crc);
    }
    printf("list %04x matrix %04x state %04x final %04x\n", crc_list, crc_matrix, crc_state, crc);
    return 0;
}
