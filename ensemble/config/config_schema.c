/* The keys of a configuration (config.h's schema): the keys every configuration has, written
 * here with designated initializers, and each registered model's parameters (models/model.h)
 * inserted after model.name; the sections; finding a key and suggesting the nearest one. */
#include "config/config_schema.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "models/model.h"

#define INF INFINITY
/* The keys every configuration has; the models' own keys ([model] parameters) and the models
 * that read each key (its readers) come from the registry (models/model.h), in schema_init. */
static const config_key common[] = {
    {.section = "model",
     .name = "name",
     .type = CONFIG_ENUM,
     .default_value = NULL /* cohort_model_default() */,
     .meaning = "the equation (cohort models lists them)"},
    {.section = "model",
     .name = "boundary",
     .type = CONFIG_ENUM,
     .default_value = "dirichlet",
     .allowed = "dirichlet|neumann",
     .readers = CONFIG_READ_BY_BOUNDED,
     .meaning = "boundary condition: dirichlet (the initial values held, or the exact "
                "solution's) or neumann (zero normal derivative)"},
    {.section = "grid",
     .name = "n",
     .type = CONFIG_INT,
     .default_value = "256",
     .min = 3,
     .max = 16777216,
     .readers = CONFIG_READ_BY_1D,
     .units = "points",
     .meaning = "grid points of the periodic line (tridiagonal models >= 3, pentadiagonal >= 5)",
     .variants = {{CONFIG_READ_BY_BOUNDED,
                   "cells of the rod, whose n + 1 nodes include both ends"}}},
    {.section = "grid",
     .name = "nx",
     .type = CONFIG_INT,
     .default_value = "128",
     .min = 2,
     .max = 1048576,
     .readers = CONFIG_READ_BY_2D,
     .units = "points",
     .meaning = "grid points along x of the periodic square",
     .variants = {{CONFIG_READ_BY_STEADY,
                   "interior points along x of the unit square, spaced 1 / (nx + 1)"},
                  {CONFIG_READ_BY_BOUNDED, "cells along x of the square (nx + 1 nodes)"}}},
    {.section = "grid",
     .name = "ny",
     .type = CONFIG_INT,
     .default_value = "128",
     .min = 2,
     .max = 1048576,
     .readers = CONFIG_READ_BY_2D,
     .units = "points",
     .meaning = "grid points along y of the periodic square",
     .variants = {{CONFIG_READ_BY_STEADY,
                   "interior points along y of the unit square, spaced 1 / (ny + 1)"},
                  {CONFIG_READ_BY_BOUNDED, "cells along y of the square (ny + 1 nodes)"}}},
    {.section = "grid",
     .name = "length",
     .type = CONFIG_REAL,
     .default_value = "2*pi",
     .max = INF,
     .min_exclusive = 1,
     .readers = CONFIG_READ_BY_EVOLVING,
     .units = "1",
     .meaning = "the domain's size L: the line's length, or the square's side; multiples of pi "
                "are accepted (2*pi, pi/2)",
     .variants = {{CONFIG_READ_BY_1D,
                   "the length L of the line; multiples of pi are accepted (2*pi, pi/2)"},
                  {CONFIG_READ_BY_2D,
                   "the side L of the square; multiples of pi are accepted (2*pi, pi/2)"}}},
    {.section = "grid",
     .name = "origin",
     .type = CONFIG_REAL,
     .default_value = "0",
     .min = -INF,
     .max = INF,
     .readers = CONFIG_READ_BY_BOUNDED,
     .units = "1",
     .meaning = "lower-left corner of the square [origin, origin + L]^2 (-4 with length 8: "
                "[-4, 4]^2)",
     .variants = {{CONFIG_READ_BY_1D, "the rod's left end: the rod is [origin, origin + L]"}}},
    {.section = "time",
     .name = "dt",
     .type = CONFIG_REAL,
     .default_value = "auto",
     .max = INF,
     .min_exclusive = 1,
     .allow_auto = 1,
     .units = "1",
     .meaning = "time step; auto = the model's choice (cohort models; 0.1 dx, dx = L / nx, for the "
                "Cahn-Hilliard models, seed 003 eq. 27); adaptive models: the first trial step"},
    {.section = "time",
     .name = "tolerance",
     .type = CONFIG_REAL,
     .default_value = "1e-6",
     .max = INF,
     .min_exclusive = 1,
     .readers = CONFIG_READ_BY_ADAPTIVE,
     .units = "1",
     .meaning =
         "adaptive models: a step is accepted when Merson's error estimate, the largest over the "
         "member's grid, is below it (seed 000, eq. 27-29)"},
    {.section = "time",
     .name = "stepper",
     .type = CONFIG_ENUM,
     .default_value = "swept",
     .allowed = "swept|classic",
     .readers = CONFIG_READ_BY_STEPPED,
     .meaning =
         "how an explicit 1D model takes its steps, the same arithmetic either way: swept (the "
         "swept "
         "time-space rule of seed 001: each block advances its tile in shared memory as far as its "
         "dependency cone allows and exchanges only edges; a member that fits in one block stays "
         "on "
         "chip between records) or classic (one pass over global memory per stage); on the cpu "
         "backend both are the same loop"},
    {.section = "time",
     .name = "block_width",
     .type = CONFIG_INT,
     .default_value = "auto",
     .min = 8,
     .max = 8192,
     .allow_auto = 1,
     .readers = CONFIG_READ_BY_STEPPED,
     .units = "points",
     .meaning =
         "points per tile of the swept rule (a member's points or more: the whole member on chip "
         "where a block's shared memory holds it, else auto tiles) and threads per block of the "
         "classic kernels (cuda); auto = the fastest measured by bench-swept"},
    {.section = "time",
     .name = "t_end",
     .type = CONFIG_REAL,
     .default_value = "20",
     .max = INF,
     .min_exclusive = 1,
     .units = "1",
     .meaning = "final time, reached exactly"},
    {.section = "time",
     .name = "output_every",
     .type = CONFIG_REAL,
     .default_value = "1",
     .max = INF,
     .min_exclusive = 1,
     .units = "1",
     .meaning = "interval between recorded statistics"},
    {.section = "solver",
     .name = "method",
     .type = CONFIG_ENUM,
     .default_value = "lmsor",
     .allowed = "lmsor|lsor|sor",
     .readers = CONFIG_READ_BY_STEADY,
     .meaning =
         "steady models: red-black local modified SOR with the optimal local omega, omega' of seed "
         "004 eq. 9-13 (lmsor), local SOR with omega = omega' (lsor), or SOR with one global omega "
         "from the classic theory (sor)"},
    {.section = "solver",
     .name = "tolerance",
     .type = CONFIG_REAL,
     .default_value = "1e-6",
     .max = INF,
     .min_exclusive = 1,
     .readers = CONFIG_READ_BY_STEADY,
     .units = "1",
     .meaning =
         "steady models: a member has converged when ||u||_inf <= tolerance (seed 004: the exact "
         "solution is 0)"},
    {.section = "solver",
     .name = "max_iterations",
     .type = CONFIG_INT,
     .default_value = "20000",
     .min = 1,
     .max = 1e12,
     .readers = CONFIG_READ_BY_STEADY,
     .units = "iterations",
     .meaning = "steady models: a member not converged by then is stored with converged = 0"},
    {.section = "solver",
     .name = "check_every",
     .type = CONFIG_INT,
     .default_value = "100",
     .min = 1,
     .max = 1e12,
     .readers = CONFIG_READ_BY_STEADY,
     .units = "iterations",
     .meaning = "steady models: the cadence of residual_history(member, check)"},
    {.section = "ensemble",
     .name = "members",
     .type = CONFIG_INT,
     .default_value = "4096",
     .min = 1,
     .max = 1099511627776.0,
     .units = "members",
     .meaning = "ensemble size when [sweep] does not set it"},
    {.section = "ensemble",
     .name = "seed",
     .type = CONFIG_INT,
     .default_value = "1",
     .max = 9.2e18,
     .meaning = "seed of the Philox4x32-10 generator"},
    {.section = "ensemble",
     .name = "chunk",
     .type = CONFIG_INT,
     .default_value = "auto",
     .min = 1,
     .max = 1099511627776.0,
     .allow_auto = 1,
     .units = "members",
     .meaning = "members per chunk; auto sizes chunks from free device memory (on the cpu backend, "
                "256 MiB "
                "of working memory at most)"},
    {.section = "ensemble",
     .name = "target_sem",
     .type = CONFIG_REAL,
     .default_value = "0",
     .max = 1,
     .meaning =
         "run members block by block until the relative standard error of ensemble.target at the "
         "last record is at most this (0: run ensemble.members, no target); the file is then the "
         "fixed-size run of every member it ran"},
    {.section = "ensemble",
     .name = "max_members",
     .type = CONFIG_INT,
     .default_value = "auto",
     .min = 1,
     .max = 1099511627776.0,
     .allow_auto = 1,
     .units = "members",
     .meaning = "with target_sem: the most members to run; auto: 64 x ensemble.members"},
    {.section = "ensemble",
     .name = "target",
     .type = CONFIG_STRING,
     .default_value = "auto",
     .allowed = "auto or an observable's name",
     .meaning =
         "with target_sem: the statistic whose relative standard error is the target: auto (the "
         "model's length), or the name of one of the model's observables"},
    {.section = "initial",
     .name = "kind",
     .type = CONFIG_ENUM,
     .default_value = "uniform",
     .allowed = "uniform|cosine|mode|manufactured|radial_sine|ramp",
     .meaning = "the members' initial state"},
    {.section = "initial",
     .name = "amplitude",
     .type = CONFIG_REAL,
     .default_value = "0.1",
     .max = INF,
     .units = "1",
     .meaning = "noise amplitude or cosine amplitude"},
    {.section = "initial",
     .name = "mean",
     .type = CONFIG_REAL,
     .default_value = "0",
     .min = -INF,
     .max = INF,
     .units = "1",
     .meaning = "the member's mean <C>"},
    {.section = "initial",
     .name = "mode",
     .type = CONFIG_INT,
     .default_value = "1",
     .min = 1,
     .max = 16777216,
     .meaning =
         "Fourier mode of cosine and mode initial conditions; the 3 of radial_sine's sin(3 pi r)"},
    {.section = "output",
     .name = "path",
     .type = CONFIG_STRING,
     .default_value = "out/cohort.nc",
     .meaning = "NetCDF-4 file to write (-o overrides)"},
    {.section = "output",
     .name = "archive",
     .type = CONFIG_ENUM,
     .default_value = "final",
     .allowed = "none|final|snapshots",
     .meaning = "which member states to store: none, the final state C(member, x), or snapshots"},
    {.section = "output",
     .name = "precision",
     .type = CONFIG_ENUM,
     .default_value = "double",
     .allowed = "double|float",
     .meaning = "storage precision of archived states"},
    {.section = "output",
     .name = "snapshot_every",
     .type = CONFIG_REAL,
     .default_value = "10",
     .max = INF,
     .min_exclusive = 1,
     .units = "1",
     .meaning = "interval between archived snapshots (archive = snapshots)"},
    {.section = "output",
     .name = "member_series",
     .type = CONFIG_BOOL,
     .default_value = "false",
     .needs_length = 1,
     .meaning = "also store each member's series: its length ell(t, member) and its field's "
                "variance C_variance(t, member) at every record"},
    {.section = "output",
     .name = "checkpoint_every",
     .type = CONFIG_REAL,
     .default_value = "600",
     .max = INF,
     .readers = CONFIG_READ_BY_EVOLVING,
     .units = "s",
     .meaning =
         "wall-clock seconds between checkpoints of a run in progress (OUT.checkpoint beside "
         "OUT.partial; cohort run --resume continues from it); 0: at every record and the end of "
         "every chunk. A run also checkpoints when SIGINT, SIGTERM or SIGUSR1 stops it"},
    {.section = "analysis",
     .name = "fit_from",
     .type = CONFIG_REAL,
     .default_value = "1",
     .max = INF,
     .units = "1",
     .needs_length = 1,
     .meaning = "start time of the fit of ell_mean against ln t"},
    {.section = "analysis",
     .name = "bootstrap",
     .type = CONFIG_INT,
     .default_value = "1000",
     .max = 100000,
     .meaning =
         "resamples of the bootstrap (of units of members) that gives the fits of the length and "
         "of 1/k1 their "
         "standard errors and 95% intervals, and <l>_mean its 95% band (0: none; the ordinary "
         "least-squares errors are always stored)"},
    {.section = "analysis",
     .name = "bootstrap_unit",
     .type = CONFIG_INT,
     .default_value = "auto",
     .min = 1,
     .max = 1024,
     .allow_auto = 1,
     .units = "members",
     .meaning =
         "members in each unit the bootstrap resamples (a power of two dividing 1024); auto: 1 up "
         "to 1024 members, else the smallest that cuts the ensemble into at most 1024 units"},
    {.section = "analysis",
     .name = "sensitivity",
     .type = CONFIG_ENUM,
     .default_value = "none",
     .allowed = "none|sobol",
     .meaning = "sobol (with sweep.design = saltelli): first-order and total Sobol indices of "
                "every swept key, sobol_first(t, parameter, statistic) and sobol_total with "
                "bootstrap intervals, of each member's length and field variance at every "
                "record and its final field's mean, streamed as the records arrive (no "
                "per-member history kept), and with analysis.kmeans of each k-means regime"},
    {.section = "analysis",
     .name = "structure_factor",
     .type = CONFIG_BOOL,
     .default_value = "false",
     .meaning =
         "at every output time, structure_factor(t, k) (mean |C^_k|^2 over active members) and "
         "k1(t)"},
    {.section = "analysis",
     .name = "kmeans",
     .type = CONFIG_INT,
     .default_value = "0",
     .max = 16,
     .allow_auto = 1,
     .units = "clusters",
     .meaning =
         "cluster the members' final states into this many clusters (0: off): label(member), "
         "centroid(cluster, x); auto: the number in 2..8 of the highest mean silhouette"},
    {.section = "analysis",
     .name = "kmeans_restarts",
     .type = CONFIG_INT,
     .default_value = "5",
     .min = 1,
     .max = 1000,
     .meaning = "k-means++ seedings; the lowest inertia is kept"},
    {.section = "analysis",
     .name = "kmeans_max_iter",
     .type = CONFIG_INT,
     .default_value = "300",
     .min = 1,
     .max = 100000,
     .meaning = "Lloyd iterations per seeding at most"},
    {.section = "analysis",
     .name = "kmeans_tol",
     .type = CONFIG_REAL,
     .default_value = "0",
     .max = INF,
     .units = "1",
     .meaning =
         "stop when the inertia falls by less than this fraction (0: when no label changes)"},
};
enum { N_COMMON = sizeof common / sizeof common[0], MAX_KEYS = 96, MODEL_LIST = 512 };
static config_key schema[MAX_KEYS];
static size_t N_KEYS;
static char key_models[MAX_KEYS][MODEL_LIST]; /* the models that read key k, space-separated */
static char model_names[MODEL_LIST];          /* model.name's allowed values, "a|b|c" */

