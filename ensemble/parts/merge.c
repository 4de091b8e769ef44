#define _POSIX_C_SOURCE 200809L
#include "parts/merge.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/moments.h"
#include "analysis/structure_factor.h"
#include "backend/backend.h"
#include "backend/cohort_error.h"
#include "backend/cohort_hd.h"
#include "config/config.h"
#include "config/plan.h"
#include "exit_status.h"
#include "io/cohort_file.h"
#include "io/output.h"
#include "io/output_lock.h"
#include "io/paths.h"
#include "io/sidecar.h"
#include "parts/part_features.h"
#include "report.h"
#include "results/analyze_sensitivity.h"
#include "results/finish.h"

typedef struct part_file {
    const char *path;
    int nc;
    char *source, *config;
    long long first, count, total;
    long long held; /* its members, count before a target run's cut */
} part_file;

static int by_first(const void *a, const void *b)
{
    const part_file *x = a, *y = b;
    return (x->first > y->first) - (x->first < y->first);
}

/* Opens a part: a cohort file with members_first and members_total. 0, or 2 with err. */
static int part_open(part_file *f, char *err, size_t len)
{
    if (paths_check_input(f->path, "part", err, len)) return EXIT_BAD_INPUT;
    if (cohort_file_open(f->path, &f->nc, &f->source, &f->config, err, len)) return EXIT_BAD_INPUT;
    long long members = -1;
    if (!cohort_file_part(f->nc, &f->first, &f->total, &members)) {
        snprintf(err, len,
                 "%s is not a part of a run (no members_first, members_total and group merge: "
                 "cohort run --members A:B writes parts)",
                 f->path);
        return EXIT_BAD_INPUT;
    }
    if (members < 0 || f->first < 0 || f->first + members > f->total) {
        snprintf(err, len, "%s: its members do not lie in [0, members_total = %lld)", f->path,
                 f->total);
        return EXIT_BAD_INPUT;
    }
    f->count = f->held = members;
    const int arithmetic = cohort_file_arithmetic(f->nc);
    if (arithmetic != COHORT_ARITHMETIC) {
        snprintf(err, len,
                 "%s was computed in another arithmetic (generation %d, by %s; this cohort's is "
                 "%d), whose numbers differ in their last bits: merge it with the version that "
                 "made it, or run the part again",
                 f->path, arithmetic, f->source, COHORT_ARITHMETIC);
        return EXIT_BAD_INPUT;
    }
    return 0;
}

/* The part's member coordinate: first, first + 1, ..., as its members_first says. */
static int part_members_contiguous(const part_file *f, char *err, size_t len)
{
    int grp = -1, var = -1;
    long long *member = malloc((size_t)(f->held > 0 ? f->held : 1) * sizeof *member);
    int ok = member && cohort_file_variable(f->nc, NULL, "member", &grp, &var) == 0 &&
             cohort_file_read_int64(grp, var, NULL, NULL, member) == 0;
    long long k = 0;
    while (ok && k < f->held && member[k] == f->first + k) ++k;
    if (!ok)
        snprintf(err, len, "%s: its variable member is missing or unreadable", f->path);
    else if (k < f->held)
        snprintf(err, len,
                 "%s: its variable member holds %lld at index %lld, where members_first = %lld "
                 "implies %lld",
                 f->path, member[k], k, f->first, f->first + k);
    free(member);
    return ok && k == f->held ? 0 : EXIT_BAD_INPUT;
}

/* Each part holds what a run of the plan writes for its members (output_check_file) and the
 * member range its attributes claim. 0, or 2 with err naming the part and the variable. */
