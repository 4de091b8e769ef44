/* The NetCDF-4 file of a run (CF-1.11): coordinates member (realization), x (and y for 2D members)
 * and t (unlimited),
 * the ensemble statistics over t, the per-member divergence flags, optionally the archived final
 * state C(member, x) chunked by whole chunks of members with deflate 1 + shuffle, and the run's
 * provenance as global attributes. The file is written as PATH.partial, synced after every record
 * (a crash leaves a readable file), and renamed to PATH only by a successful close; a failed or
 * abandoned run removes it, so no half-written file ever carries the final name. */
#ifndef COHORT_OUTPUT_H
#define COHORT_OUTPUT_H

#include <stdint.h>

typedef struct output_spec {
    const char *path;
    int64_t members, n;
    double length;  /* x_i = i * length / n */
    int64_t nx, ny; /* ny > 0: 2D members of n = nx ny points, C(member, y, x) */
    /* the name of the model's per-member length 1/(1 - <C^2>): ell_mean, s_mean, ... (NULL:
     * none) */
    const char *length_name;
    /* closed = 1: the nx x ny nodes of a bounded square, x_i = origin + i length / (nx - 1) */
    int closed;
    double origin;
    const char *field_meaning; /* long_name of C (NULL: concentration) */
    const char *field_name;    /* the archived field's variable (NULL: C) */
    /* closed: y's own origin and length where they differ from x's (length_y = 0: x's) */
    double origin_y, length_y;
    /* per-member histories name(member, check) at n_checks checks, the coordinate
     * check(check) holding check_iterations[c] (n_checks = 0: none) */
    int64_t n_checks;
    const int64_t *check_iterations;
    const char *history_name, *history_meaning;
    /* statistics over t of per-member observables: <name>_mean, <name>_var, <name>_sem */
    int n_series;
    const char *series_name[4], *series_meaning[4], *series_units[4];
    /* per-member values written at the end of each chunk: name(member), type int64 or double */
    int n_member_values;
    const char *member_value_name[8], *member_value_meaning[8];
    int member_value_int[8];
    int archive_final;     /* write C(member, x) */
    int64_t n_snapshots;   /* > 0: write C(t_snap, member, x) instead, at these many times */
    int member_series;     /* write <l>(t, member) and C_variance(t, member) */
    int archive_float;     /* store it as float rather than double */
    int64_t chunk_members; /* NetCDF chunk of C along member (the run's chunk size) */
    /* swept parameters: each as <section>_<key>(member), and for a grid design also as the
     * coordinate <section>_<key>_grid of its own dimension */
    int n_params;
    const char *param_key[8];      /* "initial.mean" */
    int64_t param_grid_count[8];   /* 0 for a zip design */
    const double *param_values[8]; /* the sweep's values (grid: the coordinate) */
    const char *param_meaning[8];  /* the key's meaning and units (the schema's, for model keys
                                    * the registry's), or NULL */
    const char *param_units[8];
    /* a space-filling design (design.h; NULL: grid or zip): its name and points (a Saltelli
     * design's: base points and arms), each key's range and whether log-uniform, and a Sobol
     * design's digital shifts (param_shifts of them: 1 for sobol, A's and B's for saltelli) */
    const char *design;
    int64_t design_points, design_arms;
    double param_lo[8], param_hi[8];
    int param_log[8], param_shifts[8];
    unsigned param_shift[8][2];
    /* analyses: structure_factor(t, k) and k1(t); k-means with kmeans_k clusters: label(member),
     * centroid(cluster, x), cluster_size(cluster), kmeans_inertia, kmeans_iterations, and for a
     * grid design of two swept keys label_map(<first>_grid, <second>_grid) */
    int structure_factor;
    int kmeans_k;
    int kmeans_auto; /* analysis.kmeans = auto: k chosen when k-means runs (kmeans_k 0) */
    /* a file of `cohort analyze`: only coordinates, parameters and analyses (no statistics over
     * t, divergence flags or archive); t holds the analysed times; analysed_file names the input */
    int analysis_only;
    const char *analysed_file;
    /* a steady solve's file: no time, so no t, mass_mean or n_active */
    int steady;
    /* a part of a run split by `cohort run --members A:B`: the file's `members` are the global
     * members [member_first, member_first + members) of part_of in all (part_of = 0: the whole
     * run; member_first 0). member holds the global indices and every per-member write takes
     * global indices. A part also holds the group "merge", what `cohort merge` needs to join the
     * parts bit for bit: the statistics' units (merge_unit members each, from unit
     * member_first / merge_unit), merge_statistics accumulators of moments per record (ell,
     * mass, then the series), the structure factor's block sums (MOMENTS_BLOCK members each,
     * merge_sum_rows values per block and record; 0: none) and its units' sums of eq. 6, and, with
     * merge_features, each member's k-means features (its final field as archived, n values),
     * and, with merge_sobol_values > 0, the Sobol sums of each record (analysis/sobol_stream.h's
     * saved state, that many values) */
    int64_t member_first, part_of;
    int64_t merge_unit;
    int merge_statistics;
    int64_t merge_sum_rows;
    int merge_features;
    int64_t merge_sobol_values;
    /* the final rename may replace what stands at path (--overwrite); else nothing may */
    int replace;
    /* global attributes; run_id: the identity of the run a file and its checkpoint share */
    const char *run_id;
    const char *title, *history, *source, *config, *backend, *device, *libraries, *model;
    uint64_t seed;
} output_spec;