static void append_word(char *list, size_t len, const char *word, const char *separator)
{
    const size_t used = strlen(list);
    snprintf(list + used, len - used, "%s%s", used ? separator : "", word);
}

/* The schema: the common keys, with each registered model's parameters inserted after model.name
 * (a key several models read is listed once; its default, range and meaning are the first
 * model's). */
/* Whether model d reads a key of these readers. */
static int model_reads(const cohort_model *d, config_readers readers)
{
    switch (readers) {
    case CONFIG_READ_BY_ALL:
        return 1;
    case CONFIG_READ_BY_1D:
        return d->dimension == 1;
    case CONFIG_READ_BY_2D:
        return d->dimension == 2;
    case CONFIG_READ_BY_BOUNDED:
        return d->boundaries != NULL;
    case CONFIG_READ_BY_ADAPTIVE:
        return d->adaptive != NULL;
    case CONFIG_READ_BY_STEPPED:
        return d->stepping && d->stepping->steppers != NULL;
    case CONFIG_READ_BY_STEADY:
        return d->steady != NULL;
    case CONFIG_READ_BY_EVOLVING:
        return d->steady == NULL;
    case CONFIG_READ_BY_PARAMETER:
        break;
    }
    return 0;
}

/* Model m's parameters as keys after model.name (a key several models read is listed once; its
 * default, range and meaning are the first model's). */