static int parts_conform(const run_plan *p, const cohort_backend *be, const part_file *parts, int n,
                         char *err, size_t len)
{
    for (int i = 0; i < n; ++i) {
        const file_request rq = {.kind = FILE_KIND_PART,
                                 .plan = p,
                                 .backend = be,
                                 .path = parts[i].path,
                                 .first = parts[i].first,
                                 .end = parts[i].first + parts[i].held};
        output_spec spec;
        file_provenance pv;
        int value_slot[RUN_VALUES];
        file_spec_build(&rq, &pv, &spec, value_slot);
        if (output_check_file(&spec, parts[i].nc, parts[i].path) != COHORT_OK) {
            snprintf(err, len, "%s", cohort_error_message());
            return EXIT_BAD_INPUT;
        }
        if (part_members_contiguous(&parts[i], err, len)) return EXIT_BAD_INPUT;
    }
    return 0;
}

/* The parts of one run and configuration, covering each of its first `whole` members once (0:
 * all of them); a part's count then ends at `whole`. 0, or 2 with err. */
static int parts_check(part_file *parts, int n, long long whole, char *err, size_t len)
{
    qsort(parts, (size_t)n, sizeof *parts, by_first);
    long long next = 0;
    for (int i = 0; i < n; ++i) {
        char key[128];
        if (parts[i].total != parts[0].total) {
            snprintf(err, len, "%s is a part of a run of %lld members, %s of %lld", parts[i].path,
                     parts[i].total, parts[0].path, parts[0].total);
            return EXIT_BAD_INPUT;
        }
        if (config_rendered_difference(parts[0].config, parts[i].config, key, sizeof key)) {
            snprintf(err, len, "%s and %s are parts of different configurations (%s differs)",
                     parts[0].path, parts[i].path, key);
            return EXIT_BAD_INPUT;
        }
        if (parts[i].first > next) {
            snprintf(err, len, "members [%lld, %lld) are in none of the parts", next,
                     parts[i].first);
            return EXIT_BAD_INPUT;
        }
        if (parts[i].first < next) {
            snprintf(err, len, "%s and %s both hold member %lld", parts[i - 1].path, parts[i].path,
                     parts[i].first);
            return EXIT_BAD_INPUT;
        }
        next = parts[i].first + parts[i].count;
    }
    const long long end = whole > 0 ? whole : parts[0].total;
    if (next < end) {
        snprintf(err, len, "members [%lld, %lld) are in none of the parts", next, end);
        return EXIT_BAD_INPUT;
    }
    for (int i = 0; i < n; ++i)
        if (parts[i].first + parts[i].count > end) parts[i].count = end - parts[i].first;
    return 0;
}

/* A merge variable of a part and its shape, which must be at least `want` (0: any) in each of its
 * ndims dimensions and exactly the run's records in the first. */
static int part_merge_variable(const part_file *f, const char *name, int ndims, const size_t *want,
                               int *grp, int *var)
{
    size_t len[4] = {0};
    int found = 0;
    if (cohort_file_variable(f->nc, "merge", name, grp, var) ||
        cohort_file_shape(*grp, *var, ndims, &found, len, NULL) || found != ndims)
        return COHORT_FAIL(COHORT_ERR_IO, "%s: merge/%s missing", f->path, name);
    for (int d = 0; d < ndims; ++d)
        if (d == 0 ? len[d] != want[d] : len[d] < want[d])
            return COHORT_FAIL(COHORT_ERR_INVALID_ARGUMENT,
                               "%s: merge/%s is %zu x %zu x %zu (first dimensions) where the run "
                               "has %zu x %zu x %zu (an unfinished part, or one of another "
                               "cohort?)",
                               f->path, name, len[0], len[1], len[2], want[0], want[1], want[2]);
    return COHORT_OK;
}

