/* cuSolverDx's gtsv_no_pivot as bench-banded's peer (bench_cusolverdx.h). */
#include "bench_cusolverdx.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

/* the reason a peer is absent or failed */
static void say(char *why, size_t size, const char *format, ...)
{
    va_list ap;
    va_start(ap, format);
    vsnprintf(why, size, format, ap);
    va_end(ap);
}

#ifndef COHORT_HAVE_MATHDX

cusolverdx_peer *cusolverdx_peer_alloc(int n, char *why, size_t why_size)
{
    (void)n;
    say(why, why_size,
        "libmathdx was not found when cohort was configured "
        "(make -f Makefile.workflow setup fetches nvidia-libmathdx-cu13 into .venv)");
    return NULL;
}

int cusolverdx_peer_solve(const cusolverdx_peer *p, const double *dl, const double *d,
                          const double *du, double *u, int64_t m, char *why, size_t why_size)
{
    (void)p, (void)dl, (void)d, (void)du, (void)u, (void)m;
    say(why, why_size, "no cuSolverDx peer in this build");
    return 1;
}

int cusolverdx_peer_width(const cusolverdx_peer *p)
{
    (void)p;
    return 0;
}

int cusolverdx_peer_rows(const cusolverdx_peer *p)
{
    (void)p;
    return 0;
}

void cusolverdx_peer_free(cusolverdx_peer *p)
{
    (void)p;
}

#else

#    include <cuda.h>
#    include <cuda_runtime.h>
#    include <libcusolverdx.h>
#    include <nvJitLink.h>
#    include <nvrtc.h>

struct cusolverdx_peer {
    CUmodule module;
    CUfunction kernel;
    int n, k;
    unsigned block[3];
    size_t shared_bytes;
};

#    define PEER_SYMBOL "cohort_peer_gtsv"

/* Each block: the matrix and k systems' rows into shared memory (cuSolverDx's layout: dl and du
 * of n - 1 values, B row-major n x k), the solve, the rows back. */
static const char kernel_source[] =
    "extern \"C\" __device__ void " PEER_SYMBOL "(const double *, const double *, const double *,\n"
    "                                             double *, int *);\n"
    "extern \"C\" __global__ void __launch_bounds__(PEER_THREADS)\n"
    "cohort_peer_kernel(const double *dl, const double *d,\n"
    "                                               const double *du, double *u, long long m,\n"
    "                                               int n, int k)\n"
    "{\n"
    "    extern __shared__ double smem[];\n"
    "    __shared__ int info;\n"
    "    double *sdl = smem, *sd = sdl + (n - 1), *sdu = sd + n, *b = sdu + (n - 1);\n"
    "    const long long first = (long long)blockIdx.x * k;\n"
    "    const int width = m - first < k ? (int)(m - first) : k;\n"
    "    for (int t = threadIdx.x; t < n - 1; t += blockDim.x) sdl[t] = dl[t + 1], sdu[t] = "
    "du[t];\n"
    "    for (int t = threadIdx.x; t < n; t += blockDim.x) sd[t] = d[t];\n"
    "    for (int t = threadIdx.x; t < n * k; t += blockDim.x) {\n"
    "        const int i = t / k, j = t - i * k;\n"
    "        b[t] = j < width ? u[i * m + first + j] : 0.0;\n"
    "    }\n"
    "    __syncthreads();\n"
    "    " PEER_SYMBOL "(sdl, sd, sdu, b, &info);\n"
    "    __syncthreads();\n"
    "    for (int t = threadIdx.x; t < n * k; t += blockDim.x) {\n"
    "        const int i = t / k, j = t - i * k;\n"
    "        if (j < width) u[i * m + first + j] = b[t];\n"
    "    }\n"
    "}\n";

/* The right-hand sides a block takes: as many as let two blocks share an SM's shared memory, at
 * most 32 (one where even that does not fit two). */
