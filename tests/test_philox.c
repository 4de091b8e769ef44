/* The noise stream (backend/philox.h) against independent references: Random123's published
 * known-answer vectors for Philox4x32-10 (kat_vectors of the Random123 distribution), the
 * conversion to doubles at its extremes, and, where the CUDA toolkit is installed, cuRAND's own
 * host generator: with offset 0 and LEGACY ordering it draws, for thread s < 65536, the four
 * doubles 4s .. 4s + 3 from Philox blocks 0 and 1 of subsequence s, which are values 0 .. 3 of
 * cohort's stream s (the layout was read off the generator: tests/test_philox.c's history). */
#include <math.h>
#include <stdint.h>

#include "backend/philox.h"
#include "test_common.h"
#ifdef TEST_PHILOX_CURAND_HOST
#    include <curand.h>
#endif

static void known_answers(void)
{
    static const struct {
        uint32_t ctr[4], key[2], out[4];
    } kat[] = {
        {{0, 0, 0, 0}, {0, 0}, {0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}},
        {{0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff},
         {0xffffffff, 0xffffffff},
         {0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}},
        {{0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344},
         {0xa4093822, 0x299f31d0},
         {0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}},
    };
    for (size_t t = 0; t < sizeof kat / sizeof kat[0]; ++t) {
        const philox4x32_ctr_t c = {{kat[t].ctr[0], kat[t].ctr[1], kat[t].ctr[2], kat[t].ctr[3]}};
        const philox4x32_key_t k = {{kat[t].key[0], kat[t].key[1]}};
        const philox4x32_ctr_t r = philox4x32_R(10, c, k);
        EXPECT(!memcmp(r.v, kat[t].out, sizeof r.v), "known-answer vector %zu: %08x %08x %08x %08x",
               t, r.v[0], r.v[1], r.v[2], r.v[3]);
    }
    /* value 2w + j of stream s is words (2j, 2j + 1) of block w: key = seed, counter (w, 0, s, 0)
     */
    const philox4x32_ctr_t c = {{0x13198a2e, 0, 0x243f6a88, 0x85a308d3}};
    const philox4x32_key_t k = {{0xa4093822, 0x299f31d0}};
    const philox4x32_ctr_t r = philox4x32_R(10, c, k);
    const uint64_t seed = 0x299f31d0a4093822ull, stream = 0x85a308d3243f6a88ull;
    for (int j = 0; j < 2; ++j) {
        const double want = philox_double_from_words(r.v[2 * j], r.v[2 * j + 1]);
        const double got =
            philox_uniform_value(seed, stream, 2 * (uint64_t)0x13198a2e + (uint64_t)j);
        EXPECT(got == want, "value %d of block 0x13198a2e: %.17g vs %.17g", j, got, want);
    }
}

static void conversion(void)
{
    const double eps = 1.0 / 9007199254740992.0; /* 2^-53 */
    EXPECT(philox_double_from_words(0, 0) == eps / 2, "smallest value 2^-54");
    /* x ^ (y << 21) = 2^53 - 1 at x = 2^21 - 1, y = 2^32 - 1: (1 - 2^-53) + 2^-54 is a tie that
     * rounds to the even 1.0, so 1 is reached and 0 is not */
    const double top = philox_double_from_words(0x001fffffu, 0xffffffffu);
    EXPECT(top == 1.0, "largest value 1: %.17g", top);
    double lo = 1.0, hi = 0.0, sum = 0.0;
    const int count = 1 << 16;
    for (int i = 0; i < count; ++i) {
        const double u = philox_uniform_value(2024, (uint64_t)i % 97, (uint64_t)i);
        lo = fmin(lo, u), hi = fmax(hi, u), sum += u;
    }
    EXPECT(lo > 0.0 && hi <= 1.0, "values in (0, 1]: [%.3g, %.3g]", lo, hi);
    /* the mean of 2^16 uniforms has standard deviation 1/sqrt(12 2^16) = 1.1e-3 */
    EXPECT(fabs(sum / count - 0.5) < 6e-3, "mean %.5f", sum / count);
}

#ifdef TEST_PHILOX_CURAND_HOST
static void against_curand_host(void)
{
    enum { THREADS = 65536 };
    const uint64_t seed = 0x0123456789abcdefull;
    double *a = malloc(4 * THREADS * sizeof *a);
    curandGenerator_t g = NULL;
    curandStatus_t st = curandCreateGeneratorHost(&g, CURAND_RNG_PSEUDO_PHILOX4_32_10);
    if (st == CURAND_STATUS_SUCCESS) st = curandSetPseudoRandomGeneratorSeed(g, seed);
    if (st == CURAND_STATUS_SUCCESS)
        st = curandSetGeneratorOrdering(g, CURAND_ORDERING_PSEUDO_LEGACY);
    if (st == CURAND_STATUS_SUCCESS) st = curandGenerateUniformDouble(g, a, 4 * THREADS);
    if (g) curandDestroyGenerator(g);
    EXPECT(st == CURAND_STATUS_SUCCESS, "cuRAND host generator: status %d", (int)st);
    int64_t differ = 0;
    for (int64_t s = 0; st == CURAND_STATUS_SUCCESS && s < THREADS; ++s)
        for (int i = 0; i < 4; ++i)
            differ += a[4 * s + i] != philox_uniform_value(seed, (uint64_t)s, (uint64_t)i);
    EXPECT(differ == 0, "cuRAND's host generator: %lld of %d values differ", (long long)differ,
           4 * THREADS);
    free(a);
}
#endif

int main(void)
{
    known_answers();
    conversion();
#ifdef TEST_PHILOX_CURAND_HOST
    against_curand_host();
#else
    printf("no CUDA toolkit in this build: cuRAND's host generator not compared\n");
#endif
    return test_summary();
}