static void schema_add_parameters(const cohort_model *m)
{
    for (int j = 0; j < m->n_params; ++j) {
        const cohort_model_param *q = &m->params[j];
        size_t k = 0;
        while (k < N_KEYS && (strcmp(schema[k].section, "model") || strcmp(schema[k].name, q->key)))
            ++k;
        if (k == N_KEYS && N_KEYS < MAX_KEYS - N_COMMON)
            schema[N_KEYS++] = (config_key){.section = "model",
                                            .name = q->key,
                                            .type = CONFIG_REAL,
                                            .default_value = q->default_value,
                                            .min = q->min,
                                            .max = q->max,
                                            .min_exclusive = q->min_exclusive,
                                            .readers = CONFIG_READ_BY_PARAMETER,
                                            .models = key_models[k],
                                            .units = q->units,
                                            .meaning = q->meaning};
        append_word(key_models[k], MODEL_LIST, m->name, " ");
    }
}

/* The schema: the common keys, with each registered model's parameters inserted after
 * model.name; every key's readers named (models: "" for all). */
static void schema_init(void)
{
    if (N_KEYS) return;
    size_t n_models = 0;
    const cohort_model *const *models = cohort_models(&n_models);
    for (size_t c = 0; c < N_COMMON; ++c) {
        config_key *k = &schema[N_KEYS++];
        *k = common[c];
        if (!k->units) k->units = "";
        k->models = "";
        if (k->readers != CONFIG_READ_BY_ALL) {
            for (size_t m = 0; m < n_models; ++m)
                if (model_reads(models[m], k->readers))
                    append_word(key_models[N_KEYS - 1], MODEL_LIST, models[m]->name, " ");
            k->models = key_models[N_KEYS - 1];
        }
        if (strcmp(k->section, "model") || strcmp(k->name, "name")) continue;
        k->default_value = cohort_model_default();
        k->allowed = model_names;
        for (size_t m = 0; m < n_models; ++m) {
            append_word(model_names, sizeof model_names, models[m]->name, "|");
            schema_add_parameters(models[m]);
        }
    }
}
static const char *const sections[] = {"model",   "grid",  "time",   "solver",  "ensemble",
                                       "initial", "sweep", "output", "analysis"};