static int peer_width(int n, size_t shared_limit)
{
    const size_t matrix = (size_t)(3 * n - 2) * sizeof(double), row = (size_t)n * sizeof(double);
    const size_t half = shared_limit / 2;
    int k = half > matrix ? (int)((half - matrix) / row) : 0;
    if (k < 1) k = shared_limit > matrix + row ? 1 : 0;
    return k > 32 ? 32 : k;
}

/* cuSolverDx's function for n x n, k right-hand sides: its descriptor, its LTO-IR in code, its
 * block in block (the caller destroys the two handles, also on failure). */
static int generate(int n, int k, int sm, cusolverdxDescriptor *descriptor, commondxCode *code,
                    long long block[3], char *why, size_t why_size)
{
    cusolverdxDescriptor h = 0;
    const long long size[3] = {n, n, k};
    const long long arrangement[2] = {CUSOLVERDX_ARRANGEMENT_COL_MAJOR,
                                      CUSOLVERDX_ARRANGEMENT_ROW_MAJOR};
    commondxStatusType rc = cusolverdxCreateDescriptor(&h);
#    define PEER_SET(call)                                                                         \
        if (rc == COMMONDX_SUCCESS) rc = (call)
    PEER_SET(cusolverdxSetOperatorInt64s(h, CUSOLVERDX_OPERATOR_SIZE, 3, size));
    PEER_SET(cusolverdxSetOperatorInt64(h, CUSOLVERDX_OPERATOR_TYPE, CUSOLVERDX_TYPE_REAL));
    PEER_SET(cusolverdxSetOperatorInt64(h, CUSOLVERDX_OPERATOR_PRECISION, COMMONDX_PRECISION_F64));
    PEER_SET(cusolverdxSetOperatorInt64(h, CUSOLVERDX_OPERATOR_SM, sm));
    PEER_SET(
        cusolverdxSetOperatorInt64(h, CUSOLVERDX_OPERATOR_EXECUTION, COMMONDX_EXECUTION_BLOCK));
    PEER_SET(cusolverdxSetOperatorInt64(h, CUSOLVERDX_OPERATOR_API, CUSOLVERDX_API_SMEM));
    PEER_SET(cusolverdxSetOperatorInt64(h, CUSOLVERDX_OPERATOR_FUNCTION,
                                        CUSOLVERDX_FUNCTION_GTSV_NO_PIVOT));
    PEER_SET(cusolverdxSetOperatorInt64s(h, CUSOLVERDX_OPERATOR_ARRANGEMENT, 2, arrangement));
    PEER_SET(cusolverdxSetOptionStr(h, COMMONDX_OPTION_SYMBOL_NAME, PEER_SYMBOL));
    PEER_SET(cusolverdxGetTraitInt64s(h, CUSOLVERDX_TRAIT_BLOCK_DIM, 3, block)); /* locks h */
    PEER_SET(commondxCreateCode(code));
    PEER_SET(commondxSetCodeOptionInt64(*code, COMMONDX_OPTION_TARGET_SM, sm));
    PEER_SET(cusolverdxFinalizeCode(*code, h));
#    undef PEER_SET
    *descriptor = h;
    if (rc != COMMONDX_SUCCESS) {
        char detail[512] = "";
        commondxStatusType last = rc;
        commondxGetLastErrorStr(&last, sizeof detail, detail);
        say(why, why_size, "libmathdx, n = %d, k = %d: %s (%.300s)", n, k, commondxStatusToStr(rc),
            detail);
        return 1;
    }
    return 0;
}

