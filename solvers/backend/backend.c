#define _POSIX_C_SOURCE 200809L
#include "backend/backend.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "backend/cohort_error.h"

#ifdef COHORT_HAVE_CUDA
#    include "backend/backend_cuda.h"
#endif

int cohort_cuda_usable(char *why, size_t len)
{
#ifdef COHORT_HAVE_CUDA
    return cohort_cuda_device_present(why, len);
#else
    if (why && len) snprintf(why, len, "this build of cohort has no CUDA support (nvcc not found)");
    return 0;
#endif
}

int cohort_cuda_select(int local_rank)
{
#ifdef COHORT_HAVE_CUDA
    return cohort_cuda_device_select(local_rank);
#else
    (void)local_rank;
    return -1;
#endif
}

void cohort_cuda_versions(char *buf, size_t len)
{
#ifdef COHORT_HAVE_CUDA
    cohort_cuda_runtime_versions(buf, len);
#else
    snprintf(buf, len, "CUDA: not built in");
#endif
}

int cohort_backend_get(const char *name, const cohort_backend **out)
{
    if (!name || !out) return COHORT_FAIL(COHORT_ERR_NULL_POINTER, "name and out are required");
    char why[256] = "";
    if (strcmp(name, "cpu") == 0) {
        *out = &cohort_backend_cpu;
        return COHORT_OK;
    }
    if (strcmp(name, "auto") == 0) {
#ifdef COHORT_HAVE_CUDA
        *out = cohort_cuda_usable(why, sizeof why) ? &cohort_backend_cuda : &cohort_backend_cpu;
#else
        *out = &cohort_backend_cpu;
#endif
        return COHORT_OK;
    }
    if (strcmp(name, "cuda") == 0) {
        if (!cohort_cuda_usable(why, sizeof why))
            return COHORT_FAIL(COHORT_ERR_NO_DEVICE, "backend 'cuda' cannot be used: %s", why);
#ifdef COHORT_HAVE_CUDA
        *out = &cohort_backend_cuda;
        return COHORT_OK;
#endif
    }
    return COHORT_FAIL(COHORT_ERR_UNKNOWN_BACKEND, "backend '%s' (allowed: auto, cpu, cuda)", name);
}

double cohort_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}