enum { N_SECTIONS = sizeof sections / sizeof sections[0] };

const char *const *config_sections(size_t *count)
{
    *count = N_SECTIONS;
    return sections;
}

const config_key *config_schema(size_t *count)
{
    schema_init();
    *count = N_KEYS;
    return schema;
}

int config_list_has(const char *list, char separator, const char *word)
{
    const size_t n = strlen(word);
    for (const char *a = list; *a;) {
        const char *end = strchr(a, separator);
        const size_t len = end ? (size_t)(end - a) : strlen(a);
        if (len == n && !strncmp(a, word, n)) return 1;
        a += len + (end ? 1 : 0);
    }
    return 0;
}

static size_t edit_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b), row[128];
    if (la > 120 || lb > 120) return 1000;
    for (size_t j = 0; j <= lb; ++j) row[j] = j;
    for (size_t i = 1; i <= la; ++i) {
        size_t diag = row[0];
        row[0] = i;
        for (size_t j = 1; j <= lb; ++j) {
            const size_t up = row[j];
            const size_t sub =
                diag + (tolower((unsigned char)a[i - 1]) != tolower((unsigned char)b[j - 1]));
            row[j] = sub < up + 1 ? (sub < row[j - 1] + 1 ? sub : row[j - 1] + 1)
                                  : (up + 1 < row[j - 1] + 1 ? up + 1 : row[j - 1] + 1);
            diag = up;
        }
    }
    return row[lb];
}