/* Our kernel as LTO-IR (NVRTC) for blocks of `threads`, into link. */
static int add_kernel(nvJitLinkHandle link, const char *arch, int threads, char *why,
                      size_t why_size)
{
    nvrtcProgram program;
    char bound[48];
    snprintf(bound, sizeof bound, "-DPEER_THREADS=%d", threads);
    const char *options[] = {arch, "-dlto", "-rdc=true", bound};
    if (nvrtcCreateProgram(&program, kernel_source, "cohort_peer.cu", 0, NULL, NULL) !=
        NVRTC_SUCCESS) {
        say(why, why_size, "nvrtcCreateProgram failed");
        return 1;
    }
    nvrtcResult rc = nvrtcCompileProgram(program, 4, options);
    size_t size = 0;
    char *ltoir = NULL;
    if (rc == NVRTC_SUCCESS) rc = nvrtcGetLTOIRSize(program, &size);
    if (rc == NVRTC_SUCCESS && !(ltoir = malloc(size))) rc = NVRTC_ERROR_OUT_OF_MEMORY;
    if (rc == NVRTC_SUCCESS) rc = nvrtcGetLTOIR(program, ltoir);
    if (rc != NVRTC_SUCCESS) say(why, why_size, "NVRTC: %s", nvrtcGetErrorString(rc));
    nvrtcDestroyProgram(&program);
    int failed = rc != NVRTC_SUCCESS;
    if (!failed && nvJitLinkAddData(link, NVJITLINK_INPUT_LTOIR, ltoir, size, "cohort_peer") !=
                       NVJITLINK_SUCCESS) {
        say(why, why_size, "nvJitLink refused the kernel's LTO-IR");
        failed = 1;
    }
    free(ltoir);
    return failed;
}

/* cuSolverDx's precompiled routines (its universal fatbin), into link. */
static int add_library(nvJitLinkHandle link, cusolverdxDescriptor h, char *why, size_t why_size)
{
    size_t size = 0;
    void *fatbin = NULL;
    int failed = cusolverdxGetUniversalFATBINSize(h, &size) != COMMONDX_SUCCESS ||
                 !(fatbin = malloc(size)) ||
                 cusolverdxGetUniversalFATBIN(h, size, fatbin) != COMMONDX_SUCCESS;
    if (!failed)
        failed = nvJitLinkAddData(link, NVJITLINK_INPUT_FATBIN, fatbin, size,
                                  "cusolverdx_fatbin") != NVJITLINK_SUCCESS;
    if (failed) say(why, why_size, "cuSolverDx's fatbin could not be added to the link");
    free(fatbin);
    return failed;
}

/* cuSolverDx's LTO-IR pieces, into link. */
static int add_function(nvJitLinkHandle link, commondxCode code, char *why, size_t why_size)
{
    size_t count = 0;
    if (commondxGetCodeNumLTOIRs(code, &count) != COMMONDX_SUCCESS || count == 0) {
        say(why, why_size, "libmathdx gave no LTO-IR");
        return 1;
    }
    size_t *sizes = calloc(count, sizeof *sizes);
    void **pieces = calloc(count, sizeof *pieces);
    int failed =
        !sizes || !pieces || commondxGetCodeLTOIRSizes(code, count, sizes) != COMMONDX_SUCCESS;
    for (size_t j = 0; j < count && !failed; ++j) failed = !(pieces[j] = malloc(sizes[j]));
    if (!failed) failed = commondxGetCodeLTOIRs(code, count, pieces) != COMMONDX_SUCCESS;
    for (size_t j = 0; j < count && !failed; ++j)
        failed = nvJitLinkAddData(link, NVJITLINK_INPUT_LTOIR, pieces[j], sizes[j], "cusolverdx") !=
                 NVJITLINK_SUCCESS;
    if (failed) say(why, why_size, "cuSolverDx's LTO-IR could not be added to the link");
    for (size_t j = 0; pieces && j < count; ++j) free(pieces[j]);
    free(pieces);
    free(sizes);
    return failed;
}