/* The part's units of each statistic at each record into the whole run's accumulators. */
static int part_accumulate_moments(const part_file *f, const run_plan *p, run_accumulators *a)
{
    const int64_t unit = p->bootstrap_unit, u0 = f->first / unit;
    const int64_t n_units = (f->first + f->count + unit - 1) / unit - u0;
    const int statistics = 2 + a->n_obs;
    const size_t want[4] = {(size_t)p->n_records, (size_t)statistics, (size_t)n_units, 3};
    int grp = -1, var = -1;
    COHORT_CALL(part_merge_variable(f, "moments", 4, want, &grp, &var));
    for (int64_t r = 0; r < p->n_records; ++r)
        for (int s = 0; s < statistics; ++s) {
            moments_units *b = s == 0   ? &a->ell[r]
                               : s == 1 ? &a->mass[r]
                                        : &a->obs[(s - 2) * a->n_records + r];
            const size_t at[4] = {(size_t)r, (size_t)s, 0, 0}, size[4] = {1, 1, (size_t)n_units, 3};
            if (cohort_file_read_double(grp, var, at, size, (double *)(b->units + u0)))
                return COHORT_FAIL(COHORT_ERR_IO, "%s: merge/moments unreadable", f->path);
            b->next = f->first + f->count;
        }
    return COHORT_OK;
}

/* The part's structure-factor sums (blocks of MOMENTS_BLOCK, or the units of eq. 6's sums) of
 * merge variable `name` into sums[r] of every record. */
static int part_accumulate_sums(const part_file *f, const run_plan *p, const char *name,
                                int64_t rows, int64_t block, const cohort_backend *be,
                                ordered_sum *sums)
{
    const int64_t b0 = f->first / block, n = (f->first + f->count + block - 1) / block - b0;
    const size_t want[3] = {(size_t)p->n_records, (size_t)n, (size_t)rows};
    int grp = -1, var = -1;
    COHORT_CALL(part_merge_variable(f, name, 3, want, &grp, &var));
    for (int64_t r = 0; r < p->n_records; ++r) {
        ordered_sum *s = &sums[r];
        if (!s->host) COHORT_CALL(ordered_sum_alloc(s, be, p->members, rows, 1, block, 1));
        const size_t at[3] = {(size_t)r, 0, 0}, size[3] = {1, (size_t)n, (size_t)rows};
        if (cohort_file_read_double(grp, var, at, size, s->host + (size_t)(b0 * rows)))
            return COHORT_FAIL(COHORT_ERR_IO, "%s: merge/%s unreadable", f->path, name);
        s->next = f->first + f->count;
    }
    return COHORT_OK;
}

/* The part's Sobol sums of every record joined to the whole run's (sobol_stream_join). */
static int part_accumulate_sobol(const part_file *f, const run_plan *p, sobol_stream *whole)
{
    const int64_t end = f->first + f->count, n = sensitivity_stream_values(p, f->first, end);
    const size_t want[3] = {(size_t)p->n_records, (size_t)n, 0}; /* the message reads 3 */
    int grp = -1, var = -1;
    COHORT_CALL(part_merge_variable(f, "sobol_sums", 2, want, &grp, &var));
    double *sums = malloc((size_t)n * sizeof *sums);
    int rc = sums ? COHORT_OK : COHORT_FAIL(COHORT_ERR_NO_MEMORY, "the Sobol sums");
    for (int64_t r = 0; r < p->n_records && rc == COHORT_OK; ++r) {
        const size_t at[2] = {(size_t)r, 0}, size[2] = {1, (size_t)n};
        if (cohort_file_read_double(grp, var, at, size, sums))
            rc = COHORT_FAIL(COHORT_ERR_IO, "%s: merge/sobol_sums unreadable", f->path);
        if (rc == COHORT_OK) rc = sobol_stream_join(whole, r, f->first, end, sums);
    }
    free(sums);
    return rc;
}

/* A part's accumulators into the whole run's: its diverged flags, the units of its statistics
 * and its structure-factor sums (k-means reads its features where they lie: part_features.h). A
 * part that does not hold what its configuration asks for is bad input (*bad). */