/* " (did you mean 'model.gamma'?)" for the closest section.key within 3 edits, else "". */
void config_schema_suggest_key(const char *section, const char *name, char *out, size_t len)
{
    char wanted[2 * CONFIG_TEXT], candidate[2 * CONFIG_TEXT], best[2 * CONFIG_TEXT] = "";
    size_t best_d = 4;
    snprintf(wanted, sizeof wanted, "%s.%s", section, name);
    for (size_t k = 0; k < N_KEYS; ++k) {
        snprintf(candidate, sizeof candidate, "%s.%s", schema[k].section, schema[k].name);
        const size_t d = edit_distance(wanted, candidate);
        if (d < best_d) best_d = d, snprintf(best, sizeof best, "%s", candidate);
    }
    if (best[0])
        snprintf(out, len, " (did you mean '%s'?)", best);
    else
        out[0] = '\0';
}

void config_schema_suggest_section(const char *section, char *out, size_t len)
{
    size_t best_d = 3;
    const char *best = NULL;
    for (size_t s = 0; s < N_SECTIONS; ++s) {
        const size_t d = edit_distance(section, sections[s]);
        if (d < best_d) best_d = d, best = sections[s];
    }
    if (best)
        snprintf(out, len, " (did you mean [%s]?)", best);
    else
        out[0] = '\0';
}

int config_schema_find(const char *section, const char *name)
{
    schema_init();
    for (size_t k = 0; k < N_KEYS; ++k)
        if (!strcmp(schema[k].section, section) && !strcmp(schema[k].name, name)) return (int)k;
    return -1;
}

