/* cohort's noise stream: Philox4x32-10 (Salmon et al., SC'11), addressed by (seed, stream, index)
 * so that a member's noise depends only on the seed and its global index, never on chunking or
 * backend. Value `index` of stream `stream` is the double in (0, 1] that cuRAND's device API draws
 * as component index % 2 of curand_uniform2_double after curand_init(seed, stream, 2 (index -
 * index % 2)): the Philox block of key (seed lo, seed hi) and counter (index / 2 lo, index / 2 hi,
 * stream lo, stream hi), its words 2w and 2w + 1 (w = index % 2) turned into a double as cuRAND's
 * _curand_uniform_double_hq does (53 bits: x ^ (y << 21), scaled by 2^-53, plus 2^-54).
 *
 * The cpu side evaluates Philox with Random123 (Debian's librandom123-dev, header-only), the
 * algorithm cuRAND implements; tests/test_philox.c checks it against Random123's published
 * known-answer vectors and, where the CUDA toolkit is installed, against cuRAND's own host
 * generator; test_initial_cuda checks that the device draws the same bits.
 *
 * Streams: member g of a run uses stream g (g < 2^40); other consumers take streams from
 * PHILOX_STREAM_RESERVED on, which no member index reaches. */
#ifndef COHORT_PHILOX_H
#define COHORT_PHILOX_H

#include <stdint.h>

#include <Random123/philox.h>

#define PHILOX_STREAM_RESERVED ((uint64_t)1 << 62)

/* cuRAND's _curand_uniform_double_hq (curand_uniform.h): 53 random bits, centred in their cell,
 * so the result lies in (0, 1] and is never 0. */
static inline double philox_double_from_words(uint32_t x, uint32_t y)
{
    const uint64_t z = (uint64_t)x ^ ((uint64_t)y << 21);
    const double two_pow_minus_53 = 1.0 / 9007199254740992.0;
    return (double)z * two_pow_minus_53 + two_pow_minus_53 / 2.0;
}

static inline double philox_uniform_value(uint64_t seed, uint64_t stream, uint64_t index)
{
    const uint64_t block = index / 2;
    const philox4x32_ctr_t ctr = {
        {(uint32_t)block, (uint32_t)(block >> 32), (uint32_t)stream, (uint32_t)(stream >> 32)}};
    const philox4x32_key_t key = {{(uint32_t)seed, (uint32_t)(seed >> 32)}};
    const philox4x32_ctr_t r = philox4x32_R(10, ctr, key);
    const int w = (int)(index % 2);
    return philox_double_from_words(r.v[2 * w], r.v[2 * w + 1]);
}

#endif
