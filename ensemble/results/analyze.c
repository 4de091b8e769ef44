#define _POSIX_C_SOURCE 200809L
#include "results/analyze.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "analysis/structure_factor.h"
#include "backend/backend.h"
#include "backend/cohort_error.h"
#include "config/config.h"
#include "config/plan.h"
#include "exit_status.h"
#include "fields/fields.h"
#include "io/cohort_file.h"
#include "io/output.h"
#include "io/output_lock.h"
#include "io/paths.h"
#include "io/sidecar.h"
#include "report.h"
#include "results/analyze_fit.h"
#include "results/analyze_sensitivity.h"
#include "results/clustering.h"
#include "results/file_spec.h"

/* The archive C of the input: C(member, x), or C(t_snap, member, x) with the snapshot times. */
typedef struct archive {
    const char *path;
    int nc, grp, var;
    int snapshots;
    int64_t members, n, n_times;
    int64_t nx, ny; /* n = nx ny; 1D: ny = 1, C(member, x); 2D: C(member, y, x) */
    double *times;
    int bad;       /* a read failed: the input is corrupt or truncated (exit 2) */
    int64_t final; /* the time index of the final state */
} archive;

/* Fields of global members [g0, g0 + count) at time index `time`, member-major. A failed read
 * marks the archive bad: the input, not the run, is at fault. */
static int archive_read(archive *a, int64_t time, int64_t g0, int64_t count, double *dst)
{
    size_t start[4], size[4];
    int d = 0;
    if (a->snapshots) start[d] = (size_t)time, size[d++] = 1;
    start[d] = (size_t)g0, size[d++] = (size_t)count;
    if (a->ny > 1) start[d] = 0, size[d++] = (size_t)a->ny;
    start[d] = 0, size[d++] = (size_t)a->nx;
    const int status = cohort_file_read_double(a->grp, a->var, start, size, dst);
    if (status) {
        a->bad = 1;
        return COHORT_FAIL(COHORT_ERR_IO, "%s: reading C of members %lld..%lld: %s", a->path,
                           (long long)g0, (long long)(g0 + count - 1),
                           cohort_file_strerror(status));
    }
    return COHORT_OK;
}

typedef struct final_fields {
    archive *a;
} final_fields;

static int final_fields_load(void *ctx, int64_t g0, int64_t count, double *dst)
{
    archive *a = ((final_fields *)ctx)->a;
    return archive_read(a, a->final, g0, count, dst);
}

/* Finds C and checks its shape against the plan; err says what is wrong. */
static int archive_open(archive *a, const run_plan *p, char *err, size_t len)
{
    int ndims = 0, is_double = 0;
    size_t lengths[4];
    if (cohort_file_variable(a->nc, NULL, "C", &a->grp, &a->var)) {
        snprintf(err, len,
                 "%s has no archive (variable C): the run had output.archive = none; run it with "
                 "output.archive = final or snapshots",
                 a->path);
        return EXIT_BAD_INPUT;
    }
    const int planar = p->model->dimension == 2;
    const int base = planar ? 3 : 2; /* (member, [y,] x), and t_snap first for snapshots */
    if (cohort_file_shape(a->grp, a->var, 4, &ndims, lengths, &is_double) || !is_double ||
        ndims < base || ndims > base + 1) {
        snprintf(err, len, "%s: C is not a double or float variable of %d or %d dimensions",
                 a->path, base, base + 1);
        return EXIT_BAD_INPUT;
    }
    a->snapshots = ndims == base + 1;
    a->nx = p->values.nx, a->ny = p->values.ny;
    const char *expected[4];
    int64_t want[4];
    int e = 0;
    if (a->snapshots) expected[e] = "t_snap", want[e++] = -1;
    expected[e] = "member", want[e++] = p->members;
    if (planar) expected[e] = "y", want[e++] = a->ny;
    expected[e] = "x", want[e++] = a->nx;
    for (int d = 0; d < ndims; ++d) {
        char name[COHORT_FILE_NAME_MAX] = "";
        size_t length = 0;
        if (cohort_file_dimension(a->grp, a->var, d, name, &length) || strcmp(name, expected[d]) ||
            (want[d] >= 0 && (int64_t)length != want[d]) || length == 0) {
            snprintf(err, len,
                     "%s: C has the wrong shape: dimension %d is %s = %zu, expected %s = %lld "
                     "(from the file's configuration)",
                     a->path, d, name, length, expected[d],
                     (long long)(want[d] >= 0 ? want[d] : 1));
            return EXIT_BAD_INPUT;
        }
        if (d == 0 && a->snapshots) a->n_times = (int64_t)length;
    }
    a->members = p->members, a->n = p->n;
    if (!a->snapshots) a->n_times = 1;
    a->times = malloc((size_t)a->n_times * sizeof(double));
    if (!a->times) {
        snprintf(err, len, "out of memory");
        return EXIT_FAILURE_RUNNING;
    }
    int grp_t, var_t;
    if (a->snapshots && (cohort_file_variable(a->nc, NULL, "t_snap", &grp_t, &var_t) ||
                         cohort_file_read_double(grp_t, var_t, NULL, NULL, a->times))) {
        snprintf(err, len, "%s: C has snapshots but t_snap cannot be read", a->path);
        return EXIT_BAD_INPUT;
    }
    if (!a->snapshots) a->times[0] = p->t_end;
    a->final = a->n_times - 1;
    cohort_file_cache_chunk(a->grp, a->var);
    return 0;
}

