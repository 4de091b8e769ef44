/* The run configuration: an INI file (parsed by libinih) plus `--set section.key=value`
 * overrides, checked against one schema table that also feeds `cohort models` and the resolved
 * configuration stored in every output file. A user's mistake is reported with where it came
 * from (file:line or the --set argument), the key, the value, what is allowed, and the nearest
 * valid key for a typo. */
#ifndef COHORT_CONFIG_H
#define COHORT_CONFIG_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef enum {
    CONFIG_REAL,  /* a number; lengths also accept multiples of pi ("2*pi", "pi/2") */
    CONFIG_INT,   /* a whole number */
    CONFIG_ENUM,  /* one of `allowed` ("a|b|c") */
    CONFIG_BOOL,  /* true|false */
    CONFIG_STRING /* free text (paths) */
} config_type;

/* Which models read a key. */
typedef enum {
    CONFIG_READ_BY_ALL,      /* every model */
    CONFIG_READ_BY_1D,       /* the 1D models (grid.n) */
    CONFIG_READ_BY_2D,       /* the 2D models (grid.nx, grid.ny) */
    CONFIG_READ_BY_BOUNDED,  /* the models on a bounded grid (model->boundaries) */
    CONFIG_READ_BY_ADAPTIVE, /* the adaptive models (model->adaptive) */
    CONFIG_READ_BY_STEPPED,  /* the models that offer several steppers */
    CONFIG_READ_BY_STEADY,   /* the steady models (model->steady) */
    CONFIG_READ_BY_EVOLVING, /* the time-dependent models */
    CONFIG_READ_BY_PARAMETER /* a model parameter: the models that declare it */
} config_readers;

/* A key's text for the models of `readers`, where it differs from its general meaning. */
typedef struct config_meaning_variant {
    config_readers readers;
    const char *text;
} config_meaning_variant;

typedef struct config_key {
    const char *section, *name;
    config_type type;
    const char *default_value; /* as written in a file; "" = unset */
    double min, max;           /* numbers: the allowed range */
    int min_exclusive;         /* min itself is not allowed */
    int allow_auto;            /* "auto" is also accepted */
    const char *allowed;       /* CONFIG_ENUM; CONFIG_STRING: what the text is (NULL: a path) */
    config_readers readers;    /* which models read it */
    const char *models;        /* those models, space-separated ("" = all; set by the schema) */
    const char *units, *meaning;
    /* the text for the models of the first variant that reads it (a bounded model's grid.n: the
     * cells of the rod), else `meaning` */
    config_meaning_variant variants[3];
    int needs_length; /* about the model's length: listed only for models that have one */
} config_key;

/* Whether `list` ("a|b|c" with separator '|', "a b c" with ' ') holds `word` as a whole item. */
int config_list_has(const char *list, char separator, const char *word);

/* The schema, in the order keys are listed and written. */
const config_key *config_schema(size_t *count);
/* The sections, in the order a configuration is written. */
const char *const *config_sections(size_t *count);
struct cohort_model;
/* Key k's meaning as model m reads it (the variant for m's kind of model; initial.kind: the
 * kinds m starts from), into out; m NULL: for every model. */
void config_key_meaning(const config_key *k, const struct cohort_model *m, char *out, size_t len);
/* Whether model m reads key k (listings): its readers name it; a steady model reads no [time]
 * and no [initial] key. */
int config_model_reads(const config_key *k, const struct cohort_model *m);
/* Key k's allowed values as messages and listings state them ("an integer in [1, 16]"). */
void config_describe_range(const config_key *k, char *out, size_t len);

enum { CONFIG_TEXT = 256, CONFIG_MAX_SWEEPS = 8, CONFIG_ORIGIN = 300 };

typedef struct config_value {
    double number;   /* CONFIG_REAL, CONFIG_INT */
    int64_t integer; /* CONFIG_INT, CONFIG_BOOL */
    int is_auto;
    char text[CONFIG_TEXT];     /* the value as given (or the default) */
    char origin[CONFIG_ORIGIN]; /* "file.ini:12", "--set model.gamma=0.02" or "default" */
} config_value;

