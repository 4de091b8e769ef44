#define _POSIX_C_SOURCE 200809L
#include "config/config.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <ini.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "backend/cohort_error.h"
#include "io/paths.h"
#include "models/model.h"

#define INF INFINITY
/* The keys every configuration has; the models' own keys ([model] parameters) and the models
 * that read each grid key come from the registry (models/model.h), in schema_init. GRID_1D and
 * GRID_2D stand for "the models of that dimension" until then. */
static const char GRID_1D[] = "1D models", GRID_2D[] = "2D models";
/* ... and for "the models on a bounded grid" (model->boundaries) and "the adaptive models" */
static const char BOUNDED[] = "bounded models", ADAPTIVE[] = "adaptive models";
/* ... and for "the models that offer several steppers" (model->stepping->steppers), "the steady
 * models" */
static const char STEPPED[] = "models with steppers", STEADY[] = "steady models";
static const char EVOLVING[] = "time-dependent models";
static const config_key common[] = {
    {"model", "name", CONFIG_ENUM, NULL /* cohort_model_default() */, 0, 0, 0, 0, NULL, "", "",
     "the equation (cohort models lists them)"},
    {"model", "boundary", CONFIG_ENUM, "dirichlet", 0, 0, 0, 0, "dirichlet|neumann", BOUNDED, "",
     "boundary condition of a bounded model: dirichlet (the initial values held, or the exact "
     "solution's) or neumann (zero normal derivative); heat1d's rod is insulated, neumann only "
     "(its default)"},
    {"grid", "n", CONFIG_INT, "256", 3, 16777216, 0, 0, NULL, GRID_1D, "points",
     "grid points of the periodic domain (tridiagonal models >= 3, pentadiagonal >= 5); heat1d: "
     "cells of the rod, whose n + 1 nodes include both ends"},
    {"grid", "nx", CONFIG_INT, "128", 2, 1048576, 0, 0, NULL, GRID_2D, "points",
     "grid points along x of the periodic square; on a bounded square, cells (nx + 1 nodes)"},
    {"grid", "ny", CONFIG_INT, "128", 2, 1048576, 0, 0, NULL, GRID_2D, "points",
     "grid points along y of the periodic square; on a bounded square, cells (ny + 1 nodes)"},
    {"grid", "length", CONFIG_REAL, "2*pi", 0, INF, 1, 0, NULL, "", "1",
     "domain length L (2D: the side of the square); multiples of pi are accepted (2*pi, pi/2)"},
    {"grid", "origin", CONFIG_REAL, "0", -INF, INF, 0, 0, NULL, BOUNDED, "1",
     "lower-left corner of the bounded square [origin, origin + L]^2 (-4 with length 8: "
     "[-4, 4]^2); heat1d: the rod's left end"},
    {"time", "dt", CONFIG_REAL, "auto", 0, INF, 1, 1, NULL, "", "1",
     "time step; auto = the model's choice (cohort models; 0.1 dx, dx = L / nx, for the "
     "Cahn-Hilliard models, seed 003 eq. 27); adaptive models: the first trial step"},
    {"time", "tolerance", CONFIG_REAL, "1e-6", 0, INF, 1, 0, NULL, ADAPTIVE, "1",
     "adaptive models: a step is accepted when Merson's error estimate, the largest over the "
     "member's grid, is below it (seed 000, eq. 27-29)"},
    {"time", "stepper", CONFIG_ENUM, "swept", 0, 0, 0, 0, "swept|classic", STEPPED, "",
     "how an explicit 1D model takes its steps, the same arithmetic either way: swept (the swept "
     "time-space rule of seed 001: each block advances its tile in shared memory as far as its "
     "dependency cone allows and exchanges only edges; a member that fits in one block stays on "
     "chip between records) or classic (one pass over global memory per stage); on the cpu "
     "backend both are the same loop"},
    {"time", "block_width", CONFIG_INT, "auto", 8, 8192, 0, 1, NULL, STEPPED, "points",
     "points per tile of the swept rule (a member's points or more: the whole member on chip "
     "where a block's shared memory holds it, else auto tiles) and threads per block of the "
     "classic kernels (cuda); auto = the fastest measured by bench-swept"},
    {"time", "t_end", CONFIG_REAL, "20", 0, INF, 1, 0, NULL, "", "1",
     "final time, reached exactly"},
    {"time", "output_every", CONFIG_REAL, "1", 0, INF, 1, 0, NULL, "", "1",
     "interval between recorded statistics"},
    {"solver", "method", CONFIG_ENUM, "lmsor", 0, 0, 0, 0, "lmsor|lsor|sor", STEADY, "",
     "steady models: red-black local modified SOR with the optimal local omega, omega' of seed "
     "004 eq. 9-13 (lmsor), local SOR with omega = omega' (lsor), or SOR with one global omega "
     "from the classic theory (sor)"},
    {"solver", "tolerance", CONFIG_REAL, "1e-6", 0, INF, 1, 0, NULL, STEADY, "1",
     "steady models: a member has converged when ||u||_inf <= tolerance (seed 004: the exact "
     "solution is 0)"},
    {"solver", "max_iterations", CONFIG_INT, "20000", 1, 1e12, 0, 0, NULL, STEADY, "iterations",
     "steady models: a member not converged by then is stored with converged = 0"},
    {"solver", "check_every", CONFIG_INT, "100", 1, 1e12, 0, 0, NULL, STEADY, "iterations",
     "steady models: the cadence of residual_history(member, check)"},
    {"ensemble", "members", CONFIG_INT, "4096", 1, 1099511627776.0, 0, 0, NULL, "", "members",
     "ensemble size when [sweep] does not set it"},
    {"ensemble", "seed", CONFIG_INT, "1", 0, 9.2e18, 0, 0, NULL, "", "",
     "seed of the Philox4x32-10 generator"},
    {"ensemble", "chunk", CONFIG_INT, "auto", 1, 1099511627776.0, 0, 1, NULL, "", "members",
     "members per chunk; auto sizes chunks from free device memory (on the cpu backend, 256 MiB "
     "of working memory at most)"},
    {"ensemble", "target_sem", CONFIG_REAL, "0", 0, 1, 0, 0, NULL, "", "",
     "run members block by block until the relative standard error of ensemble.target at the "
     "last record is at most this (0: run ensemble.members, no target); the file is then the "
     "fixed-size run of the members it took"},
    {"ensemble", "max_members", CONFIG_INT, "auto", 1, 1099511627776.0, 0, 1, NULL, "", "members",
     "with target_sem: the most members to run; auto: 64 x ensemble.members"},
    {"ensemble", "target", CONFIG_STRING, "auto", 0, 0, 0, 0, "auto or an observable's name", "",
     "",
     "with target_sem: the statistic whose relative standard error is the target: auto (the "
     "model's length), or the name of one of the model's observables"},
    {"initial", "kind", CONFIG_ENUM, "uniform", 0, 0, 0, 0,
     "uniform|cosine|mode|manufactured|radial_sine|ramp", "", "",
     "uniform: mean + mean-free uniform noise in [-amplitude, amplitude]; cosine and mode: "
     "mean + amplitude cos(mode 2 pi x / L) (on heat1d's insulated rod [0, L], cosine is the "
     "rod's own mode mean + amplitude cos(mode pi x / L)); manufactured: the exact solution zeta "
     "of seed 000 eq. 30 with its forcing; radial_sine: amplitude sin(mode pi |x|) (seed 000 eq. "
     "35: mode = 3, amplitude = 1); ramp: the rod with a temperature gradient, mean + amplitude "
     "(2 x / L - 1) (seed 001)"},
    {"initial", "amplitude", CONFIG_REAL, "0.1", 0, INF, 0, 0, NULL, "", "1",
     "noise amplitude or cosine amplitude"},
    {"initial", "mean", CONFIG_REAL, "0", -INF, INF, 0, 0, NULL, "", "1",
     "the member's mean <C>, conserved by every periodic model"},
    {"initial", "mode", CONFIG_INT, "1", 1, 16777216, 0, 0, NULL, "", "",
     "Fourier mode of cosine and mode initial conditions; the 3 of radial_sine's sin(3 pi r)"},
    {"output", "path", CONFIG_STRING, "out/cohort.nc", 0, 0, 0, 0, NULL, "", "",
     "NetCDF-4 file to write (-o overrides)"},
    {"output", "archive", CONFIG_ENUM, "final", 0, 0, 0, 0, "none|final|snapshots", "", "",
     "which member states to store: none, the final state C(member, x), or snapshots"},
    {"output", "precision", CONFIG_ENUM, "double", 0, 0, 0, 0, "double|float", "", "",
     "storage precision of archived states"},
    {"output", "snapshot_every", CONFIG_REAL, "10", 0, INF, 1, 0, NULL, "", "1",
     "interval between archived snapshots (archive = snapshots)"},
    {"output", "member_series", CONFIG_BOOL, "false", 0, 0, 0, 0, NULL, "", "",
     "also store ell(t, member) for every member"},
    {"output", "checkpoint_every", CONFIG_REAL, "600", 0, INF, 0, 0, NULL, EVOLVING, "s",
     "wall-clock seconds between checkpoints of a run in progress (OUT.checkpoint beside "
     "OUT.partial; cohort run --resume continues from it); 0: at every record and the end of "
     "every chunk. A run also checkpoints when SIGINT, SIGTERM or SIGUSR1 stops it"},
    {"analysis", "fit_from", CONFIG_REAL, "1", 0, INF, 0, 0, NULL, "", "1",
     "start time of the fit of ell_mean against ln t"},
    {"analysis", "bootstrap", CONFIG_INT, "1000", 0, 100000, 0, 0, NULL, "", "",
     "resamples of the block bootstrap that gives the fits of the length and of 1/k1 their "
     "standard errors and 95% intervals, and <l>_mean its 95% band (0: none; the ordinary "
     "least-squares errors are always stored)"},
    {"analysis", "structure_factor", CONFIG_BOOL, "false", 0, 0, 0, 0, NULL, "", "",
     "at every output time, structure_factor(t, k) (mean |C^_k|^2 over active members) and "
     "k1(t)"},
    {"analysis", "kmeans", CONFIG_INT, "0", 0, 16, 0, 1, NULL, "", "clusters",
     "cluster the members' final states into this many clusters (0: off): label(member), "
     "centroid(cluster, x); auto: the number in 2..8 of the highest mean silhouette"},
    {"analysis", "kmeans_restarts", CONFIG_INT, "5", 1, 1000, 0, 0, NULL, "", "",
     "k-means++ seedings; the lowest inertia is kept"},
    {"analysis", "kmeans_max_iter", CONFIG_INT, "300", 1, 100000, 0, 0, NULL, "", "",
     "Lloyd iterations per seeding at most"},
    {"analysis", "kmeans_tol", CONFIG_REAL, "0", 0, INF, 0, 0, NULL, "", "1",
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
static void schema_init(void)
{
    if (N_KEYS) return;
    size_t n_models = 0;
    const cohort_model *const *models = cohort_models(&n_models);
    for (size_t c = 0; c < N_COMMON; ++c) {
        schema[N_KEYS] = common[c];
        const char *group = common[c].models;
        if (group == GRID_1D || group == GRID_2D || group == BOUNDED || group == ADAPTIVE ||
            group == STEPPED || group == STEADY || group == EVOLVING) {
            for (size_t m = 0; m < n_models; ++m) {
                const cohort_model *d = models[m];
                const int reads = group == GRID_1D    ? d->dimension == 1
                                  : group == GRID_2D  ? d->dimension == 2
                                  : group == BOUNDED  ? d->boundaries != NULL
                                  : group == STEPPED  ? d->stepping && d->stepping->steppers != NULL
                                  : group == STEADY   ? d->steady != NULL
                                  : group == EVOLVING ? d->steady == NULL
                                                      : d->adaptive != NULL;
                if (reads) append_word(key_models[N_KEYS], MODEL_LIST, d->name, " ");
            }
            schema[N_KEYS].models = key_models[N_KEYS];
        }
        ++N_KEYS;
        if (strcmp(common[c].section, "model") || strcmp(common[c].name, "name")) continue;
        schema[N_KEYS - 1].default_value = cohort_model_default();
        for (size_t m = 0; m < n_models; ++m) {
            append_word(model_names, sizeof model_names, models[m]->name, "|");
            for (int j = 0; j < models[m]->n_params; ++j) {
                const cohort_model_param *q = &models[m]->params[j];
                size_t k = 0;
                while (k < N_KEYS &&
                       (strcmp(schema[k].section, "model") || strcmp(schema[k].name, q->key)))
                    ++k;
                if (k == N_KEYS && N_KEYS < MAX_KEYS - N_COMMON)
                    schema[N_KEYS++] =
                        (config_key){"model", q->key,        CONFIG_REAL,      q->default_value,
                                     q->min,  q->max,        q->min_exclusive, 0,
                                     NULL,    key_models[k], q->units,         q->meaning};
                append_word(key_models[k], MODEL_LIST, models[m]->name, " ");
            }
        }
    }
    for (size_t k = 0; k < N_KEYS; ++k)
        if (!strcmp(schema[k].section, "model") && !strcmp(schema[k].name, "name"))
            schema[k].allowed = model_names;
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

/* ---- small helpers ---- */

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

static int fail(char *err, size_t len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, len, fmt, ap);
    va_end(ap);
    return COHORT_ERR_CONFIG;
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
static void suggest_key(const char *section, const char *name, char *out, size_t len)
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

static void suggest_section(const char *section, char *out, size_t len)
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

static int find_key(const char *section, const char *name)
{
    for (size_t k = 0; k < N_KEYS; ++k)
        if (!strcmp(schema[k].section, section) && !strcmp(schema[k].name, name)) return (int)k;
    return -1;
}

static int known_section(const char *section)
{
    for (size_t s = 0; s < N_SECTIONS; ++s)
        if (!strcmp(sections[s], section)) return 1;
    return 0;
}

/* A number, or a multiple of pi: "2*pi", "2pi", "pi", "pi/2", "0.5*pi/3". */
static int parse_real(const char *text, double *out)
{
    char *end = NULL;
    const char *p = text;
    while (isspace((unsigned char)*p)) ++p;
    double v = 1.0;
    errno = 0;
    if (strncmp(p, "pi", 2) != 0) {
        v = strtod(p, &end);
        if (end == p || errno == ERANGE) return 0;
        p = end;
        while (isspace((unsigned char)*p)) ++p;
        if (*p == '*') ++p;
        while (isspace((unsigned char)*p)) ++p;
        if (*p == '\0') {
            *out = v;
            return isfinite(v);
        }
    }
    if (strncmp(p, "pi", 2) != 0) return 0;
    p += 2;
    v *= 3.14159265358979323846;
    while (isspace((unsigned char)*p)) ++p;
    if (*p == '/') {
        const double d = strtod(p + 1, &end);
        if (end == p + 1 || d == 0.0) return 0;
        v /= d;
        p = end;
    }
    while (isspace((unsigned char)*p)) ++p;
    *out = v;
    return *p == '\0' && isfinite(v);
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

/* Parses `text` for key k into v; on failure, the message names origin, key, value, allowed. */
/* The longest line libinih reads whole (its buffer holds INI_MAX_LINE bytes with the line break
 * and the terminator); a longer one it cuts silently. */
enum { CONFIG_LINE_MAX = INI_MAX_LINE - 2, CONFIG_FILE_MAX = 16 << 20 /* bytes */ };

/* Whether `text` survives the INI the output stores (config_render writes "key = text", which
 * libinih reads back): no control characters, no space at either end, and no ';' at the start or
 * after a space, where libinih would take it for a comment. */
static int ini_representable(const char *text)
{
    const size_t n = strlen(text);
    if (n > 0 && (isspace((unsigned char)text[0]) || isspace((unsigned char)text[n - 1]))) return 0;
    for (size_t i = 0; i < n; ++i)
        if (iscntrl((unsigned char)text[i]) ||
            (text[i] == ';' && (i == 0 || isspace((unsigned char)text[i - 1]))))
            return 0;
    return 1;
}

static int assign(const config_key *k, const char *text, const char *origin, config_value *v,
                  char *err, size_t len)
{
    char allowed[256];
    config_describe_range(k, allowed, sizeof allowed);
    config_value nv;
    memset(&nv, 0, sizeof nv);
    snprintf(nv.text, sizeof nv.text, "%s", text);
    snprintf(nv.origin, sizeof nv.origin, "%s", origin);
    int ok = 1;
    if (k->allow_auto && !strcmp(text, "auto")) {
        nv.is_auto = 1;
    } else if (k->type == CONFIG_REAL) {
        ok = parse_real(text, &nv.number) && nv.number <= k->max &&
             (k->min_exclusive ? nv.number > k->min : nv.number >= k->min);
    } else if (k->type == CONFIG_INT) {
        char *end = NULL;
        errno = 0;
        long long i = strtoll(text, &end, 10);
        ok = end != text && *end == '\0' && errno != ERANGE && (double)i >= k->min &&
             (double)i <= k->max && !(k->min_exclusive && (double)i == k->min);
        nv.integer = i;
        nv.number = (double)i;
    } else if (k->type == CONFIG_ENUM) {
        ok = config_list_has(k->allowed, '|', text);
    } else if (k->type == CONFIG_BOOL) {
        ok = !strcmp(text, "true") || !strcmp(text, "false");
        nv.integer = !strcmp(text, "true");
    } else {
        ok = text[0] != '\0' && strlen(text) < CONFIG_TEXT - 1;
    }
    if (!ok)
        return fail(err, len, "%s: %s.%s = '%s': expected %s", origin, k->section, k->name, text,
                    allowed);
    *v = nv;
    return COHORT_OK;
}

/* start:stop:count (inclusive linspace) or v1,v2,... */
static int parse_sweep(const config_key *k, const char *spec, const char *origin, config_sweep *sw,
                       char *err, size_t len)
{
    char buf[CONFIG_TEXT], allowed[256];
    snprintf(buf, sizeof buf, "%s", spec);
    config_describe_range(k, allowed, sizeof allowed);
    sw->key = (size_t)(k - schema);
    snprintf(sw->spec, sizeof sw->spec, "%s", spec);
    snprintf(sw->origin, sizeof sw->origin, "%s", origin);
    const char *bad = NULL;
    if (strchr(buf, ':')) {
        char *a = buf, *b = strchr(a, ':'), *c = b ? strchr(b + 1, ':') : NULL;
        double start, stop;
        char *end = NULL;
        if (!b || !c || strchr(c + 1, ':')) {
            bad = "expected start:stop:count";
        } else {
            *b = *c = '\0';
            long long count = strtoll(c + 1, &end, 10);
            if (!parse_real(a, &start) || !parse_real(b + 1, &stop) || end == c + 1 || *end ||
                count < 1 || count > (1LL << 24) || (count == 1 && start != stop))
                bad = "expected start:stop:count with numbers and 1 <= count <= 2^24 (count = 1 "
                      "needs start = stop)";
            else {
                sw->count = count;
                sw->values = malloc((size_t)count * sizeof(double));
                if (!sw->values) return fail(err, len, "%s: out of memory", origin);
                for (long long i = 0; i < count; ++i)
                    sw->values[i] = count == 1
                                        ? start
                                        : start + (stop - start) * (double)i / (double)(count - 1);
            }
        }
    } else {
        sw->count = 1;
        for (const char *p = buf; *p; ++p) sw->count += *p == ',';
        sw->values = malloc((size_t)sw->count * sizeof(double));
        if (!sw->values) return fail(err, len, "%s: out of memory", origin);
        int64_t i = 0;
        for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ","))
            if (!parse_real(tok, &sw->values[i++])) bad = "expected numbers separated by commas";
        if (i != sw->count) bad = "expected numbers separated by commas (an empty entry)";
    }
    for (int64_t i = 0; !bad && i < sw->count; ++i) {
        const double x = sw->values[i];
        if (x > k->max || (k->min_exclusive ? x <= k->min : x < k->min))
            bad = "a value is outside the key's range";
    }
    if (bad) {
        free(sw->values);
        sw->values = NULL;
        return fail(err, len, "%s: sweep of %s.%s = '%s': %s (each value must be %s)", origin,
                    k->section, k->name, spec, bad, allowed);
    }
    return COHORT_OK;
}

/* ---- loading ---- */

typedef struct load_state {
    cohort_config *c;
    const char *path, *text; /* the file and its contents, to find line numbers */
    unsigned char *seen;     /* keys given in the file */
    int rc;
    char *err;
    size_t err_len;
} load_state;

/* The line of the nth `name` (from 1) in [section] of the file (inih reports none to its
 * handler). */
static int line_of(const char *text, const char *section, const char *name, int nth)
{
    char current[CONFIG_TEXT] = "";
    int line = 0;
    for (const char *p = text; *p;) {
        ++line;
        const char *eol = strchr(p, '\n');
        const size_t n = eol ? (size_t)(eol - p) : strlen(p);
        const char *s = p;
        while (s < p + n && isspace((unsigned char)*s)) ++s;
        if (*s == '[') {
            const char *close = memchr(s, ']', (size_t)(p + n - s));
            if (close) {
                const char *a = s + 1, *b = close;
                while (a < b && isspace((unsigned char)*a)) ++a;
                while (b > a && isspace((unsigned char)b[-1])) --b;
                snprintf(current, sizeof current, "%.*s", (int)(b - a), a);
            }
        } else if (!strcmp(current, section) && !strncmp(s, name, strlen(name))) {
            const char *q = s + strlen(name);
            while (q < p + n && isspace((unsigned char)*q)) ++q;
            if ((*q == '=' || *q == ':') && --nth == 0) return line;
        }
        p += n + (eol ? 1 : 0);
    }
    return 0;
}

static int apply(cohort_config *c, const char *section, const char *name, const char *value,
                 const char *origin, char *err, size_t len)
{
    if (!ini_representable(value))
        return fail(err, len,
                    "%s: %s.%s = '%s': a value cannot hold a control character, begin or end "
                    "with a space, or have ';' at its start or after a space (the configuration "
                    "stored in the output could not hold it)",
                    origin, section, name, value);
    if (strlen(name) + 3 + strlen(value) > CONFIG_LINE_MAX) /* "name = value" */
        return fail(err, len,
                    "%s: %s.%s: a value of %zu characters is too long (a line of the configuration "
                    "holds %d)",
                    origin, section, name, strlen(value), (int)CONFIG_LINE_MAX);
    char hint[2 * CONFIG_TEXT + 32];
    if (!known_section(section)) {
        suggest_section(section, hint, sizeof hint);
        return fail(err, len,
                    "%s: unknown section [%s]%s; sections are [model] [grid] [time] [solver] "
                    "[ensemble] [initial] [sweep] [output] [analysis]",
                    origin, section, hint);
    }
    if (!strcmp(section, "sweep")) {
        if (!strcmp(name, "design")) {
            if (strcmp(value, "grid") && strcmp(value, "zip"))
                return fail(err, len, "%s: sweep.design = '%s': expected grid or zip", origin,
                            value);
            c->design_grid = !strcmp(value, "grid");
            return COHORT_OK;
        }
        if (!strcmp(name, "replicates")) {
            char *end = NULL;
            long long r = strtoll(value, &end, 10);
            if (end == value || *end || r < 1 || r > (1LL << 30))
                return fail(err, len,
                            "%s: sweep.replicates = '%s': expected an integer in [1, "
                            "2^30]",
                            origin, value);
            c->replicates = r;
            return COHORT_OK;
        }
        const char *dot = strchr(name, '.');
        char sec[CONFIG_TEXT];
        snprintf(sec, sizeof sec, "%.*s", dot ? (int)(dot - name) : 0, name);
        const int k = dot ? find_key(sec, dot + 1) : -1;
        if (k < 0 || schema[k].type != CONFIG_REAL ||
            (strcmp(sec, "model") && strcmp(name, "initial.mean") &&
             strcmp(name, "initial.amplitude"))) {
            if (dot)
                suggest_key(sec, dot + 1, hint, sizeof hint);
            else
                hint[0] = '\0';
            return fail(err, len,
                        "%s: sweep.%s: not a sweepable key%s; a sweep line is "
                        "'section.key = start:stop:count' or '= v1,v2,...' for a model "
                        "parameter, initial.mean or initial.amplitude, or design / "
                        "replicates",
                        origin, name, hint);
        }
        for (int s = 0; s < c->n_sweeps; ++s)
            if (c->sweeps[s].key == (size_t)k) { /* a later line replaces an earlier one */
                free(c->sweeps[s].values);
                c->sweeps[s].values = NULL; /* parse_sweep frees what it made on failure */
                c->sweeps[s].count = 0;
                return parse_sweep(&schema[k], value, origin, &c->sweeps[s], err, len);
            }
        if (c->n_sweeps == CONFIG_MAX_SWEEPS)
            return fail(err, len, "%s: more than %d swept keys", origin, CONFIG_MAX_SWEEPS);
        int rc = parse_sweep(&schema[k], value, origin, &c->sweeps[c->n_sweeps], err, len);
        if (rc == COHORT_OK) ++c->n_sweeps;
        return rc;
    }
    const int k = find_key(section, name);
    if (k < 0) {
        suggest_key(section, name, hint, sizeof hint);
        return fail(err, len, "%s: unknown key %s.%s%s", origin, section, name, hint);
    }
    return assign(&schema[k], value, origin, &c->values[k], err, len);
}

static int config_ini_entry(void *user, const char *section, const char *name, const char *value)
{
    load_state *st = user;
    if (st->rc != COHORT_OK) return 1; /* report the first problem only */
    char origin[CONFIG_ORIGIN];
    const int k = find_key(section, name);
    /* a repeated key: the line of its second occurrence, not its first */
    const int line = line_of(st->text, section, name, k >= 0 && st->seen[k] ? 2 : 1);
    snprintf(origin, sizeof origin, "%s:%d", st->path, line);
    if (k >= 0) {
        if (st->seen[k]) {
            st->rc = fail(st->err, st->err_len, "%s: %s.%s given twice (first at %s)", origin,
                          section, name, st->c->values[k].origin);
            return 1;
        }
        st->seen[k] = 1;
    }
    st->rc = apply(st->c, section, name, value, origin, st->err, st->err_len);
    return 1;
}

/* The text of the configuration file `path`: a regular file (not a device or a pipe, which may
 * never end; /dev/null is empty) of at most CONFIG_FILE_MAX bytes, and text: a NUL byte would
 * silently end it. */
static char *read_file(const char *path, char *err, size_t len, int *rc)
{
    const int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) {
        *rc = fail(err, len, "%s: cannot read the configuration: %s", path, strerror(errno));
        if (fd >= 0) close(fd);
        return NULL;
    }
    if (paths_null_device(&st))
        st.st_size = 0; /* cohort run /dev/null --set ...: no keys */
    else if (!S_ISREG(st.st_mode) || st.st_size > CONFIG_FILE_MAX) {
        *rc = !S_ISREG(st.st_mode)
                  ? fail(err, len, "%s: the configuration is not a regular file", path)
                  : fail(err, len, "%s: the configuration has %lld bytes; at most %d are read",
                         path, (long long)st.st_size, (int)CONFIG_FILE_MAX);
        close(fd);
        return NULL;
    }
    /* a byte more than its size: a file that grows while read is refused */
    const size_t limit = (size_t)st.st_size + 1;
    char *buf = malloc(limit + 1);
    size_t used = 0;
    for (ssize_t got = 1; buf && got > 0 && used < limit; used += (size_t)got)
        if ((got = read(fd, buf + used, limit - used)) < 0) got = 0;
    close(fd);
    const char *nul = buf ? memchr(buf, '\0', used) : NULL;
    if (!buf || used == limit || nul) {
        int line = 1;
        for (const char *p = buf; nul && p < nul; ++p) line += *p == '\n';
        *rc = !buf ? fail(err, len, "%s: out of memory", path)
              : nul
                  ? fail(err, len, "%s:%d: a NUL byte: the configuration must be text", path, line)
                  : fail(err, len, "%s: the configuration grew while it was read", path);
        free(buf);
        return NULL;
    }
    buf[used] = '\0';
    return buf;
}

/* Key k's value left at the schema's default becomes `text`, still "default" to messages. */
static int model_default(cohort_config *c, const char *section, const char *name, const char *text,
                         char *err, size_t len)
{
    const int k = find_key(section, name);
    if (strcmp(c->values[k].origin, "default")) return COHORT_OK; /* given */
    return assign(&schema[k], text, "default", &c->values[k], err, len);
}

int config_members_identical(const cohort_config *c)
{
    const cohort_model *m = cohort_model_find(c->values[find_key("model", "name")].text);
    if (!m || m->steady) return 1; /* a steady model starts every member alike */
    return strcmp(c->values[find_key("initial", "kind")].text, "uniform") != 0 ||
           c->values[find_key("initial", "amplitude")].number == 0.0;
}

/* The keys a configuration left out whose default is the model's (model.h): initial.kind and
 * model.boundary, its first; an adaptive model's time.output_every, t_end over its default_records;
 * and ensemble.members, 1 where every member would be the same (no noise and nothing swept). */
static int model_defaults(cohort_config *c, char *err, size_t len)
{
    const cohort_model *m = cohort_model_find(c->values[find_key("model", "name")].text);
    if (!m) return COHORT_OK; /* the schema allows registered names only */
    char text[CONFIG_TEXT];
    snprintf(text, sizeof text, "%.*s", (int)strcspn(m->initial_kinds, "|"), m->initial_kinds);
    int rc = model_default(c, "initial", "kind", text, err, len);
    if (rc == COHORT_OK && m->boundaries) { /* its first condition (heat1d's rod: neumann) */
        snprintf(text, sizeof text, "%.*s", (int)strcspn(m->boundaries, "|"), m->boundaries);
        rc = model_default(c, "model", "boundary", text, err, len);
    }
    if (rc == COHORT_OK && m->adaptive && m->defaults->default_records > 0) {
        snprintf(text, sizeof text, "%.17g",
                 c->values[find_key("time", "t_end")].number /
                     (double)m->defaults->default_records);
        rc = model_default(c, "time", "output_every", text, err, len);
    }
    if (rc == COHORT_OK && c->n_sweeps == 0 && config_members_identical(c))
        rc = model_default(c, "ensemble", "members", "1", err, len);
    return rc;
}

/* Defaults, then `text` (NULL: none; `name` in messages), then the --set arguments, then the
 * model's own defaults of the keys still unset. */
static int load(cohort_config *c, const char *name, const char *text, const char *const *sets,
                int n_sets, char *err, size_t err_len)
{
    schema_init();
    memset(c, 0, sizeof *c);
    c->design_grid = 1;
    c->replicates = 1;
    c->values = calloc(N_KEYS, sizeof *c->values);
    if (!c->values) return fail(err, err_len, "out of memory");
    int rc = COHORT_OK;
    for (size_t k = 0; k < N_KEYS && rc == COHORT_OK; ++k)
        rc = assign(&schema[k], schema[k].default_value, "default", &c->values[k], err, err_len);
    if (rc == COHORT_OK && text) {
        int line = 1;
        for (const char *p = text; *p && rc == COHORT_OK; ++line) {
            const size_t n = strcspn(p, "\n");
            if (n > CONFIG_LINE_MAX)
                rc = fail(err, err_len, "%s:%d: a line of %zu characters; lines hold at most %d",
                          name, line, n, (int)CONFIG_LINE_MAX);
            p += n + (p[n] == '\n');
        }
    }
    if (rc == COHORT_OK && text) {
        load_state st = {c, name, text, calloc(N_KEYS, 1), COHORT_OK, err, err_len};
        if (!st.seen) rc = fail(err, err_len, "out of memory");
        if (rc == COHORT_OK) {
            const int syntax = ini_parse_string(st.text, config_ini_entry, &st);
            if (st.rc != COHORT_OK)
                rc = st.rc;
            else if (syntax > 0)
                rc = fail(err, err_len, "%s:%d: not an INI line ('[section]' or 'key = value')",
                          name, syntax);
        }
        free(st.seen);
    }
    for (int i = 0; i < n_sets && rc == COHORT_OK; ++i) {
        char origin[CONFIG_ORIGIN], section[CONFIG_TEXT];
        snprintf(origin, sizeof origin, "--set %s", sets[i]);
        const char *eq = strchr(sets[i], '='), *dot = strchr(sets[i], '.');
        if (!eq || !dot || dot > eq || dot == sets[i]) {
            rc = fail(err, err_len, "%s: expected --set section.key=value", origin);
            break;
        }
        snprintf(section, sizeof section, "%.*s", (int)(dot - sets[i]), sets[i]);
        char key[CONFIG_TEXT];
        snprintf(key, sizeof key, "%.*s", (int)(eq - dot - 1), dot + 1);
        rc = apply(c, section, key, eq + 1, origin, err, err_len);
    }
    /* a key overridden on the command line for a model that does not read it would change
     * nothing, silently: refused instead (a file's keys may serve several models, as when
     * --set model.name switches between them, so they are not) */
    const int name_key = find_key("model", "name");
    const char *model = rc == COHORT_OK ? c->values[name_key].text : "";
    for (size_t k = 0; k < N_KEYS && rc == COHORT_OK; ++k)
        if (!strncmp(c->values[k].origin, "--set ", 6) && schema[k].models[0] &&
            !config_list_has(schema[k].models, ' ', model))
            rc = fail(err, err_len,
                      "%s: %s.%s does not apply to model.name = %s (it is read by: %s; cohort "
                      "models lists each model's keys)",
                      c->values[k].origin, schema[k].section, schema[k].name, model,
                      schema[k].models);
    if (rc == COHORT_OK) rc = model_defaults(c, err, err_len);
    if (rc != COHORT_OK) config_free(c);
    return rc;
}

int config_load(cohort_config *c, const char *path, const char *const *sets, int n_sets, char *err,
                size_t err_len)
{
    int rc = COHORT_OK;
    char *text = path ? read_file(path, err, err_len, &rc) : NULL;
    if (rc != COHORT_OK) {
        memset(c, 0, sizeof *c);
        return rc;
    }
    rc = load(c, path, text, sets, n_sets, err, err_len);
    free(text);
    return rc;
}

int config_load_text(cohort_config *c, const char *name, const char *text, char *err,
                     size_t err_len)
{
    return load(c, name, text, NULL, 0, err, err_len);
}

int config_copy(const cohort_config *c, cohort_config *copy)
{
    size_t n_keys;
    config_schema(&n_keys);
    *copy = *c;
    copy->values = malloc(n_keys * sizeof *copy->values);
    for (int s = 0; s < c->n_sweeps; ++s) copy->sweeps[s].values = NULL;
    int ok = copy->values != NULL;
    if (ok) memcpy(copy->values, c->values, n_keys * sizeof *copy->values);
    for (int s = 0; ok && s < c->n_sweeps; ++s) {
        const size_t bytes = (size_t)c->sweeps[s].count * sizeof(double);
        ok = (copy->sweeps[s].values = malloc(bytes)) != NULL;
        if (ok) memcpy(copy->sweeps[s].values, c->sweeps[s].values, bytes);
    }
    if (!ok) config_free(copy);
    return ok ? COHORT_OK : COHORT_FAIL(COHORT_ERR_NO_MEMORY, "a copy of the configuration");
}

void config_set_integer(cohort_config *c, const char *section, const char *name, int64_t value,
                        const char *origin)
{
    config_value *v = (config_value *)config_get(c, section, name);
    v->integer = value, v->number = (double)value, v->is_auto = 0;
    snprintf(v->text, sizeof v->text, "%lld", (long long)value);
    snprintf(v->origin, sizeof v->origin, "%s", origin);
}

void config_free(cohort_config *c)
{
    for (int s = 0; s < c->n_sweeps; ++s) free(c->sweeps[s].values);
    free(c->values);
    memset(c, 0, sizeof *c);
}

const config_value *config_get(const cohort_config *c, const char *section, const char *name)
{
    schema_init();
    const int k = find_key(section, name);
    return k >= 0 ? &c->values[k] : NULL;
}

const config_value *config_get_key(const cohort_config *c, const char *dotted)
{
    const char *dot = strchr(dotted, '.');
    char section[CONFIG_TEXT];
    if (!dot || dot - dotted >= (ptrdiff_t)sizeof section) return NULL;
    snprintf(section, sizeof section, "%.*s", (int)(dot - dotted), dotted);
    return config_get(c, section, dot + 1);
}

double config_real(const cohort_config *c, const char *section, const char *name)
{
    return config_get(c, section, name)->number;
}

char *config_render(const cohort_config *c)
{
    size_t cap = 8192, used = 0;
    char *out = malloc(cap);
    if (!out) return NULL;
    out[0] = '\0';
    const char *model = config_get(c, "model", "name")->text;
#define EMIT(...)                                                                                  \
    do {                                                                                           \
        int w_ = snprintf(out + used, cap - used, __VA_ARGS__);                                    \
        if (w_ < 0) break;                                                                         \
        if ((size_t)w_ >= cap - used) {                                                            \
            char *bigger_ = realloc(out, cap = 2 * cap + (size_t)w_);                              \
            if (!bigger_) {                                                                        \
                free(out);                                                                         \
                return NULL;                                                                       \
            }                                                                                      \
            out = bigger_;                                                                         \
            w_ = snprintf(out + used, cap - used, __VA_ARGS__);                                    \
        }                                                                                          \
        used += (size_t)w_;                                                                        \
    } while (0)
    for (size_t s = 0; s < N_SECTIONS; ++s) {
        EMIT("%s[%s]\n", s ? "\n" : "", sections[s]);
        if (!strcmp(sections[s], "sweep")) {
            EMIT("design = %s\nreplicates = %lld\n", c->design_grid ? "grid" : "zip",
                 (long long)c->replicates);
            for (int w = 0; w < c->n_sweeps; ++w)
                EMIT("%s.%s = %s\n", schema[c->sweeps[w].key].section,
                     schema[c->sweeps[w].key].name, c->sweeps[w].spec);
            continue;
        }
        /* only the keys the run's model reads, and those every model reads */
        for (size_t k = 0; k < N_KEYS; ++k)
            if (!strcmp(schema[k].section, sections[s]) &&
                (!schema[k].models[0] || config_list_has(schema[k].models, ' ', model)))
                EMIT("%s = %s\n", schema[k].name, c->values[k].text);
    }
#undef EMIT
    return out;
}

/* Whether two rendered configurations differ (the checkpoint cadence aside), and the first key
 * that does as "section.key" (for --resume's refusal). */
/* "section.key" of a rendered line (the whole line where it has no '='). */
static void rendered_key(const char *section, const char *line, size_t l, char *key, size_t len)
{
    const char *eq = memchr(line, '=', l);
    size_t kl = eq ? (size_t)(eq - line) : l;
    while (kl > 0 && line[kl - 1] == ' ') --kl;
    snprintf(key, len, "%s.%.*s", section, (int)kl, line);
}

int config_rendered_difference(const char *a, const char *b, char *key, size_t len)
{
    /* keys that do not change what a run computes: its checkpoint cadence and its chunking */
    static const char *const neutral[] = {"output.checkpoint_every", "ensemble.chunk"};
    char section[64] = "";
    while (*a || *b) {
        const char *ea = strchr(a, '\n'), *eb = strchr(b, '\n');
        const size_t la = ea ? (size_t)(ea - a) : strlen(a), lb = eb ? (size_t)(eb - b) : strlen(b);
        const char *line = la ? a : b;
        const size_t l = la ? la : lb;
        if (line[0] == '[' && l < sizeof section) {
            snprintf(section, sizeof section, "%.*s", (int)(l > 2 ? l - 2 : 0), line + 1);
        }
        if (la != lb || memcmp(a, b, la)) {
            char key_b[160];
            rendered_key(section, line, l, key, len);
            rendered_key(section, b, lb, key_b, sizeof key_b);
            int same_neutral_key = 0;
            for (size_t k = 0; k < sizeof neutral / sizeof *neutral; ++k)
                same_neutral_key |= !strcmp(key, neutral[k]) && !strcmp(key_b, neutral[k]);
            if (!same_neutral_key) return 1;
        }
        a = ea ? ea + 1 : a + la, b = eb ? eb + 1 : b + lb;
    }
    return 0;
}