/* Whether a member counts at a time, as the run decides it: <C> and <C^2> of its field finite,
 * summed in the run's order. A field of finite values can still overflow <C^2>. */
static int field_active(const double *c, int64_t n)
{
    double mean = 0.0, mean2 = 0.0;
    fields_member_moments_host(c, n, 1, &mean, &mean2);
    return isfinite(mean) && isfinite(mean2);
}

/* Members whose final field does not count (field_active), or that the run flagged in
 * diverged(member): left out of k-means as in the run. */
static int excluded_members(archive *a, int64_t chunk, unsigned char *excluded, double *buffer)
{
    int grp, var;
    memset(excluded, 0, (size_t)a->members);
    if (cohort_file_variable(a->nc, NULL, "diverged", &grp, &var) == 0) {
        const int status = cohort_file_read_byte(grp, var, NULL, NULL, excluded);
        if (status) {
            a->bad = 1;
            return COHORT_FAIL(COHORT_ERR_IO, "%s: reading diverged: %s", a->path,
                               cohort_file_strerror(status));
        }
    }
    for (int64_t g0 = 0, count; g0 < a->members; g0 += count) {
        count = a->members - g0 < chunk ? a->members - g0 : chunk;
        COHORT_CALL(archive_read(a, a->final, g0, count, buffer));
        for (int64_t k = 0; k < count; ++k)
            excluded[g0 + k] |= !field_active(buffer + k * a->n, a->n);
    }
    return COHORT_OK;
}