static int part_accumulate(const part_file *f, const run_plan *p, run_accumulators *a, int *bad)
{
    int grp = -1, var = -1;
    *bad = 1;
    const size_t at0 = 0, members = (size_t)f->count;
    if (cohort_file_variable(f->nc, NULL, "diverged", &grp, &var) ||
        cohort_file_read_byte(grp, var, &at0, &members, a->diverged + f->first))
        return COHORT_FAIL(COHORT_ERR_IO, "%s: diverged unreadable", f->path);
    COHORT_CALL(part_accumulate_moments(f, p, a));
    if (a->sobol) COHORT_CALL(part_accumulate_sobol(f, p, a->sobol));
    structure_factor *sf = a->sf;
    if (sf) {
        COHORT_CALL(
            part_accumulate_sums(f, p, "spectrum_sums", sf->rows, MOMENTS_BLOCK, sf->be, sf->sums));
        COHORT_CALL(part_accumulate_sums(f, p, "k1_unit_sums", STRUCTURE_FACTOR_K1_TERMS,
                                         p->bootstrap_unit, sf->be, sf->k1_units));
    }
    *bad = 0;
    return COHORT_OK;
}

/* The text the merged file takes from the first part: its history (with the merge's line
 * where a user ran it), backend and device. */
typedef struct merge_provenance {
    char *history, *previous, *backend, *device;
    char *config; /* the run of opt->members members' configuration (NULL: the first part's) */
} merge_provenance;

/* The whole run's file, its provenance the first part's. */
static int merge_create(const merge_options *opt, const run_plan *p, const cohort_config *c,
                        const cohort_backend *be, const part_file *first, file_provenance *pv,
                        merge_provenance *given, output_spec *spec, cohort_output **out)
{
    if (opt->members > 0 && !(given->config = config_render(c)))
        return COHORT_FAIL(COHORT_ERR_NO_MEMORY, "the configuration");
    given->previous = cohort_file_text(first->nc, "history");
    given->backend = cohort_file_text(first->nc, "backend");
    given->device = cohort_file_text(first->nc, "device");
    /* a merge the user ran adds its line; cohort run's own (opt->command_line NULL) does not */
    given->history = opt->command_line ? output_history(opt->command_line, given->previous)
                                       : strdup(given->previous ? given->previous : "");
    const file_request rq = {.kind = FILE_KIND_RUN,
                             .plan = p,
                             .backend = be,
                             .path = opt->output_path,
                             .first = 0,
                             .end = p->members,
                             .history = given->history,
                             .source = opt->version,
                             .config = given->config ? given->config : first->config,
                             .replace = opt->overwrite,
                             .ran_backend = given->backend,
                             .ran_device = given->device};
    int value_slot[RUN_VALUES];
    file_spec_build(&rq, pv, spec, value_slot);
    return given->history ? output_create(spec, out) : COHORT_FAIL(COHORT_ERR_NO_MEMORY, "history");
}

/* Into the whole run's file out: each part's per-member variables, its blocks folded into the
 * accumulators a as the whole run had them, then run_finish (k-means reading the parts'
 * features, shared by opt->team's ranks). *bad: a part lacks what its configuration asks for. */
