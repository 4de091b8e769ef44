/* COHORT_HD marks the per-point and per-system arithmetic that is shared by the OpenMP loops and
 * the CUDA kernels: static __host__ __device__ inline under nvcc, plain static inline in C. */
#ifndef COHORT_HD_H
#define COHORT_HD_H

#if defined(__CUDACC__)
#    define COHORT_HD static __host__ __device__ __forceinline__
#else
#    define COHORT_HD static inline
#endif

#endif