typedef struct cohort_output cohort_output;

/* The NetCDF-C library's version, as it states it. */
const char *output_netcdf_version(void);

/* The history attribute: "<UTC timestamp> <command line>", then the previous history, if any,
 * on the lines below (malloc'd; NULL when out of memory). */
char *output_history(const char *command_line, const char *previous);

/* Errors: COHORT_ERR_IO (with the NetCDF message and the path). */
int output_create(const output_spec *spec, cohort_output **out);

/* The file of spec defined in NetCDF's memory alone, never on disk (closed with output_close). */
int output_create_in_memory(const output_spec *spec, cohort_output **out);
int output_ncid(const cohort_output *o);

/* output_check.c: the open file ncid (named path) holds every variable of spec's file, with its
 * type and the lengths of its fixed dimensions; else COHORT_ERR_INVALID_ARGUMENT naming the file
 * and the variable. */
int output_check_file(const output_spec *spec, int ncid, const char *path);

/* One record of the statistics at time t (record = 0, 1, ...). */
int output_write_record(cohort_output *o, int64_t record, double t, double ell_mean, double ell_var,
                        double ell_sem, double mass_mean, int64_t n_active);

/* t of record `record` alone (analysis-only files). */
int output_write_time(cohort_output *o, int64_t record, double t);

/* Members [m0, m0 + count) of the final state, member-major (state[k * n + i]). */
int output_write_state(cohort_output *o, int64_t m0, int64_t count, const double *state);

/* Snapshot `snapshot` (at time t) of members [m0, m0 + count), member-major. */
int output_write_snapshot(cohort_output *o, int64_t snapshot, double t, int64_t m0, int64_t count,
                          const double *state);

/* Series q's statistics at record `record` (after output_write_record of that record). */
int output_write_series(cohort_output *o, int64_t record, int q, double mean, double var,
                        double sem);

/* Member value q of members [m0, m0 + count) (rounded to int64 where the value is an integer). */
int output_write_member_value(cohort_output *o, int q, int64_t m0, int64_t count,
                              const double *values);

/* The history of members [m0, m0 + count): values[k * n_checks + c]. */
int output_write_member_history(cohort_output *o, int64_t m0, int64_t count, const double *values);

/* Member series (output.member_series) of members [m0, m0 + count) at record `record`: their
 * lengths <l>, or their fields' variances C_variance. */
typedef enum { OUTPUT_SERIES_LENGTH = 0, OUTPUT_SERIES_VARIANCE = 1 } output_series;
int output_write_member_series(cohort_output *o, output_series which, int64_t record, int64_t m0,
                               int64_t count, const double *values);

/* The value of swept parameter j for every member (members values). */
int output_write_parameter(cohort_output *o, int j, const double *values);

/* diverged[k] for members [m0, m0 + count): 1 where the member's state became non-finite. */
int output_write_diverged(cohort_output *o, int64_t m0, int64_t count,
                          const unsigned char *diverged);

/* structure_factor(record, k) for the structure factor's wavenumbers
 * (structure_factor_k_values of nx, ny), and k1(record). */
int output_write_spectrum(cohort_output *o, int64_t record, const double *spectrum, double k1);

/* How far to trust the k-means result: kmeans_restart_agreement (the adjusted Rand index of the
 * kept restart's labels against the runner-up's; NaN with one restart), kmeans_silhouette (the
 * mean silhouette over the subsample) and silhouette_member(silhouette_sample), the subsample's
 * count members; with candidates > 0 (analysis.kmeans = auto), kmeans_candidate_k = 2, 3, ...
 * and kmeans_silhouette_by_k = by_k. */
int output_write_kmeans_quality(cohort_output *o, double agreement, double silhouette,
                                const int64_t *sample, int64_t count, const double *by_k,
                                int candidates);