/* structure_factor(t, k) and k1(t) at the archived times t >= from, records 0, 1, ... of out. */
static int analyze_structure_factor(const cohort_backend *be, archive *a, const run_plan *p,
                                    int64_t chunk, double from, cohort_output *out, int quiet)
{
    const int64_t n = a->n;
    int64_t first_time = 0;
    while (first_time < a->n_times && a->times[first_time] < from) ++first_time;
    structure_factor *sf = NULL;
    double *dev = NULL, *stage = NULL, *member_major = malloc((size_t)(n * chunk) * sizeof(double));
    double *spectrum = malloc((size_t)structure_factor_k_count(a->nx, a->ny) * sizeof(double));
    unsigned char *finite = malloc((size_t)chunk);
    int rc = member_major && spectrum && finite
                 ? COHORT_OK
                 : COHORT_FAIL(COHORT_ERR_NO_MEMORY, "buffers of %lld members", (long long)chunk);
    if (rc == COHORT_OK) rc = be->alloc((void **)&dev, (size_t)(n * chunk) * sizeof(double));
    if (rc == COHORT_OK) rc = be->alloc((void **)&stage, (size_t)(n * chunk) * sizeof(double));
    if (rc == COHORT_OK)
        rc = structure_factor_alloc(be, a->nx, a->ny, p->values.length, chunk, chunk, a->members,
                                    a->n_times - first_time, moments_unit_size(a->members), &sf);
    for (int64_t s = first_time; s < a->n_times && rc == COHORT_OK; ++s) {
        int64_t active = 0;
        for (int64_t g0 = 0, count; g0 < a->members && rc == COHORT_OK; g0 += count) {
            count = a->members - g0 < chunk ? a->members - g0 : chunk;
            rc = archive_read(a, s, g0, count, member_major);
            for (int64_t k = 0; k < count && rc == COHORT_OK; ++k) {
                finite[k] = field_active(member_major + k * n, n);
                active += finite[k];
            }
            if (rc == COHORT_OK)
                rc = be->copy_to_device(stage, member_major, (size_t)(n * count) * sizeof(double));
            if (rc == COHORT_OK) /* the run's layout: ld = chunk */
                rc = be->interleave(stage, n, 1.0, 0.0, 0, NULL, dev, n, chunk, 0, count);
            if (rc == COHORT_OK)
                rc = structure_factor_add(sf, s - first_time, dev, 0, count, g0, finite);
        }
        double k1 = NAN;
        if (rc == COHORT_OK)
            rc = structure_factor_result(sf, s - first_time, active, spectrum, &k1);
        if (rc == COHORT_OK) rc = output_write_time(out, s - first_time, a->times[s]);
        if (rc == COHORT_OK) rc = output_write_spectrum(out, s - first_time, spectrum, k1);
        if (rc == COHORT_OK && !quiet)
            report(REPORT_RESULT, "structure factor at t = %g: %lld members, k1 = %.6g",
                   a->times[s], (long long)active, k1);
    }
    structure_factor_free(sf);
    be->release(dev), be->release(stage);
    free(member_major), free(spectrum), free(finite);
    return rc;
}

/* Members per chunk: the run's chunk of the archive (its NetCDF chunking along member, so that
 * the spectra are taken at the run's leading dimension), fewer where memory is short. */
static int64_t analyze_chunk(const cohort_backend *be, const archive *a, int with_spectra)
{
    size_t chunk[COHORT_FILE_DIMS_MAX] = {0}, free_bytes = 0;
    int64_t run_chunk = a->members;
    if (cohort_file_chunking(a->grp, a->var, chunk)) run_chunk = (int64_t)chunk[a->snapshots];
    if (be->mem_info(&free_bytes, NULL) != COHORT_OK) free_bytes = (size_t)1 << 30;
    double per_member = 2.0 * (double)a->n * sizeof(double); /* staged and interleaved */
    if (with_spectra) per_member += structure_factor_bytes_per_member(a->nx, a->ny);
    int64_t fit = (int64_t)(0.5 * (double)free_bytes / per_member);
    fit = fit < 1 ? 1 : fit;
    const int64_t c = run_chunk < fit ? run_chunk : fit;
    return c < 1 ? 1 : c > a->members ? a->members : c;
}

/* The analyses to run: the options', else those the run asked for; 0, or 2 with err where there
 * are none, more clusters than members, or no archived time from --from on. */
static int analyses_chosen(const analyze_options *opt, const run_plan *p, int *sf_on, int *k,
                           int *k_auto, char *err, size_t len)
{
    const int explicit = opt->structure_factor >= 0 || opt->kmeans >= 0 || opt->kmeans_auto ||
                         opt->bootstrap > 0 || opt->sensitivity;
    *sf_on = explicit ? opt->structure_factor > 0 : p->structure_factor;
    *k = explicit ? (opt->kmeans > 0 ? opt->kmeans : 0) : p->kmeans_k;
    *k_auto = explicit ? opt->kmeans_auto : p->kmeans_auto;
    if (!*sf_on && *k == 0 && !*k_auto && opt->bootstrap < 1 && !opt->sensitivity) {
        snprintf(err, len,
                 "nothing to do: the run asked for no analysis; give --structure-factor, "
                 "--kmeans K, --bootstrap B and/or --sensitivity");
        return EXIT_BAD_INPUT;
    }
    if (opt->sensitivity && p->design != DESIGN_SALTELLI) {
        snprintf(err, len,
                 "--sensitivity: %s's run has sweep.design = %s%s; Sobol indices need the A, B "
                 "and AB_j members of sweep.design = saltelli",
                 opt->input, design_name(p->design), p->n_sweeps ? "" : " and no swept key");
        return EXIT_BAD_INPUT;
    }
    if (*k > p->members) {
        snprintf(err, len, "--kmeans %d: more clusters than the %lld members of %s", *k,
                 (long long)p->members, opt->input);
        return EXIT_BAD_INPUT;
    }
    if (opt->bootstrap > 0 &&
        (!p->model->statistics || p->model->statistics->fit == COHORT_FIT_NONE)) {
        snprintf(err, len, "--bootstrap: %s's model %s fits no coarsening law", opt->input,
                 p->model->name);
        return EXIT_BAD_INPUT;
    }
    return 0;
}

