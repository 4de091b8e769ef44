/* cuRAND's Philox4x32-10 with the settings that make a member's noise independent of chunking and
 * backend: LEGACY ordering, an explicit offset, uniform doubles in (0, 1]. The host generator and
 * the device generator draw the same numbers (tests/test_initial.c checks it on a GPU). */
#ifndef COHORT_PHILOX_H
#define COHORT_PHILOX_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* count values from position `offset` of the sequence for `seed` into out: host memory with
 * on_host (the host generator, no GPU needed), device memory otherwise. COHORT_ERR_UNAVAILABLE
 * where this build has no cuRAND. */
int philox_uniform(int on_host, double *out, int64_t count, uint64_t seed, uint64_t offset);

#ifdef __cplusplus
}
#endif
#endif