/* The k-means result of k clusters (its variables defined now): labels of every member, k x n
 * centroids, cluster sizes, inertia and
 * iterations; flag_meanings (space-separated names of labels 0 .. k-1); label_map (the grid's
 * counts[0] x counts[1] values, or NULL where the file has no label_map). */
int output_write_kmeans(cohort_output *o, int k, const unsigned char *labels,
                        const double *centroids, const double *sizes, double inertia,
                        int iterations, const char *flag_meanings, const unsigned char *label_map);

/* 1 when the file has label_map (a grid design of two swept keys). */
int output_has_label_map(const cohort_output *o);

/* A part's merge data (output_spec.part_of > 0): accumulator `statistic` at record `record`,
 * its units from the part's first; the structure factor's block sums of a record (blocks x
 * merge_sum_rows values) and its units' sums of eq. 6 (units x STRUCTURE_FACTOR_K1_TERMS);
 * features of global members [m0, m0 + count), n values each. */
int output_write_merge_moments(cohort_output *o, int statistic, int64_t record, const void *units);
int output_write_merge_sums(cohort_output *o, int64_t record, const double *sums);
int output_write_merge_k1_units(cohort_output *o, int64_t record, const double *sums);
int output_write_merge_sobol(cohort_output *o, int64_t record, const double *values);
int output_write_merge_features(cohort_output *o, int64_t m0, int64_t count,
                                const double *features);

/* Copies what a part of this file's run (src_nc, open for reading, at src_path; global members
 * [first, first + its members)) holds of the variables this file defines: those along member
 * (the part's first `count` members at most) into those members' slots, and, with shared, those
 * along neither member nor t (coordinates, snapshot times) whole. The statistics over t are the
 * caller's to write. Errors: COHORT_ERR_IO (naming the file), COHORT_ERR_INVALID_ARGUMENT (a
 * variable of another type or shape). */
int output_copy_part(cohort_output *o, int src_nc, const char *src_path, int64_t first,
                     int64_t count, int shared);

/* A global attribute of type double (fit results, resolved dt, ...). */
int output_put_double(cohort_output *o, const char *name, double value);
/* The global attribute `name` of n doubles. */
int output_put_doubles(cohort_output *o, const char *name, int n, const double *values);
/* <length>_cluster_mean(cluster) and <length>_cluster_ci95(cluster, bound) of the k clusters
 * (after output_write_kmeans). */
int output_write_cluster_lengths(cohort_output *o, const char *length, int k, const double *mean,
                                 const double *ci95);
/* name(t, bound): n records' lower and upper bounds (values[2 r], values[2 r + 1]). */
int output_write_interval(cohort_output *o, const char *name, const char *long_name, int64_t n,
                          const double *values);
/* name(t, unit, moment): n records' count, mean and m2 over each of `units` units of
 * unit_members members (values[(r * units + u) * 3 + q]; the attribute unit_members). */
/* Sobol indices (analysis/sobol.h) of n_stats statistics of the members at n_t times, over
 * n_params swept parameters: sobol_first(t, parameter, statistic), sobol_total, and their
 * bootstrap intervals sobol_first_ci95(t, parameter, statistic, bound) and sobol_total_ci95,
 * with the string labels parameter_key(parameter) and statistic_name(statistic). The file's t
 * where it has one (of n_t records), else t defined from `times`. Arrays are row-major in
 * that order. */
typedef struct output_sensitivity {
    int64_t n_t;
    const double *times;
    int n_params, n_stats;
    const char *const *params, *const *stats;
    const char *meaning; /* what the statistics are, for the variables' comment */
    int64_t base_points, units, resamples, unit_members;
    const double *first, *total, *first_ci, *total_ci;
} output_sensitivity;
int output_write_sensitivity(cohort_output *o, const output_sensitivity *s);
int output_write_unit_moments(cohort_output *o, const char *name, const char *long_name, int64_t n,
                              int64_t units, int64_t unit_members, const double *values);

/* Reopens PATH.partial of an interrupted run of the same spec for writing (cohort run --resume):
 * its variables must be the ones the spec defines. Errors: COHORT_ERR_IO (no such file, or it
 * does not open), COHORT_ERR_INVALID_ARGUMENT (another configuration's file). */
int output_reopen(const output_spec *spec, cohort_output **out);

/* Flushes everything written so far to disk (a checkpoint then stands for it). */
int output_sync(cohort_output *o);

/* success = 1: close and rename PATH.partial to PATH; 0: close and remove PATH.partial;
 * OUTPUT_KEEP: close and keep PATH.partial (an interrupted run that can resume). Frees o either
 * way. */
enum { OUTPUT_KEEP = 2 };
int output_close(cohort_output *o, int success);

#endif
