/* csvstats: reads the CSV file named by argv[1] (open/read/lseek system calls inside an allowed
 * directory), parses integers and decimals with strtol/strtod, and prints per-column count, mean,
 * standard deviation (sqrt), minimum and maximum, plus a per-label tally.
 * argv[2]: number of passes over the file (default 3); each pass rewinds it. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"

#define NCOLS 3
#define MAX_LABELS 16

struct column {
    const char *name;
    long n;
    double sum, sumsq, min, max;
};

struct label {
    char name[16];
    long count;
    double temperature;
};

static void column_add(struct column *c, double v)
{
    if (c->n == 0 || v < c->min)
        c->min = v;
    if (c->n == 0 || v > c->max)
        c->max = v;
    c->n++;
    c->sum += v;
    c->sumsq += v * v;
}

/* Parses "id,temperature,pressure,count,label"; returns 0 on a malformed line. */
static int parse_line(char *line, double v[NCOLS], char **label)
{
    char *end;
    strtol(line, &end, 10);
    if (*end != ',')
        return 0;
    for (int i = 0; i < NCOLS; i++) {
        v[i] = strtod(end + 1, &end);
        if (*end != ',')
            return 0;
    }
    *label = end + 1;
    (*label)[strcspn(*label, "\r\n")] = '\0';
    return **label != '\0';
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: csvstats FILE [PASSES]\n");
        return 2;
    }
    long passes = arg_size(argc, argv, 2, 3);
    FILE *f = fopen(argv[1], "r");
    if (!f) {
        perror(argv[1]);
        return 2;
    }
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    printf("file size %ld bytes\n", size);

    struct column cols[NCOLS] = {
        {.name = "temperature"}, {.name = "pressure"}, {.name = "count"}};
    struct label labels[MAX_LABELS];
    int nlabels = 0;
    long rows = 0, bad = 0;
    char line[256];
    for (long p = 0; p < passes; p++) {
        rewind(f);
        if (!fgets(line, sizeof line, f)) /* header */
            break;
        while (fgets(line, sizeof line, f)) {
            double v[NCOLS];
            char *label;
            if (!parse_line(line, v, &label)) {
                bad++;
                continue;
            }
            rows++;
            for (int i = 0; i < NCOLS; i++)
                column_add(&cols[i], v[i]);
            int l = 0;
            while (l < nlabels && strcmp(labels[l].name, label) != 0)
                l++;
            if (l == nlabels && nlabels < MAX_LABELS) {
                snprintf(labels[l].name, sizeof labels[l].name, "%s", label);
                labels[l].count = 0;
                labels[l].temperature = 0;
                nlabels++;
            }
            if (l < nlabels) {
                labels[l].count++;
                labels[l].temperature += v[0];
            }
        }
    }
    fclose(f);
    printf("%ld passes, %ld rows, %ld malformed\n", passes, rows, bad);
    for (int i = 0; i < NCOLS; i++) {
        const struct column *c = &cols[i];
        double mean = c->n ? c->sum / (double)c->n : 0;
        double var = c->n ? c->sumsq / (double)c->n - mean * mean : 0;
        printf("%-12s n=%ld mean=%.4f sd=%.4f min=%.3f max=%.3f\n", c->name, c->n, mean,
               sqrt(var > 0 ? var : 0), c->min, c->max);
    }
    for (int l = 0; l < nlabels; l++)
        printf("label %-8s %6ld rows, mean temperature %.3f\n", labels[l].name, labels[l].count,
               labels[l].temperature / (double)labels[l].count);
    return 0;
}
