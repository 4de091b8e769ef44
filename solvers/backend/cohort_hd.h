/* COHORT_HD marks the per-point and per-system arithmetic that is shared by the OpenMP loops and
 * the CUDA kernels: static __host__ __device__ inline under nvcc, plain static inline in C. */
#ifndef COHORT_HD_H
#define COHORT_HD_H

#if defined(__CUDACC__)
#    define COHORT_HD static __host__ __device__ __forceinline__
/* Arithmetic compiled once per translation unit and called, not inlined: every kernel of the
 * unit then rounds it alike (nvcc contracts multiply-adds into FMAs per inlined context, so two
 * kernels inlining one long expression may differ in the last bits). Unused where a unit calls
 * it from device code only: the host compiler then sees no caller. */
#    define COHORT_HD_CALLED static __host__ __device__ __noinline__ __attribute__((unused))
#else
#    define COHORT_HD static inline
#    define COHORT_HD_CALLED static inline
#endif

#endif
