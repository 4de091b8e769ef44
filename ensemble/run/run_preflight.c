/* The pre-flight check (run_preflight.h). */
#include "run/run_preflight.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "config/config_schema.h"
#include "exit_status.h"
#include "io/paths.h"
#include "report.h"
#include "run/run_file.h"

/* The most bytes the file holds, uncompressed; driver says which keys make most of it. */
static double file_bytes(const run_plan *p, int64_t first, int64_t end, int part, char *driver,
                         size_t len)
{
    const double members = (double)(end - first), points = (double)p->n;
    const double value = p->archive_float ? 4.0 : 8.0;
    const double states = p->n_snapshots > 0 ? (double)p->n_snapshots : p->archive_final;
    const double archive = states * members * points * value;
    const double series = p->member_series ? (double)p->n_records * members * 8.0 : 0.0;
    const double features =
        part && (p->kmeans_k > 0 || p->kmeans_auto) ? members * points * 8.0 : 0.0;
    /* per member: its index, flag, parameters, values and label; then records and spectra */
    const double rest = members * 8.0 * (8.0 + p->n_sweeps) + (double)p->n_records * 65536.0;
    if (p->n_snapshots > 0)
        snprintf(driver, len,
                 "output.archive = snapshots: %lld snapshots (output.snapshot_every) x "
                 "ensemble.members x %lld points x %g bytes",
                 (long long)p->n_snapshots, (long long)p->n, value);
    else if (archive > 0.0)
        snprintf(driver, len,
                 "output.archive = final: ensemble.members x %lld points (the grid's) x %g bytes",
                 (long long)p->n, value);
    else if (series > 0.0)
        snprintf(driver, len, "output.member_series: %lld records x ensemble.members x 8 bytes",
                 (long long)p->n_records);
    else
        snprintf(driver, len, "ensemble.members and the records");
    return archive + series + features + rest;
}

/* What a time-dependent run says of its step before it starts: a dt above the model's stability
 * limit for some members, and the dt that time.dt = auto chose. */
static void run_note_step(const cohort_config *c, const run_options *opt, const run_plan *p)
{
    if (opt->quiet) return;
    const cohort_model *model = p->model;
    double worst_limit, mean_lo, mean_hi;
    const int64_t unstable = run_plan_unstable_members(p, &worst_limit, &mean_lo, &mean_hi);
    if (unstable > 0)
        report(REPORT_NOTE,
               "warning: time.dt = %.4g (from %s) is above %s's stability limit "
               "for %lld of %lld members (initial.mean in [%g, %g]; their smallest limit is dt "
               "= %.4g): expect them to diverge, or set time.dt below it",
               p->values.dt, config_get(c, "time", "dt")->origin, model->name, (long long)unstable,
               (long long)p->members, mean_lo, mean_hi, worst_limit);
    /* a dt that does not divide the records' period: the times the records will have */
    if (!p->events_on_time) {
        char times[256] = "";
        for (int64_t r = 1; r < p->n_records && r < 5; ++r)
            snprintf(times + strlen(times), sizeof times - strlen(times), "%s%.10g",
                     r > 1 ? ", " : "", run_plan_record_time(p, r));
        report(REPORT_NOTE,
               "note: time.dt = %.6g (from %s) does not divide time.output_every and "
               "time.t_end%s into whole steps: the records fall on the steps nearest their "
               "times, t = %s%s",
               p->values.dt, config_get(c, "time", "dt")->origin,
               p->n_snapshots > 0 ? " (and output.snapshot_every)" : "", times,
               p->n_records > 5 ? ", ..." : "");
    }
    /* an adaptive model's is the first trial step */
    if (config_get(c, "time", "dt")->is_auto)
        report(REPORT_NOTE, "time.dt = auto: %s %.6g (%s)",
               model->adaptive ? "first trial step" : "dt =",
               model->adaptive ? p->values.tau0 : p->values.dt, model->name);
}

/* "1.3 GB" */
static void bytes_text(double bytes, char *out, size_t len)
{
    static const char *const unit[] = {"B", "kB", "MB", "GB", "TB", "PB"};
    int u = 0;
    while (bytes >= 1000.0 && u < 5) bytes /= 1000.0, ++u;
    snprintf(out, len, "%.3g %s", bytes, unit[u]);
}

int run_preflight(const cohort_config *c, const run_options *opt, const run_plan *p, int64_t first,
                  int64_t end, int part)
{
    const char *path = run_file_name(c, opt);
    char driver[256], size[32], free_text[32];
    const double bytes = file_bytes(p, first, end, part, driver, sizeof driver);
    const double free_bytes = paths_free_bytes(path);
    run_note_step(c, opt, p);
    if (free_bytes < 0.0 || bytes <= free_bytes || opt->resume) return 0;
    bytes_text(bytes, size, sizeof size);
    bytes_text(free_bytes, free_text, sizeof free_text);
    report(REPORT_ERROR,
           "%s: the file would take up to %s (%s), and its directory has %s free: fewer "
           "members (ensemble.members), a coarser archive (output.archive, "
           "output.precision = float, output.snapshot_every) or another -o",
           path, size, driver, free_text);
    return EXIT_BAD_INPUT;
}