int config_schema_known_section(const char *section)
{
    for (size_t s = 0; s < N_SECTIONS; ++s)
        if (!strcmp(sections[s], section)) return 1;
    return 0;
}

void config_describe_range(const config_key *k, char *out, size_t len)
{
    if (k->type == CONFIG_ENUM) {
        snprintf(out, len, "one of %s", k->allowed);
        return;
    }
    if (k->type == CONFIG_BOOL) {
        snprintf(out, len, "true or false");
        return;
    }
    if (k->type == CONFIG_STRING) { /* `allowed` describes the text where it is not a path */
        snprintf(out, len, "%s", k->allowed ? k->allowed : "a path");
        return;
    }
    const char *what = k->type == CONFIG_INT ? "an integer" : "a number";
    if (isinf(k->min) && isinf(k->max))
        snprintf(out, len, "%s", what);
    else if (isinf(k->max))
        snprintf(out, len, "%s %s %.15g", what, k->min_exclusive ? ">" : ">=", k->min);
    else
        snprintf(out, len, "%s in [%.15g, %.15g]", what, k->min, k->max);
    if (k->allow_auto) snprintf(out + strlen(out), len - strlen(out), ", or auto");
}

/* What each initial.kind is, for the models of `readers` (the first entry of a kind that reads
 * it applies). */
static const struct {
    const char *kind;
    config_readers readers;
    const char *text;
} initial_kinds[] = {
    {"uniform", CONFIG_READ_BY_ALL, "mean + mean-free uniform noise in [-amplitude, amplitude]"},
    {"cosine", CONFIG_READ_BY_BOUNDED, "the rod's own mode, mean + amplitude cos(mode pi x / L)"},
    {"cosine", CONFIG_READ_BY_ALL, "mean + amplitude cos(mode 2 pi x / L)"},
    {"mode", CONFIG_READ_BY_ALL, "mean + amplitude cos(mode 2 pi x / L)"},
    {"manufactured", CONFIG_READ_BY_ALL,
     "the exact solution zeta of seed 000 eq. 30, with its forcing"},
    {"radial_sine", CONFIG_READ_BY_ALL,
     "amplitude sin(mode pi |x|) (seed 000 eq. 35: mode = 3, amplitude = 1)"},
    {"ramp", CONFIG_READ_BY_ALL,
     "the rod with a temperature gradient, mean + amplitude (2 x / L - 1) (seed 001)"},
};

/* "the members' initial state: uniform: ...; cosine: ..." for the kinds m starts from (m NULL:
 * every kind, as most models read it). */
static void initial_kinds_meaning(const cohort_model *m, char *out, size_t len)
{
    const char *kinds =
        m ? m->initial_kinds : schema[config_schema_find("initial", "kind")].allowed;
    const char *said = NULL; /* the kind described last: each kind once, its first entry */
    snprintf(out, len, "the members' initial state");
    for (size_t i = 0; i < sizeof initial_kinds / sizeof initial_kinds[0]; ++i) {
        const char *kind = initial_kinds[i].kind;
        if (!config_list_has(kinds, '|', kind) || (said && !strcmp(said, kind))) continue;
        if (m ? !model_reads(m, initial_kinds[i].readers)
              : initial_kinds[i].readers != CONFIG_READ_BY_ALL)
            continue;
        const size_t used = strlen(out);
        snprintf(out + used, len - used, "%s %s: %s", said ? ";" : ":", kind,
                 initial_kinds[i].text);
        said = kind;
    }
}

void config_key_meaning(const config_key *k, const cohort_model *m, char *out, size_t len)
{
    if (!strcmp(k->section, "initial") && !strcmp(k->name, "kind")) {
        initial_kinds_meaning(m, out, len);
        return;
    }
    const char *text = k->meaning;
    for (int v = 0; m && v < 3 && k->variants[v].text; ++v)
        if (model_reads(m, k->variants[v].readers)) {
            text = k->variants[v].text;
            break;
        }
    snprintf(out, len, "%s", text);
}

int config_model_reads(const config_key *k, const cohort_model *m)
{
    if (k->needs_length && !m->statistics) return 0;
    if (k->models[0]) return config_list_has(k->models, ' ', m->name);
    const int stepping = !strcmp(k->section, "time") || !strcmp(k->section, "initial");
    return !(m->steady && stepping);
}