static int merge_fold(const merge_options *opt, const run_plan *p, const cohort_backend *be,
                      const part_file *parts, const output_spec *spec, cohort_output *out,
                      run_accumulators *a, int *bad, int64_t *n_diverged)
{
    int rc = run_accumulators_alloc(
        a, p, p->model->observing ? p->model->observing->n_observables : 0, 0, p->members);
    const cohort_backend *cpu = NULL;
    if (rc == COHORT_OK && spec->structure_factor) rc = cohort_backend_get("cpu", &cpu);
    if (rc == COHORT_OK && spec->structure_factor) /* sums only: no spectra are taken */
        rc = structure_factor_alloc(cpu, p->values.nx, p->values.ny, p->values.length, 1, 1,
                                    p->members, p->n_records, p->bootstrap_unit, &a->sf);
    const char **paths = malloc((size_t)opt->n_inputs * sizeof *paths);
    int64_t *firsts = malloc((size_t)(opt->n_inputs + 1) * sizeof *firsts);
    if (rc == COHORT_OK && (!paths || !firsts))
        rc = COHORT_FAIL(COHORT_ERR_NO_MEMORY, "%d parts", opt->n_inputs);
    for (int i = 0; paths && firsts && i < opt->n_inputs; ++i)
        paths[i] = parts[i].path, firsts[i] = parts[i].first, firsts[i + 1] = p->members;
    part_features features;
    part_features_init(&features, paths, firsts, opt->n_inputs, p->n);
    for (int i = 0; i < opt->n_inputs && rc == COHORT_OK; ++i) {
        rc = output_copy_part(out, parts[i].nc, parts[i].path, parts[i].first, parts[i].count,
                              i == 0);
        if (rc == COHORT_OK) rc = part_accumulate(&parts[i], p, a, bad);
        if (!opt->quiet && !opt->joining && rc == COHORT_OK)
            report(REPORT_NOTE, "%s: members [%lld, %lld)", parts[i].path, parts[i].first,
                   parts[i].first + parts[i].count);
    }
    const int clustered = spec->kmeans_k > 0 || spec->kmeans_auto;
    const run_finish_options fo = {.be = be,
                                   .end = p->members,
                                   .write_records = 1,
                                   .quiet = opt->quiet,
                                   .fields = clustered ? part_features_load : NULL,
                                   .fields_ctx = &features,
                                   .team = opt->team};
    if (rc == COHORT_OK) rc = run_finish(out, p, a, &fo, n_diverged);
    if (rc == COHORT_OK && opt->members > 0) /* how many members the target took, what it reached */
        rc = output_put_double(out, "target_members", (double)opt->members);
    if (rc == COHORT_OK && opt->members > 0)
        rc = output_put_double(out, "target_sem_reached", opt->target_reached);
    part_features_close(&features);
    free(paths), free(firsts);
    return rc;
}

/* The parts opened and checked, their configuration (that of the run of opt->members members
 * where given) and its plan. 0, or the exit status with err. */
static int merge_plan(const merge_options *opt, part_file *parts, cohort_config *c, int *loaded,
                      run_plan *p, char *err, size_t len)
{
    for (int i = 0; i < opt->n_inputs; ++i)
        if (part_open(&parts[i], err, len)) return EXIT_BAD_INPUT;
    if (parts_check(parts, opt->n_inputs, opt->members, err, len)) return EXIT_BAD_INPUT;
    char name[1024];
    snprintf(name, sizeof name, "%s: attribute config", parts[0].path);
    if (config_load_text(c, name, parts[0].config, err, len) != COHORT_OK) return EXIT_BAD_INPUT;
    *loaded = 1;
    const int64_t whole = opt->members > 0 ? opt->members : parts[0].total;
    if (opt->members > 0) /* the output is the fixed-size run of those members */
        config_set_integer(c, "ensemble", "members", opt->members,
                           "the run to ensemble.target_sem");
    const int status = run_plan_make(c, p, err, len);
    if (status) return status;
    if (p->members != whole || (opt->members > 0 && p->target_sem <= 0.0)) {
        snprintf(err, len, "%s's configuration has %lld members, its members_total %lld",
                 parts[0].path, (long long)p->members, parts[0].total);
        return EXIT_BAD_INPUT;
    }
    return 0;
}

/* Before anything is written: the backend, the parts (each what its run writes), the output's
 * lock and what stands at and beside the output. 0, or 2 with err. */
static int merge_admit(const merge_options *opt, const run_plan *p, const part_file *parts,
                       const cohort_backend **be, output_lock **lock, char *err, size_t len)
{
    if (cohort_backend_get(opt->backend, be) != COHORT_OK) {
        snprintf(err, len, "--backend %s: %s", opt->backend, cohort_error_message());
        return EXIT_BAD_INPUT;
    }
    if (parts_conform(p, *be, parts, opt->n_inputs, err, len)) return EXIT_BAD_INPUT;
    /* one writer per output; the join of an MPI run holds its output's lock already */
    if (!opt->joining &&
        (sidecar_check_not_owned(opt->output_path, "-o", err, len) ||
         output_lock_acquire(opt->output_path, "-o", "cohort merge", lock, err, len)))
        return EXIT_BAD_INPUT;
    /* the join of an MPI run owns what a join before it left; the run checked the rest */
    if (paths_check_output(opt->output_path, "-o", opt->inputs, opt->n_inputs, opt->overwrite, err,
                           len) ||
        sidecar_prepare(opt->output_path, "-o",
                        opt->overwrite || opt->joining ? SIDECAR_OVERWRITE : SIDECAR_CREATE, err,
                        len))
        return EXIT_BAD_INPUT;
    return 0;
}

