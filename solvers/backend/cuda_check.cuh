/* What every module's CUDA file shares (C++, included by .cu files only): CUDA errors translated
 * to COHORT_ERR_CUDA with file:line and the runtime's message, at the call and after a launch;
 * the block size of the one-thread-per-member kernels; the SM count. (The shared memory a block
 * may have: cohort_cuda_shared_limit_bytes, backend_cuda.h.) */
#ifndef COHORT_CUDA_CHECK_CUH
#define COHORT_CUDA_CHECK_CUH

#include <cuda_runtime.h>

#include "backend/cohort_error.h"

#define COHORT_CUDA_CHECK(expr)                                                                    \
    do {                                                                                           \
        cudaError_t cohort_cuda_rc_ = (expr);                                                      \
        if (cohort_cuda_rc_ != cudaSuccess)                                                        \
            return cohort_error_raise(COHORT_ERR_CUDA, __FILE__, __LINE__, "%s: %s (%s)", #expr,   \
                                      cudaGetErrorString(cohort_cuda_rc_),                         \
                                      cudaGetErrorName(cohort_cuda_rc_));                          \
    } while (0)

/* The current device's SM count, asked once per translation unit (a process drives one device:
 * MPI ranks take one each), for launches sized to fill the device. */
static inline int cohort_cuda_sm_count(int *count)
{
    static int cached = 0;
    if (cached == 0) {
        int dev = 0;
        COHORT_CUDA_CHECK(cudaGetDevice(&dev));
        COHORT_CUDA_CHECK(cudaDeviceGetAttribute(&cached, cudaDevAttrMultiProcessorCount, dev));
    }
    *count = cached;
    return COHORT_OK;
}

/* After a launch: a bad configuration shows at once, a fault at the next synchronisation. */
static inline int cohort_cuda_launch_status(const char *kernel, const char *file, int line)
{
    cudaError_t rc = cudaGetLastError();
    if (rc == cudaSuccess) return COHORT_OK;
    return cohort_error_raise(COHORT_ERR_CUDA, file, line, "launch of %s: %s (%s)", kernel,
                              cudaGetErrorString(rc), cudaGetErrorName(rc));
}
#define COHORT_CUDA_CHECK_LAUNCH(kernel)                                                           \
    do {                                                                                           \
        int cohort_launch_rc_ = cohort_cuda_launch_status((kernel), __FILE__, __LINE__);           \
        if (cohort_launch_rc_ != COHORT_OK) return cohort_launch_rc_;                              \
    } while (0)

/* Runs the statements (a launch of a kernel templated on the index type I) with I = uint32_t
 * where `total` threads' indices fit in 32 bits, else int64_t: the per-thread index arithmetic
 * (divisions by the member count and the row length) then costs 32-bit, not 64-bit, integer
 * divisions. E.g. COHORT_CUDA_WITH_INDEX(n, I, kernel<PASS, I><<<blocks, threads>>>(...)). */
#define COHORT_CUDA_WITH_INDEX(total, I, ...)                                                      \
    do {                                                                                           \
        if ((int64_t)(total) <= (int64_t)0xffffffffu) {                                            \
            typedef uint32_t I;                                                                    \
            __VA_ARGS__;                                                                           \
        } else {                                                                                   \
            typedef int64_t I;                                                                     \
            __VA_ARGS__;                                                                           \
        }                                                                                          \
    } while (0)

enum { COHORT_CUDA_THREADS = 256 /* block size of the one-thread-per-member kernels */ };

#endif
