/* libFuzzer harness of cohort's NetCDF reading path: `cohort info` and `cohort analyze` (with the
 * structure factor and k-means forced on) on mutated cohort files. Every input either works or is
 * refused with a message; nothing in cohort's code may crash, leak or misbehave under ASan +
 * UBSan. Seed corpus: tests/fuzz/netcdf/ (small files of each kind cohort writes).
 *
 * Some mutated files crash HDF5 itself inside nc_open (Debian's HDF5 1.10.8: H5HG_read; `ncdump
 * -h` crashes on them too). That is upstream and cannot be fixed here, so each input is first read
 * whole by the NetCDF library alone in a child process: opened, every attribute and every
 * variable of every group read, closed. An input whose child dies (a signal, or a sanitizer's
 * report: a plain build may read on past the same fault silently) is counted as an
 * upstream crash, saved under $COHORT_FUZZ_UPSTREAM (default: upstream-crashes/) as
 * hdf5-sig<signal>-<hash>.nc (hdf5-asan1-<hash>.nc where ASan's report ended it) for the record,
 * and rejected (-1: not added to the corpus); the others run through cohort in this process, where
 * any crash is cohort's. Three classes have been set aside so far, each under ASan in HDF5 1.10.8
 * alone: a free of an uninitialised pointer while nc_open fails (H5O_msg_reset under
 * H5G__link_release_table), a heap-buffer-overflow in H5VM_memcpyvv under H5D__select_read, and a
 * memcpy-param-overlap in H5HG_read; a plain build reads or refuses these files without a crash,
 * so the damage there is silent. A fourth is a hang: a file on which HDF5 loops for ever in
 * H5HG_read (nc_inq_var reading the dimension scales); the child's 20-second alarm ends it
 * (hdf5-sig14-<hash>.nc). Built by `make -f Makefile.workflow fuzz` with clang
 * (-fsanitize=fuzzer,address,undefined). */
#define _GNU_SOURCE
#include <netcdf.h>
#include <sanitizer/common_interface_defs.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <fcntl.h>
#include <unistd.h>

#include "io/cohort_file.h"
#include "results/analyze.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char dir[256], input[300], output[300], upstream[256];
static FILE *devnull;
static long upstream_crashes;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    const char *tmp = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    snprintf(dir, sizeof dir, "%s/cohort-fuzz-netcdf-XXXXXX", tmp);
    if (!mkdtemp(dir)) abort();
    snprintf(input, sizeof input, "%s/in.nc", dir);
    snprintf(output, sizeof output, "%s/out.nc", dir);
    const char *keep = getenv("COHORT_FUZZ_UPSTREAM");
    snprintf(upstream, sizeof upstream, "%s", keep ? keep : "upstream-crashes");
    mkdir(upstream, 0777);
    devnull = fopen("/dev/null", "w");
    return devnull ? 0 : -1;
}

/* Every attribute and (up to 64 MB) every variable of group `grp` and its subgroups. */
static void read_everything(int grp)
{
    int n_atts = 0, n_vars = 0, n_groups = 0, groups[64];
    nc_inq_natts(grp, &n_atts);
    for (int a = 0; a < n_atts; ++a) {
        char name[NC_MAX_NAME + 1];
        size_t len = 0;
        if (nc_inq_attname(grp, NC_GLOBAL, a, name) || nc_inq_attlen(grp, NC_GLOBAL, name, &len))
            continue;
        void *buf = len < (1u << 24) ? calloc(len + 1, 8) : NULL;
        nc_type type;
        if (buf && !nc_inq_atttype(grp, NC_GLOBAL, name, &type) && type != NC_STRING)
            nc_get_att(grp, NC_GLOBAL, name, buf);
        free(buf);
    }
    nc_inq_nvars(grp, &n_vars);
    for (int v = 0; v < n_vars; ++v) {
        int ndims = 0, dims[NC_MAX_VAR_DIMS], natts = 0;
        nc_type type;
        size_t values = 1, size = 0;
        if (nc_inq_var(grp, v, NULL, &type, &ndims, dims, &natts) || type == NC_STRING ||
            nc_inq_type(grp, type, NULL, &size))
            continue;
        for (int d = 0; d < ndims; ++d) {
            size_t len = 0;
            nc_inq_dimlen(grp, dims[d], &len);
            values = len && values > SIZE_MAX / len ? SIZE_MAX : values * len;
        }
        for (int a = 0; a < natts; ++a) {
            char name[NC_MAX_NAME + 1];
            size_t len = 0;
            nc_type at;
            if (nc_inq_attname(grp, v, a, name) || nc_inq_att(grp, v, name, &at, &len) ||
                at == NC_STRING || len >= (1u << 24))
                continue;
            void *buf = calloc(len + 1, 8);
            if (buf) nc_get_att(grp, v, name, buf);
            free(buf);
        }
        if (values > ((size_t)64 << 20) / (size ? size : 1)) continue;
        void *buf = malloc(values * size + 1);
        if (buf) nc_get_var(grp, v, buf);
        free(buf);
    }
    if (nc_inq_grps(grp, &n_groups, NULL) == NC_NOERR && n_groups <= 64) {
        nc_inq_grps(grp, NULL, groups);
        for (int g = 0; g < n_groups; ++g) read_everything(groups[g]);
    }
}