/* What one `cohort analyze` holds from its input to its output. */
typedef struct analyze_state {
    archive a;
    cohort_config c;
    int config_loaded, sf_on, k, k_auto; /* the analyses: k-means of k clusters, or chosen */
    run_plan p;
    char *source, *config_text, *in_history, *out_path;
    const cohort_backend *be;
    cohort_output *out;
    output_lock *lock;
} analyze_state;

/* The input, its configuration and plan, the analyses, and the archive where they read it. */
static int analyze_open(const analyze_options *opt, analyze_state *st, char *err, size_t len)
{
    archive *a = &st->a;
    if (cohort_file_open(opt->input, &a->nc, &st->source, &st->config_text, err, len))
        return EXIT_BAD_INPUT;
    char name[1024];
    snprintf(name, sizeof name, "%s: attribute config", opt->input);
    if (config_load_text(&st->c, name, st->config_text, err, len) != COHORT_OK)
        return EXIT_BAD_INPUT;
    st->config_loaded = 1;
    int status = run_plan_make(&st->c, &st->p, err, len);
    if (!status) status = analyses_chosen(opt, &st->p, &st->sf_on, &st->k, &st->k_auto, err, len);
    const int kmeans = st->k > 0 || st->k_auto;
    long long first = 0, total = 0, members = 0;
    if (!status && opt->sensitivity && cohort_file_part(a->nc, &first, &total, &members)) {
        snprintf(err, len,
                 "--sensitivity: %s is a part (members [%lld, %lld) of %lld, cohort run "
                 "--members): its base points' arms are not all there; merge the parts first "
                 "(cohort merge)",
                 opt->input, first, first + members, total);
        status = EXIT_BAD_INPUT;
    }
    if (!status && (st->sf_on || kmeans)) status = archive_open(a, &st->p, err, len);
    if (!status && st->sf_on && a->times[a->n_times - 1] < opt->from) {
        snprintf(err, len, "--from %g: %s has no archived time at or after it (the last is %g)",
                 opt->from, opt->input, a->times[a->n_times - 1]);
        status = EXIT_BAD_INPUT;
    }
    if (!status && cohort_backend_get(opt->backend, &st->be) != COHORT_OK) {
        snprintf(err, len, "--backend %s: %s", opt->backend, cohort_error_message());
        status = EXIT_BAD_INPUT;
    }
    return status;
}

/* The output, locked and checked, as `cohort run` writes its analyses. */
static int analyze_create(const analyze_options *opt, analyze_state *st, char *err, size_t len)
{
    st->out_path =
        opt->output_path ? strdup(opt->output_path) : paths_replace_nc(opt->input, ".analysis.nc");
    if (!st->out_path) {
        snprintf(err, len, "out of memory");
        return EXIT_FAILURE_RUNNING;
    }
    if (sidecar_check_not_owned(st->out_path, "-o", err, len) ||
        output_lock_acquire(st->out_path, "-o", "cohort analyze", &st->lock, err, len) ||
        paths_check_output(st->out_path, "-o", &opt->input, 1, opt->overwrite, err, len) ||
        sidecar_prepare(st->out_path, "-o", opt->overwrite ? SIDECAR_OVERWRITE : SIDECAR_CREATE,
                        err, len))
        return EXIT_BAD_INPUT;
    file_provenance provenance;
    st->in_history = cohort_file_text(st->a.nc, "history");
    char *history = output_history(opt->command_line, st->in_history);
    if (!history) {
        snprintf(err, len, "out of memory");
        return EXIT_FAILURE_RUNNING;
    }
    const file_request rq = {.kind = FILE_KIND_ANALYSIS,
                             .plan = &st->p,
                             .backend = st->be,
                             .path = st->out_path,
                             .history = history,
                             .source = opt->version,
                             .config = st->config_text,
                             .replace = opt->overwrite,
                             .analysed_file = opt->input,
                             .structure_factor = st->sf_on,
                             .kmeans_k = st->k,
                             .kmeans_auto = st->k_auto};
    output_spec spec;
    file_spec_build(&rq, &provenance, &spec, NULL);
    const int created = output_create(&spec, &st->out);
    free(history);
    if (created != COHORT_OK) {
        snprintf(err, len, "%s", cohort_error_message());
        return EXIT_BAD_INPUT;
    }
    return 0;
}