/* "42 s", "3.5 min", "2.1 h" */
static void duration_text(double seconds, char *out, size_t len)
{
    if (seconds < 120.0)
        snprintf(out, len, "%.2g s", seconds);
    else if (seconds < 7200.0)
        snprintf(out, len, "%.2g min", seconds / 60.0);
    else
        snprintf(out, len, "%.3g h", seconds / 3600.0);
}

/* A space-filling design gives every member its own value of each swept key: where the model's
 * stepper is built from one (its implicit matrix), every member then needs a stepper of its own
 * and is stepped as a chunk of one member (run_chunk.c), at a fraction of a batch's rate. */
static void run_warn_stepper_keys(const run_plan *p)
{
    if (p->n_stepper_sweeps == 0 || p->design == DESIGN_GRID || p->design == DESIGN_ZIP) return;
    size_t n_keys;
    const config_key *k = &config_schema(&n_keys)[p->sweep[p->stepper_sweep[0]]->key];
    report(REPORT_NOTE,
           "note: %s.%s is a key the model's stepper is built from; drawn from a range it gives "
           "every member a stepper of its own, stepped as a chunk of one member (the rate above); "
           "a fixed value, or a grid of a few values (sweep.design = grid), keeps the members "
           "batched",
           k->section, k->name);
}

/* The warnings of a run whose step, not its physics, sets its cost: more than 10^4 steps between
 * records, or more than an hour of stepping; each names the keys that drive it. */
static void run_warn_cost(const cohort_config *c, const run_plan *p, double seconds)
{
    const int auto_dt = config_get(c, "time", "dt")->is_auto && !p->model->adaptive;
    const char *why = auto_dt ? ", auto: the model's stable step on this grid, set by grid.n or "
                                "grid.nx and grid.length"
                              : "";
    const double per_record = p->t_end / (double)(p->n_records > 1 ? p->n_records - 1 : 1);
    if (!p->model->adaptive && p->values.dt < 1e-4 * per_record)
        report(REPORT_NOTE,
               "warning: %.3g steps between records (time.dt = %.3g%s): the run's cost is its "
               "step count",
               per_record / p->values.dt, p->values.dt, why);
    if (!(seconds > 3600.0)) return;
    char text[32];
    duration_text(seconds, text, sizeof text);
    report(REPORT_NOTE,
           "warning: about %s of stepping: ensemble.members x %lld steps (time.t_end = %g%s%s); "
           "fewer members, a shorter time.t_end or a coarser grid (grid.n, grid.nx) cut it",
           text, (long long)p->steps, p->t_end, p->model->adaptive ? "" : ", time.dt = ",
           p->model->adaptive ? "" : (auto_dt ? "auto" : config_get(c, "time", "dt")->text));
}

void run_preflight_report(const cohort_config *c, const run_options *opt, const run_plan *p,
                          int64_t first, int64_t end, int part, double member_steps_per_second,
                          double setup_per_member)
{
    if (opt->quiet || opt->segment) return; /* a segment's run: its whole run said it */
    char driver[256], size[32], free_text[32], wall[256] = "";
    const double bytes = file_bytes(p, first, end, part, driver, sizeof driver);
    const double free_bytes = paths_free_bytes(run_file_name(c, opt));
    bytes_text(bytes, size, sizeof size);
    bytes_text(free_bytes, free_text, sizeof free_text);
    const double seconds = (double)(end - first) * (double)p->steps / member_steps_per_second;
    /* a factor a member: the members' matrices factored, chunk by chunk, on the host */
    const double factoring = p->member_factor_sweep >= 0 && isfinite(setup_per_member)
                                 ? (double)(end - first) * setup_per_member
                                 : 0.0;
    if (isfinite(seconds)) {
        char text[32], factor_text[32], factoring_text[96] = "";
        duration_text(seconds, text, sizeof text);
        duration_text(factoring, factor_text, sizeof factor_text);
        if (factoring > 0.0)
            snprintf(factoring_text, sizeof factoring_text,
                     " and %s factoring the members' matrices", factor_text);
        snprintf(wall, sizeof wall, ", about %s of stepping%s (a probe: %.3g member-steps/s)", text,
                 factoring_text, member_steps_per_second);
    }
    report(REPORT_NOTE,
           "pre-flight: %lld members x %lld points, %lld %s to t = %g%s, %lld records; the file "
           "up to %s, %s%s free where it goes",
           (long long)(end - first), (long long)p->n, (long long)p->steps,
           p->model->adaptive ? "records' steps" : "steps", p->t_end, wall, (long long)p->n_records,
           size, free_bytes >= 0.0 ? free_text : "unknown", free_bytes >= 0.0 ? "" : " space");
    run_warn_cost(c, p, seconds);
    run_warn_stepper_keys(p);
}