/* Links our kernel with the function into a module of p. */
static int link_module(cusolverdx_peer *p, cusolverdxDescriptor h, commondxCode code, int sm,
                       char *why, size_t why_size)
{
    char arch[32];
    snprintf(arch, sizeof arch, "-arch=sm_%d", sm / 10);
    const char *options[] = {arch, "-lto"};
    nvJitLinkHandle link;
    if (nvJitLinkCreate(&link, 2, options) != NVJITLINK_SUCCESS) {
        say(why, why_size, "nvJitLinkCreate failed");
        return 1;
    }
    const int threads = (int)(p->block[0] * p->block[1] * p->block[2]);
    int failed = add_kernel(link, arch, threads, why, why_size) ||
                 add_function(link, code, why, why_size) || add_library(link, h, why, why_size);
    size_t size = 0;
    char *cubin = NULL;
    if (!failed && nvJitLinkComplete(link) != NVJITLINK_SUCCESS) {
        char log[512] = "";
        size_t log_size = 0;
        if (nvJitLinkGetErrorLogSize(link, &log_size) == NVJITLINK_SUCCESS && log_size < sizeof log)
            nvJitLinkGetErrorLog(link, log);
        say(why, why_size, "nvJitLink: %s", log);
        failed = 1;
    }
    if (!failed)
        failed = nvJitLinkGetLinkedCubinSize(link, &size) != NVJITLINK_SUCCESS ||
                 !(cubin = malloc(size)) ||
                 nvJitLinkGetLinkedCubin(link, cubin) != NVJITLINK_SUCCESS;
    if (!failed &&
        (cuModuleLoadData(&p->module, cubin) != CUDA_SUCCESS ||
         cuModuleGetFunction(&p->kernel, p->module, "cohort_peer_kernel") != CUDA_SUCCESS ||
         cuFuncSetAttribute(p->kernel, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                            (int)p->shared_bytes) != CUDA_SUCCESS)) {
        say(why, why_size, "the linked module did not load");
        failed = 1;
    }
    free(cubin);
    nvJitLinkDestroy(&link);
    return failed;
}

cusolverdx_peer *cusolverdx_peer_alloc(int n, char *why, size_t why_size)
{
    int device = 0, major = 0, minor = 0, shared = 0;
    cudaGetDevice(&device);
    cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device);
    cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device);
    cudaDeviceGetAttribute(&shared, cudaDevAttrMaxSharedMemoryPerBlockOptin, device);
    const int sm = 100 * major + 10 * minor, k = peer_width(n, (size_t)shared);
    if (k < 1) {
        say(why, why_size, "n = %d does not fit a block's shared memory", n);
        return NULL;
    }
    cusolverdx_peer *p = calloc(1, sizeof *p);
    cusolverdxDescriptor h = 0;
    commondxCode code = 0;
    long long block[3] = {0, 0, 0};
    int failed = !p || generate(n, k, sm, &h, &code, block, why, why_size);
    if (!failed) {
        p->n = n, p->k = k;
        for (int j = 0; j < 3; ++j) p->block[j] = (unsigned)block[j];
        p->shared_bytes = (size_t)(3 * n - 2 + n * k) * sizeof(double);
        failed = link_module(p, h, code, sm, why, why_size);
    }
    if (code) commondxDestroyCode(code);
    if (h) cusolverdxDestroyDescriptor(h);
    if (failed) {
        cusolverdx_peer_free(p);
        return NULL;
    }
    return p;
}

int cusolverdx_peer_solve(const cusolverdx_peer *p, const double *dl, const double *d,
                          const double *du, double *u, int64_t m, char *why, size_t why_size)
{
    long long systems = m;
    int n = p->n, k = p->k;
    void *args[] = {(void *)&dl, (void *)&d, (void *)&du, (void *)&u, &systems, &n, &k};
    const unsigned blocks = (unsigned)((m + k - 1) / k);
    const CUresult rc = cuLaunchKernel(p->kernel, blocks, 1, 1, p->block[0], p->block[1],
                                       p->block[2], (unsigned)p->shared_bytes, 0, args, NULL);
    if (rc != CUDA_SUCCESS) {
        const char *text = NULL;
        cuGetErrorString(rc, &text);
        say(why, why_size, "cuLaunchKernel: %s", text ? text : "unknown error");
        return 1;
    }
    return 0;
}

int cusolverdx_peer_width(const cusolverdx_peer *p)
{
    return p->k;
}

int cusolverdx_peer_rows(const cusolverdx_peer *p)
{
    return p->n;
}

void cusolverdx_peer_free(cusolverdx_peer *p)
{
    if (!p) return;
    if (p->module) cuModuleUnload(p->module);
    free(p);
}

#endif