/* k-means over the final fields, the members the run left out excluded again. */
static int analyze_kmeans(const analyze_options *opt, analyze_state *st, int64_t chunk)
{
    archive *a = &st->a;
    unsigned char *excluded = malloc((size_t)st->p.members);
    double *buffer = malloc((size_t)(chunk * st->p.n) * sizeof(double));
    int rc = excluded && buffer ? excluded_members(a, chunk, excluded, buffer)
                                : COHORT_FAIL(COHORT_ERR_NO_MEMORY, "buffers");
    if (rc == COHORT_OK) rc = output_put_double(st->out, "kmeans_time", a->times[a->final]);
    clustering_options copt = clustering_options_from_plan(&st->p);
    copt.k = st->k, copt.k_auto = st->k_auto, copt.quiet = opt->quiet;
    final_fields f = {a};
    if (rc == COHORT_OK)
        rc = clustering_run(st->be, &st->p, &copt, final_fields_load, &f, excluded, st->out);
    free(excluded), free(buffer);
    return rc;
}

/* The chosen analyses into the output, closed (renamed into place) on success. */
static int analyze_run(const analyze_options *opt, analyze_state *st, char *err, size_t len)
{
    archive *a = &st->a;
    const int kmeans = st->k > 0 || st->k_auto;
    const int64_t chunk = st->sf_on || kmeans ? analyze_chunk(st->be, a, st->sf_on) : 1;
    int rc = file_spec_write_parameters(&st->p, st->out, 0, st->p.members);
    if (rc == COHORT_OK && st->sf_on)
        rc = analyze_structure_factor(st->be, a, &st->p, chunk, opt->from, st->out, opt->quiet);
    if (rc == COHORT_OK && kmeans) rc = analyze_kmeans(opt, st, chunk);
    if (rc == COHORT_OK && opt->bootstrap > 0)
        rc = analyze_fit(a->nc, opt->input, &st->p, opt->bootstrap, opt->quiet, st->out, &a->bad);
    if (rc == COHORT_OK && opt->sensitivity)
        rc = analyze_sensitivity(a->nc, opt->input, &st->p, st->p.bootstrap, opt->quiet, st->out,
                                 &a->bad);
    const int closed = output_close(st->out, rc == COHORT_OK);
    st->out = NULL;
    if (rc != COHORT_OK || closed != COHORT_OK) {
        snprintf(err, len, "%s", cohort_error_message());
        return a->bad ? EXIT_BAD_INPUT : EXIT_FAILURE_RUNNING;
    }
    if (!opt->quiet) report(REPORT_RESULT, "wrote %s (analyses of %s)", st->out_path, opt->input);
    return 0;
}

int analyze_archive(const analyze_options *opt)
{
    char err[2048] = "";
    analyze_state st = {.a = {.path = opt->input, .nc = -1}};
    int status = analyze_open(opt, &st, err, sizeof err);
    if (!status) status = analyze_create(opt, &st, err, sizeof err);
    if (!status) status = analyze_run(opt, &st, err, sizeof err);
    if (status) report(REPORT_ERROR, "%s", err);
    output_close(st.out, 0);
    output_lock_release(st.lock);
    if (st.a.nc >= 0) cohort_file_close(st.a.nc);
    if (st.config_loaded) config_free(&st.c);
    run_plan_free(&st.p);
    free(st.a.times), free(st.source), free(st.config_text), free(st.in_history), free(st.out_path);
    return status;
}