int merge_parts(const merge_options *opt)
{
    char err[1024] = "";
    int status = EXIT_BAD_INPUT, config_loaded = 0;
    part_file *parts = calloc((size_t)opt->n_inputs, sizeof *parts);
    cohort_config c;
    run_plan p = {0};
    cohort_output *out = NULL;
    output_lock *lock = NULL;
    run_accumulators a = {0};
    merge_provenance provided = {0};
    if (!parts) {
        snprintf(err, sizeof err, "out of memory");
        status = EXIT_FAILURE_RUNNING;
        goto done;
    }
    for (int i = 0; i < opt->n_inputs; ++i) parts[i].path = opt->inputs[i], parts[i].nc = -1;
    status = merge_plan(opt, parts, &c, &config_loaded, &p, err, sizeof err);
    if (status) goto done;
    const cohort_backend *be = NULL;
    status = merge_admit(opt, &p, parts, &be, &lock, err, sizeof err);
    if (status) goto done;

    /* the whole run's file, its provenance the parts' */
    p.chunk = parts[0].count;
    output_spec spec;
    file_provenance provenance;
    status = EXIT_FAILURE_RUNNING;
    int rc = merge_create(opt, &p, &c, be, &parts[0], &provenance, &provided, &spec, &out);

    int bad = 0; /* the whole run's accumulators, from the parts */
    int64_t n_diverged = 0;
    if (rc == COHORT_OK) rc = merge_fold(opt, &p, be, parts, &spec, out, &a, &bad, &n_diverged);
    const int closed = output_close(out, rc == COHORT_OK);
    out = NULL;
    if (rc != COHORT_OK || closed != COHORT_OK) {
        snprintf(err, sizeof err, "%s", cohort_error_message());
        status = bad ? EXIT_BAD_INPUT : EXIT_FAILURE_RUNNING;
        goto done;
    }
    status = 0;
    if (!opt->quiet && !opt->joining)
        report(REPORT_RESULT, "wrote %s: %lld members from %d parts, %lld diverged",
               opt->output_path, (long long)p.members, opt->n_inputs, (long long)n_diverged);
done:
    if (status) report(REPORT_ERROR, "%s", err);
    output_close(out, 0);
    output_lock_release(lock);
    run_accumulators_free(&a);
    for (int i = 0; parts && i < opt->n_inputs; ++i) {
        if (parts[i].nc >= 0) cohort_file_close(parts[i].nc);
        free(parts[i].source), free(parts[i].config);
    }
    free(parts), free(provided.history), free(provided.previous), free(provided.backend),
        free(provided.device), free(provided.config);
    if (config_loaded) config_free(&c);
    run_plan_free(&p);
    return status;
}

int merge_part_moments(const char *path, int64_t record, int statistic, int64_t n_units,
                       moments *units)
{
    int nc = -1, grp = -1, var = -1;
    if (cohort_file_open_data(path, &nc))
        return COHORT_FAIL(COHORT_ERR_IO, "%s: cannot open the part", path);
    const size_t at[4] = {(size_t)record, (size_t)statistic, 0, 0},
                 size[4] = {1, 1, (size_t)n_units, 3};
    const int ok = cohort_file_variable(nc, "merge", "moments", &grp, &var) == 0 &&
                   cohort_file_read_double(grp, var, at, size, (double *)units) == 0;
    cohort_file_close(nc);
    return ok ? COHORT_OK
              : COHORT_FAIL(COHORT_ERR_IO, "%s: merge/moments of record %lld unreadable", path,
                            (long long)record);
}
