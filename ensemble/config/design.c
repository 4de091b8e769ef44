#include "config/design.h"

#include <math.h>
#include <pthread.h>
#include <string.h>

#include "backend/philox.h"

/* The designs' Philox streams, clear of the members', k-means++'s (RESERVED + restart), the
 * cluster sample's (+ 2^40) and the bootstrap's (+ 2^41): the Latin hypercube's permutation of
 * dimension j at DESIGN_STREAM + j, its jitter at + 32 + j, the Sobol shifts at + 64. */
#define DESIGN_STREAM (PHILOX_STREAM_RESERVED + ((uint64_t)1 << 42))

static const char *const names[] = {"grid", "zip", "lhs", "sobol", "saltelli"};

const char *design_name(design_kind kind)
{
    return (unsigned)kind < sizeof names / sizeof *names ? names[kind] : NULL;
}

int design_from_name(const char *name)
{
    for (size_t k = 0; k < sizeof names / sizeof *names; ++k)
        if (!strcmp(name, names[k])) return (int)k;
    return -1;
}

int design_space_filling(design_kind kind)
{
    return kind >= DESIGN_LHS;
}

int64_t design_saltelli_arms(int d)
{
    return (int64_t)d + 2;
}

/* Joe and Kuo (2008), new-joe-kuo-6.21201, dimensions 2 to 16: the degree s of the primitive
 * polynomial, its inner coefficients a (bit s - 1 - k is a_k), and the initial m_1 .. m_s.
 * Dimension 1 is the van der Corput sequence (every m_k = 1). */
static const struct {
    int s, a, m[6];
} joe_kuo[DESIGN_SOBOL_DIMS - 1] = {
    {1, 0, {1}},
    {2, 1, {1, 3}},
    {3, 1, {1, 3, 1}},
    {3, 2, {1, 1, 1}},
    {4, 1, {1, 1, 3, 3}},
    {4, 4, {1, 3, 5, 13}},
    {5, 2, {1, 1, 5, 5, 17}},
    {5, 4, {1, 1, 5, 5, 5}},
    {5, 7, {1, 1, 7, 11, 19}},
    {5, 11, {1, 1, 5, 1, 1}},
    {5, 13, {1, 1, 1, 3, 11}},
    {5, 14, {1, 3, 5, 5, 31}},
    {6, 1, {1, 3, 3, 9, 7, 49}},
    {6, 13, {1, 1, 1, 15, 21, 21}},
    {6, 16, {1, 3, 1, 13, 27, 49}},
};

/* The 32 direction numbers v_k = m_k 2^(32 - k) of dimension `dim`, from Bratley and Fox's
 * recurrence m_k = 2 a_1 m_(k-1) ^ 4 a_2 m_(k-2) ^ .. ^ 2^s m_(k-s) ^ m_(k-s). */
static void direction_numbers(int dim, uint32_t v[32])
{
    uint32_t m[32];
    if (dim == 0) {
        for (int k = 0; k < 32; ++k) m[k] = 1;
    } else {
        const int s = joe_kuo[dim - 1].s, a = joe_kuo[dim - 1].a;
        for (int k = 0; k < 32; ++k) {
            if (k < s) {
                m[k] = (uint32_t)joe_kuo[dim - 1].m[k];
                continue;
            }
            uint32_t next = m[k - s] ^ (m[k - s] << s);
            for (int c = 1; c < s; ++c)
                if ((a >> (s - 1 - c)) & 1) next ^= m[k - c] << c;
            m[k] = next;
        }
    }
    for (int k = 0; k < 32; ++k) v[k] = m[k] << (31 - k);
}

/* Every dimension's direction numbers, made once (a design asks for millions of points). */
static uint32_t direction_table[DESIGN_SOBOL_DIMS][32];
static pthread_once_t direction_table_once = PTHREAD_ONCE_INIT;
static void direction_table_fill(void)
{
    for (int dim = 0; dim < DESIGN_SOBOL_DIMS; ++dim) direction_numbers(dim, direction_table[dim]);
}

uint32_t design_sobol_bits(uint64_t i, int dim)
{
    pthread_once(&direction_table_once, direction_table_fill);
    const uint32_t *v = direction_table[dim];
    uint32_t x = 0;
    for (uint64_t gray = i ^ (i >> 1); gray; gray &= gray - 1) x ^= v[__builtin_ctzll(gray)];
    return x;
}

/* Word w of the Philox block at counter (lo, hi) of `stream` for `seed`. */
static uint32_t philox_word(uint64_t seed, uint64_t stream, uint64_t counter, int w)
{
    const philox4x32_ctr_t ctr = {
        {(uint32_t)counter, (uint32_t)(counter >> 32), (uint32_t)stream, (uint32_t)(stream >> 32)}};
    const philox4x32_key_t key = {{(uint32_t)seed, (uint32_t)(seed >> 32)}};
    return philox4x32_R(10, ctr, key).v[w];
}

uint32_t design_sobol_shift(uint64_t seed, int dim)
{
    return philox_word(seed, DESIGN_STREAM + 64, (uint64_t)dim, 0);
}

/* Four Feistel rounds on 2h bits (Luby and Rackoff: a pseudorandom permutation), the round
 * function a Philox word of (round, half). */
static uint64_t feistel(uint64_t seed, int dim, int h, uint64_t x)
{
    const uint64_t mask = ((uint64_t)1 << h) - 1;
    uint64_t left = x >> h, right = x & mask;
    for (int round = 0; round < 4; ++round) {
        const uint64_t f =
            philox_word(seed, DESIGN_STREAM + (uint64_t)dim, ((uint64_t)round << 32) | right, 0);
        const uint64_t next = left ^ (f & mask);
        left = right;
        right = next;
    }
    return (left << h) | right;
}

uint64_t design_lhs_stratum(uint64_t seed, int dim, uint64_t points, uint64_t i)
{
    int h = 1;
    while (((uint64_t)1 << (2 * h)) < points) ++h;
    uint64_t y = feistel(seed, dim, h, i);
    while (y >= points) y = feistel(seed, dim, h, y); /* cycle-walking: stays a bijection */
    return y;
}

double design_coordinate(design_kind kind, uint64_t seed, int d, uint64_t points, uint64_t i, int j)
{
    const double two_pow_minus_32 = 1.0 / 4294967296.0;
    if (kind == DESIGN_LHS) {
        const double u = philox_uniform_value(seed, DESIGN_STREAM + 32 + (uint64_t)j, i);
        return ((double)design_lhs_stratum(seed, j, points, i) + u) / (double)points;
    }
    uint64_t index = i;
    int dim = j;
    if (kind == DESIGN_SALTELLI) { /* arm 0: A, 1: B, 2 + c: A with column c from B */
        const uint64_t arms = (uint64_t)design_saltelli_arms(d), arm = i % arms;
        index = i / arms;
        dim = (arm == 1 || arm == 2 + (uint64_t)j) ? d + j : j;
    }
    return (double)(design_sobol_bits(index, dim) ^ design_sobol_shift(seed, dim)) *
           two_pow_minus_32;
}
