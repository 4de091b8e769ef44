#include "backend/philox.h"

#include "backend/cohort_error.h"
#ifdef COHORT_HAVE_CURAND
#    include <curand.h>
#endif

int philox_uniform(int on_host, double *out, int64_t count, uint64_t seed, uint64_t offset)
{
#ifdef COHORT_HAVE_CURAND
    curandGenerator_t g = NULL;
    curandStatus_t st = on_host ? curandCreateGeneratorHost(&g, CURAND_RNG_PSEUDO_PHILOX4_32_10)
                                : curandCreateGenerator(&g, CURAND_RNG_PSEUDO_PHILOX4_32_10);
    if (st == CURAND_STATUS_SUCCESS) st = curandSetPseudoRandomGeneratorSeed(g, seed);
    if (st == CURAND_STATUS_SUCCESS)
        st = curandSetGeneratorOrdering(g, CURAND_ORDERING_PSEUDO_LEGACY);
    if (st == CURAND_STATUS_SUCCESS) st = curandSetGeneratorOffset(g, offset);
    if (st == CURAND_STATUS_SUCCESS && count > 0)
        st = curandGenerateUniformDouble(g, out, (size_t)count);
    if (g) curandDestroyGenerator(g);
    if (st != CURAND_STATUS_SUCCESS)
        return COHORT_FAIL(COHORT_ERR_CURAND, "%s Philox4x32-10 generator: status %d",
                           on_host ? "host" : "device", (int)st);
    return COHORT_OK;
#else
    (void)on_host, (void)out, (void)count, (void)seed, (void)offset;
    return COHORT_FAIL(COHORT_ERR_UNAVAILABLE,
                       "random initial conditions need cuRAND, and this build found no CUDA "
                       "toolkit");
#endif
}
