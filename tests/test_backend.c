/* Backend selection and the memory operations of each usable backend; every module's kernel
 * table for it is complete. */
#include <stdlib.h>
#include <string.h>

#include "analysis/reduction_kernels.h"
#include "backend/backend.h"
#include "backend/cohort_error.h"
#include "banded/banded_kernels.h"
#include "fields/fields.h"
#include "models/model1d/model1d_kernels.h"
#include "stencil/stencil_kernels.h"
#include "test_common.h"

/* A copy of several MiB and a few bytes, which the cpu backend splits over its threads: every
 * byte arrives, the last piece short. */
static void exercise_large_copy(const cohort_backend *be)
{
    const size_t bytes = ((size_t)5 << 20) + 13;
    unsigned char *host = malloc(bytes), *back = malloc(bytes);
    EXPECT(host && back, "host buffers");
    if (!host || !back) return;
    for (size_t i = 0; i < bytes; ++i) host[i] = (unsigned char)(i * 2654435761u >> 13);
    void *a = NULL, *b = NULL;
    EXPECT(be->alloc(&a, bytes) == COHORT_OK && be->alloc(&b, bytes) == COHORT_OK,
           "%s alloc of %zu bytes", be->name, bytes);
    EXPECT(be->copy_to_device(a, host, bytes) == COHORT_OK, "large copy in");
    EXPECT(be->copy_within(b, a, bytes) == COHORT_OK, "large copy within");
    memset(back, 0, bytes);
    EXPECT(be->copy_to_host(back, b, bytes) == COHORT_OK, "large copy out");
    EXPECT(memcmp(host, back, bytes) == 0, "%s large round trip", be->name);
    be->release(a), be->release(b);
    free(host), free(back);
}

static void exercise(const cohort_backend *be)
{
    /* a table with a missing operation would crash its first caller */
    EXPECT(be->name && be->describe && be->mem_info && be->alloc && be->release &&
               be->copy_to_device && be->copy_to_host && be->copy_within && be->fill &&
               be->synchronize && be->uniform_members && be->interleave,
           "%s: every operation is set", be->name);
    const banded_kernels *banded = COHORT_KERNELS(be, banded_kernels);
    const fields_kernels *fields = COHORT_KERNELS(be, fields_kernels);
    const model1d_kernels *model1d = COHORT_KERNELS(be, model1d_kernels);
    const stencil_kernels *stencil = COHORT_KERNELS(be, stencil_kernels);
    const reduction_kernels *reduction = COHORT_KERNELS(be, reduction_kernels);
    EXPECT(banded->solve && fields->moments && fields->values && model1d->step &&
               stencil->weights && stencil->point_operator && reduction->spectrum_plan_alloc &&
               reduction->spectrum_plan_free && reduction->spectrum_power &&
               reduction->block_fold && reduction->nearest_centroid,
           "%s: every module's kernels are set", be->name);
    char text[256] = "";
    EXPECT(be->describe(text, sizeof text) == COHORT_OK && text[0], "%s describe", be->name);
    size_t free_bytes = 0, total = 0;
    EXPECT(be->mem_info(&free_bytes, &total) == COHORT_OK && total > 0 && free_bytes <= total,
           "%s mem_info", be->name);
    double host[100], back[100];
    for (int i = 0; i < 100; ++i) host[i] = i * 0.5 - 7.0;
    void *a = NULL, *b = NULL;
    EXPECT(be->alloc(&a, sizeof host) == COHORT_OK && be->alloc(&b, sizeof host) == COHORT_OK,
           "%s alloc", be->name);
    EXPECT(be->copy_to_device(a, host, sizeof host) == COHORT_OK, "copy in");
    EXPECT(be->copy_within(b, a, sizeof host) == COHORT_OK, "copy within");
    EXPECT(be->copy_to_host(back, b, sizeof host) == COHORT_OK, "copy out");
    EXPECT(memcmp(host, back, sizeof host) == 0, "%s round trip", be->name);
    EXPECT(be->fill((double *)a, 3.25, 100) == COHORT_OK, "fill");
    EXPECT(be->copy_to_host(back, a, sizeof host) == COHORT_OK, "copy out");
    int filled = 1;
    for (int i = 0; i < 100; ++i) filled &= back[i] == 3.25;
    EXPECT(filled, "%s fill", be->name);
    EXPECT(be->release(a) == COHORT_OK && be->release(b) == COHORT_OK && be->release(NULL) == 0,
           "%s release", be->name);
    EXPECT(be->synchronize() == COHORT_OK, "synchronize");
    exercise_large_copy(be);
}

int main(void)
{
    const cohort_backend *be = NULL;
    EXPECT(cohort_backend_get("cpu", &be) == COHORT_OK && be == &cohort_backend_cpu, "cpu");
    exercise(be);
    EXPECT(cohort_backend_get("gpu", &be) == COHORT_ERR_UNKNOWN_BACKEND, "unknown name");
    EXPECT(strstr(cohort_error_detail(), "auto, cpu, cuda") != NULL, "lists the allowed names");
    EXPECT(cohort_backend_get(NULL, &be) == COHORT_ERR_NULL_POINTER, "NULL name");

    char why[256] = "";
    const int usable = cohort_cuda_usable(why, sizeof why);
    const int rc = cohort_backend_get("cuda", &be);
    EXPECT(cohort_backend_get("auto", &be) == COHORT_OK, "auto");
    if (usable) {
        EXPECT(rc == COHORT_OK, "cuda is usable");
        EXPECT(be->kind == COHORT_BACKEND_CUDA, "auto picks cuda when a device is present");
        exercise(be);
    } else {
        printf("no usable CUDA device: %s\n", why);
        EXPECT(rc == COHORT_ERR_NO_DEVICE, "asking for cuda without a device is a clear error");
        EXPECT(be == &cohort_backend_cpu, "auto falls back to cpu");
    }
    return test_summary();
}
