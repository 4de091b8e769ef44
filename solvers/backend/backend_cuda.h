/* The cuda backend (built when nvcc is found): device memory on the current device, launches on
 * the default stream, CUDA errors translated to COHORT_ERR_CUDA with file:line and the runtime's
 * message. This header is plain C; no C file includes a CUDA header. */
#ifndef COHORT_BACKEND_CUDA_H
#define COHORT_BACKEND_CUDA_H

#include <stddef.h>
#include <stdint.h>

#include "backend/backend.h"

#ifdef __cplusplus
extern "C" {
#endif

extern const cohort_backend cohort_backend_cuda;

/* 1 when a CUDA device can be used; otherwise 0 with the reason in `why`. */
int cohort_cuda_device_present(char *why, size_t len);

/* "CUDA runtime X.Y, driver X.Y" (driver "none" where no driver is installed). */
void cohort_cuda_runtime_versions(char *buf, size_t len);
/* cohort_cuda_select (backend.h). */
int cohort_cuda_device_select(int local_rank);
/* The dynamic shared memory a block may opt in to on the current device, in bytes (227 KB on
 * sm_90, 163 KB on sm_80, 99 KB on sm_86 and sm_89), asked once; where the query fails, the 48 KB
 * every device allows. COHORT_CUDA_SHARED_LIMIT (a count of bytes; anything else is ignored)
 * lowers it, so that the tests take the paths of a smaller device. */
size_t cohort_cuda_shared_limit_bytes(void);

#ifdef __cplusplus
}
#endif
#endif
