/* chase: pointer chasing over large linked structures, the access pattern caches hate.
 * A singly linked list of N nodes laid out in a shuffled order and walked several times, then a
 * binary search tree of N malloc'ed nodes with random keys: inserts, lookups, an in-order walk.
 * argv[1]: N (default 131072). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "common.h"

struct list_node {
    struct list_node *next;
    uint64_t value;
};

struct tree_node {
    struct tree_node *left, *right;
    uint64_t key;
    unsigned count;
};

static struct tree_node *tree_insert(struct tree_node *root, uint64_t key)
{
    struct tree_node **link = &root;
    while (*link) {
        if (key == (*link)->key) {
            (*link)->count++;
            return root;
        }
        link = key < (*link)->key ? &(*link)->left : &(*link)->right;
    }
    struct tree_node *n = malloc(sizeof *n);
    if (!n) {
        puts("out of memory");
        exit(1);
    }
    n->left = n->right = NULL;
    n->key = key;
    n->count = 1;
    *link = n;
    return root;
}

static const struct tree_node *tree_find(const struct tree_node *t, uint64_t key)
{
    while (t && t->key != key)
        t = key < t->key ? t->left : t->right;
    return t;
}

/* In-order walk: a position-weighted checksum proves the keys come out sorted. */
static void tree_walk(const struct tree_node *t, uint64_t *pos, uint64_t *sum, uint64_t *prev,
                      int *sorted)
{
    if (!t)
        return;
    tree_walk(t->left, pos, sum, prev, sorted);
    if (*pos > 0 && t->key <= *prev)
        *sorted = 0;
    *prev = t->key;
    *sum += t->key % 1000003 * ++*pos;
    tree_walk(t->right, pos, sum, prev, sorted);
}

static int tree_height(const struct tree_node *t)
{
    if (!t)
        return 0;
    int l = tree_height(t->left), r = tree_height(t->right);
    return 1 + (l > r ? l : r);
}

static void tree_free(struct tree_node *t)
{
    if (!t)
        return;
    tree_free(t->left);
    tree_free(t->right);
    free(t);
}

int main(int argc, char **argv)
{
    size_t n = (size_t)arg_size(argc, argv, 1, 131072);
    uint64_t seed = 42;

    struct list_node *nodes = malloc(n * sizeof *nodes);
    size_t *order = malloc(n * sizeof *order);
    if (!nodes || !order) {
        puts("out of memory");
        return 1;
    }
    for (size_t i = 0; i < n; i++) {
        order[i] = i;
        nodes[i].value = i * 7 + 1;
    }
    for (size_t i = n - 1; i > 0; i--) { /* Fisher-Yates */
        size_t j = (size_t)rng_below(&seed, i + 1), t = order[i];
        order[i] = order[j];
        order[j] = t;
    }
    for (size_t i = 0; i + 1 < n; i++)
        nodes[order[i]].next = &nodes[order[i + 1]];
    nodes[order[n - 1]].next = NULL;

    uint64_t sum = 0, steps = 0;
    for (int pass = 0; pass < 2; pass++)
        for (const struct list_node *p = &nodes[order[0]]; p; p = p->next) {
            sum += p->value ^ (uint64_t)pass;
            steps++;
        }
    printf("list: %lu nodes, %lu steps, sum %lu\n", (unsigned long)n, (unsigned long)steps,
           (unsigned long)sum);
    free(order);
    free(nodes);

    struct tree_node *root = NULL;
    for (size_t i = 0; i < n; i++)
        root = tree_insert(root, rng_below(&seed, (uint64_t)n * 4));
    size_t found = 0;
    for (size_t i = 0; i < n / 2; i++)
        found += tree_find(root, rng_below(&seed, (uint64_t)n * 4)) != NULL;
    uint64_t pos = 0, wsum = 0, prev = 0;
    int sorted = 1;
    tree_walk(root, &pos, &wsum, &prev, &sorted);
    printf("tree: %lu distinct keys, height %d, %lu of %lu lookups hit, checksum %lu, %s\n",
           (unsigned long)pos, tree_height(root), (unsigned long)found, (unsigned long)(n / 2),
           (unsigned long)wsum, sorted ? "in order" : "NOT IN ORDER");
    tree_free(root);
    return sorted ? 0 : 1;
}