typedef struct config_sweep {
    size_t key;     /* index into the schema */
    int64_t count;  /* values (0 for a range) */
    double *values; /* count values, in order (NULL for a range) */
    /* a range lo:hi (uniform) or lo:hi:log (log-uniform), for the space-filling designs */
    int range, log;
    double lo, hi;
    char spec[CONFIG_TEXT];
    char origin[CONFIG_ORIGIN];
} config_sweep;

typedef struct cohort_config {
    config_value *values; /* one per schema key */
    config_sweep sweeps[CONFIG_MAX_SWEEPS];
    int n_sweeps;
    int design; /* [sweep] design: a design_kind (design.h) */
    int64_t replicates;
    int64_t points; /* [sweep] points: a space-filling design's points (0: ensemble.members) */
    char points_origin[CONFIG_ORIGIN];
    /* where --set model.name switched a file to another model: the file's keys that model does
     * not read ("grid.n (run.ini:4), ..."), for a note; else "" */
    char ignored[1024];
} cohort_config;

/* Whether every member of a run of `c` starts alike and so runs alike (cohort's models have no
 * noise but the initial one): a steady model, an initial kind without noise, or noise of
 * amplitude 0; the sweeps aside. */
int config_members_identical(const cohort_config *c);

/* `cohort init`: c's model's keys (every key it reads) as a commented INI configuration: its
 * meaning, units, allowed values and default above each key, the value c holds below. */
int config_write_starter(const cohort_config *c, FILE *out);

/* Loads `path` (NULL: defaults only) and applies the `--set` arguments in order. On a bad input
 * returns COHORT_ERR_CONFIG with the whole message in `err`; nothing needs freeing then. */
int config_load(cohort_config *c, const char *path, const char *const *sets, int n_sets, char *err,
                size_t err_len);
/* The same from INI text (the configuration a file stores); `name` stands for the file in
 * messages ("run.nc: config:12"). */
int config_load_text(cohort_config *c, const char *name, const char *text, char *err,
                     size_t err_len);
void config_free(cohort_config *c);
/* copy <- c, its own memory (config_free). COHORT_ERR_NO_MEMORY (copy then needs no freeing). */
int config_copy(const cohort_config *c, cohort_config *copy);
/* Sets the integer key section.name to value, `origin` what messages name as its source (a
 * run's own derivation, such as a run to a target SEM's member count). */
void config_set_integer(cohort_config *c, const char *section, const char *name, int64_t value,
                        const char *origin);

/* The value of section.name (the schema must have it). */
const config_value *config_get(const cohort_config *c, const char *section, const char *name);

/* The value of a dotted key "section.name" (NULL where the schema has none). */
const config_value *config_get_key(const cohort_config *c, const char *dotted);

/* The number section.name holds (CONFIG_REAL or CONFIG_INT). */
double config_real(const cohort_config *c, const char *section, const char *name);

/* The resolved configuration, defaults included, as INI text (malloc'd). */
char *config_render(const cohort_config *c);

/* `cohort models`: every model and the parameters it reads, with defaults, ranges and meaning. */
void config_print_models(FILE *out);
/* `cohort models --table`: a tab-separated line per model parameter (model, dimension,
 * conserves_mean, cpu_cuda_rtol, key, default, min, max, min_exclusive, the first of the model's
 * initial kinds, bounded), for scripts and the generic model tests. */
void config_print_model_table(FILE *out);

/* Whether two configurations rendered by config_render differ in what the run computes
 * (output.checkpoint_every and ensemble.chunk aside, which may change between an interrupted run
 * and its resumption, or between the parts of one run), and the first key that does, as
 * "section.key", into key. */
int config_rendered_difference(const char *a, const char *b, char *key, size_t len);

#endif