/* The signal that ended the NetCDF library alone reading the file, -1 where a sanitizer's report
 * ended it, or 0 (in a child, whose output is discarded and whose crash handlers are the
 * defaults). Under ASan, HDF5's frees of uninitialised pointers on its error paths end it too:
 * they depend on what the freed memory held, which glibc's allocator may let pass. */
static int library_signal(void)
{
    const pid_t pid = fork();
    if (pid < 0) return 0;
    if (pid == 0) {
        static const int deadly[] = {SIGSEGV, SIGBUS, SIGABRT, SIGFPE, SIGILL};
        for (size_t s = 0; s < sizeof deadly / sizeof *deadly; ++s) signal(deadly[s], SIG_DFL);
        const int null = open("/dev/null", O_WRONLY);
        if (null >= 0) dup2(null, 1), dup2(null, 2);
        /* the sanitizers' reports and libFuzzer's crash dump are the parent's business only */
        __sanitizer_set_report_fd((void *)(intptr_t)(null >= 0 ? null : 2));
        __sanitizer_set_death_callback(NULL);
        /* a hang counts as a crash: SIGALRM's default action, not libFuzzer's handler, which
         * lets a unit run on until -timeout (20 minutes; seen: an endless loop in H5HG_read
         * under H5DSget_num_scales, from nc_inq_var) */
        signal(SIGALRM, SIG_DFL);
        alarm(20);
        int nc = -1;
        if (nc_open(input, NC_NOWRITE, &nc) == NC_NOERR) {
            read_everything(nc);
            nc_close(nc);
        }
        _exit(0);
    }
    int status = 0;
    while (waitpid(pid, &status, 0) < 0) {
    }
    /* a signal, or the exit status of a sanitizer's report (the child itself exits 0) */
    return WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status) ? -1 : 0;
}

static uint64_t fnv1a(const uint8_t *data, size_t size)
{
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < size; ++i) h = (h ^ data[i]) * 1099511628211ull;
    return h;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    FILE *f = fopen(input, "wb");
    if (!f) abort();
    if (size && fwrite(data, 1, size, f) != size) abort();
    fclose(f);
    const int signo = library_signal();
    if (signo) {
        char path[512];
        snprintf(path, sizeof path, "%s/hdf5-%s%d-%016llx.nc", upstream, signo > 0 ? "sig" : "asan",
                 signo > 0 ? signo : 1, (unsigned long long)fnv1a(data, size));
        if (rename(input, path) != 0) remove(input);
        ++upstream_crashes;
        fprintf(stderr, "fuzz-netcdf: upstream crash %ld (the NetCDF library alone): %s\n",
                upstream_crashes, path);
        return -1;
    }
    char described[1024];
    cohort_file_describe(input, devnull, described, sizeof described);
    analyze_options opt = {.input = input,
                           .output_path = output,
                           .overwrite = 1,
                           .kmeans = 2,
                           .structure_factor = 1,
                           .backend = "cpu",
                           .quiet = 1,
                           .command_line = "fuzz-netcdf",
                           .version = "cohort fuzz"};
    analyze_archive(&opt);
    remove(output);
    remove(input);
    return 0;
}
