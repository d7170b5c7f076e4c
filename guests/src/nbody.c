/* nbody: floating point. The classic five-body simulation of the Jovian planets, once in double
 * and once in float precision (sqrt and sqrtf, divisions, int <-> float conversions), printing
 * energies with printf("%.9f"). argv[1]: number of time steps (default 5000). */
#include <math.h>
#include <stdio.h>

#include "common.h"

#define PI 3.141592653589793
#define SOLAR_MASS (4 * PI * PI)
#define DAYS_PER_YEAR 365.24
#define NBODIES 5

/* One body in precision T: position, velocity, mass. */
#define DEFINE_BODY(T, NAME)                                                                     \
    struct NAME {                                                                                \
        T x, y, z, vx, vy, vz, mass;                                                             \
    };
DEFINE_BODY(double, body_d)
DEFINE_BODY(float, body_f)

static const double initial[NBODIES][7] = {
    {0, 0, 0, 0, 0, 0, SOLAR_MASS},
    {4.84143144246472090e+00, -1.16032004402742839e+00, -1.03622044471123109e-01,
     1.66007664274403694e-03 * DAYS_PER_YEAR, 7.69901118419740425e-03 * DAYS_PER_YEAR,
     -6.90460016972063023e-05 * DAYS_PER_YEAR, 9.54791938424326609e-04 * SOLAR_MASS},
    {8.34336671824457987e+00, 4.12479856412430479e+00, -4.03523417114321381e-01,
     -2.76742510726862411e-03 * DAYS_PER_YEAR, 4.99852801234917238e-03 * DAYS_PER_YEAR,
     2.30417297573763929e-05 * DAYS_PER_YEAR, 2.85885980666130812e-04 * SOLAR_MASS},
    {1.28943695621391310e+01, -1.51111514016986312e+01, -2.23307578892655734e-01,
     2.96460137564761618e-03 * DAYS_PER_YEAR, 2.37847173959480950e-03 * DAYS_PER_YEAR,
     -2.96589568540237556e-05 * DAYS_PER_YEAR, 4.36624404335156298e-05 * SOLAR_MASS},
    {1.53796971148509165e+01, -2.59193146099879641e+01, 1.79258772950371181e-01,
     2.68067772490389322e-03 * DAYS_PER_YEAR, 1.62824170038242295e-03 * DAYS_PER_YEAR,
     -9.51592254519715870e-05 * DAYS_PER_YEAR, 5.15138902046611451e-05 * SOLAR_MASS},
};

/* The simulation, written once and instantiated for double (sqrt) and float (sqrtf). */
#define DEFINE_SIMULATION(T, BODY, SQRT, SUFFIX)                                                 \
    static void init_##SUFFIX(struct BODY *b)                                                    \
    {                                                                                            \
        T px = 0, py = 0, pz = 0;                                                                \
        for (int i = 0; i < NBODIES; i++) {                                                      \
            b[i].x = (T)initial[i][0];                                                           \
            b[i].y = (T)initial[i][1];                                                           \
            b[i].z = (T)initial[i][2];                                                           \
            b[i].vx = (T)initial[i][3];                                                          \
            b[i].vy = (T)initial[i][4];                                                          \
            b[i].vz = (T)initial[i][5];                                                          \
            b[i].mass = (T)initial[i][6];                                                        \
            px += b[i].vx * b[i].mass;                                                           \
            py += b[i].vy * b[i].mass;                                                           \
            pz += b[i].vz * b[i].mass;                                                           \
        }                                                                                        \
        b[0].vx = -px / (T)SOLAR_MASS;                                                           \
        b[0].vy = -py / (T)SOLAR_MASS;                                                           \
        b[0].vz = -pz / (T)SOLAR_MASS;                                                           \
    }                                                                                            \
    static void advance_##SUFFIX(struct BODY *b, T dt)                                           \
    {                                                                                            \
        for (int i = 0; i < NBODIES; i++)                                                        \
            for (int j = i + 1; j < NBODIES; j++) {                                              \
                T dx = b[i].x - b[j].x, dy = b[i].y - b[j].y, dz = b[i].z - b[j].z;              \
                T d2 = dx * dx + dy * dy + dz * dz;                                              \
                T mag = dt / (d2 * SQRT(d2));                                                    \
                b[i].vx -= dx * b[j].mass * mag;                                                 \
                b[i].vy -= dy * b[j].mass * mag;                                                 \
                b[i].vz -= dz * b[j].mass * mag;                                                 \
                b[j].vx += dx * b[i].mass * mag;                                                 \
                b[j].vy += dy * b[i].mass * mag;                                                 \
                b[j].vz += dz * b[i].mass * mag;                                                 \
            }                                                                                    \
        for (int i = 0; i < NBODIES; i++) {                                                      \
            b[i].x += dt * b[i].vx;                                                              \
            b[i].y += dt * b[i].vy;                                                              \
            b[i].z += dt * b[i].vz;                                                              \
        }                                                                                        \
    }                                                                                            \
    static T energy_##SUFFIX(const struct BODY *b)                                               \
    {                                                                                            \
        T e = 0;                                                                                 \
        for (int i = 0; i < NBODIES; i++) {                                                      \
            e += (T)0.5 * b[i].mass *                                                            \
                 (b[i].vx * b[i].vx + b[i].vy * b[i].vy + b[i].vz * b[i].vz);                    \
            for (int j = i + 1; j < NBODIES; j++) {                                              \
                T dx = b[i].x - b[j].x, dy = b[i].y - b[j].y, dz = b[i].z - b[j].z;              \
                e -= b[i].mass * b[j].mass / SQRT(dx * dx + dy * dy + dz * dz);                  \
            }                                                                                    \
        }                                                                                        \
        return e;                                                                                \
    }

DEFINE_SIMULATION(double, body_d, sqrt, d)
DEFINE_SIMULATION(float, body_f, sqrtf, f)

int main(int argc, char **argv)
{
    long steps = arg_size(argc, argv, 1, 5000);
    struct body_d bd[NBODIES];
    struct body_f bf[NBODIES];

    init_d(bd);
    init_f(bf);
    printf("double energy before: %.9f\n", energy_d(bd));
    printf("float  energy before: %.6f\n", (double)energy_f(bf));
    for (long s = 0; s < steps; s++) {
        advance_d(bd, 0.01);
        advance_f(bf, 0.01f);
    }
    printf("double energy after %ld steps: %.9f\n", steps, energy_d(bd));
    printf("float  energy after %ld steps: %.6f\n", steps, (double)energy_f(bf));

    /* Conversions both ways: positions scaled to integers, and back. */
    long long fixed = 0;
    int rounded = 0;
    for (int i = 0; i < NBODIES; i++) {
        fixed += (long long)(bd[i].x * 1e6) - (long long)(bf[i].y * 1e3f);
        rounded += (int)lround(bd[i].z * 1000.0) + (int)bf[i].mass;
    }
    double back = (double)fixed / 3.0 + (float)rounded;
    printf("fixed-point checksum %lld, rounded %d, back %.4f, sun x %.3e\n", fixed, rounded, back,
           bd[0].x);
    return 0;
}
