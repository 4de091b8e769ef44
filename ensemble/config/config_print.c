/* What a configuration prints for people: `cohort init`'s commented starter and `cohort
 * models`' listing, both from the schema (config.h). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "backend/cohort_error.h"
#include "config/config.h"
#include "models/model.h"

/* `text` as comment lines "; ..." of at most 99 columns, broken at spaces. */
static void comment_wrapped(FILE *out, const char *text)
{
    enum { WIDTH = 97 };
    while (*text) {
        size_t n = strlen(text);
        if (n > WIDTH) {
            n = WIDTH;
            while (n > 0 && text[n] != ' ') --n;
            if (n == 0) n = strcspn(text, " ");
        }
        fprintf(out, "; %.*s\n", (int)n, text);
        text += n;
        while (*text == ' ') ++text;
    }
}

/* Key k's allowed values for model m: its own initial kinds, boundaries, steppers or solver
 * methods where the key chooses among them. */
static void key_range_for(const config_key *k, const cohort_model *m, char *range, size_t len)
{
    const char *own = !strcmp(k->name, "kind")       ? m->initial_kinds
                      : !strcmp(k->name, "boundary") ? m->boundaries
                      : !strcmp(k->name, "stepper")  ? (m->stepping ? m->stepping->steppers : NULL)
                      : !strcmp(k->name, "method") ? (m->steady ? m->steady->solver_methods : NULL)
                                                   : NULL;
    if (own && k->type == CONFIG_ENUM)
        snprintf(range, len, "one of %s", own);
    else
        config_describe_range(k, range, len);
}

/* Key k of the starter: its meaning, units, range and default as a comment, then its value. */
static void starter_key(FILE *out, const config_key *schema, const cohort_config *c,
                        const cohort_model *m, size_t k)
{
    const int j =
        strcmp(schema[k].section, "model") ? -1 : cohort_model_param_index(m, schema[k].name);
    char meaning[2048], range[256], about[4096];
    if (j >= 0)
        snprintf(meaning, sizeof meaning, "%s", m->params[j].meaning);
    else
        config_key_meaning(&schema[k], m, meaning, sizeof meaning);
    const char *fallback = j >= 0 ? m->params[j].default_value : schema[k].default_value;
    const config_value *v = &c->values[k];
    /* the value a configuration without this key gets: the model's where it decides */
    const int decided = !strcmp(v->origin, "default");
    key_range_for(&schema[k], m, range, sizeof range);
    const char *units = !strcmp(schema[k].units, "1") ? "dimensionless" : schema[k].units;
    snprintf(about, sizeof about, "%s.%s: %s [%s%s%s; default %s%s]", schema[k].section,
             schema[k].name, meaning, units, units[0] ? "; " : "", range,
             decided ? v->text : fallback,
             decided && strcmp(v->text, fallback) ? ", the model's" : "");
    comment_wrapped(out, about);
    fprintf(out, "%s = %s\n", schema[k].name, v->text);
}

int config_write_starter(const cohort_config *c, FILE *out)
{
    const cohort_model *m = cohort_model_find(config_get(c, "model", "name")->text);
    if (!m) return COHORT_ERR_CONFIG;
    size_t n_keys = 0, n_sections = 0;
    const config_key *schema = config_schema(&n_keys);
    const char *const *sections = config_sections(&n_sections);
    char head[4096];
    snprintf(head, sizeof head,
             "cohort starter configuration for %s (cohort init %s): %s. Equation: %s. Scheme: %s. "
             "From: %s.",
             m->name, m->name, m->summary, m->equation, m->scheme, m->citation);
    comment_wrapped(out, head);
    fprintf(out,
            ";\n; Run it: cohort run %s.ini    (it writes %s.nc; cohort models lists every model)\n"
            "; Every key %s reads follows: its meaning, [units; allowed values; default],\n"
            "; then its value, sized to run in a few seconds on a laptop's CPU.\n",
            m->name, m->name, m->name);
    for (size_t s = 0; s < n_sections; ++s) {
        if (!strcmp(sections[s], "sweep")) continue;
        int first = 1;
        for (size_t k = 0; k < n_keys; ++k) {
            if (strcmp(schema[k].section, sections[s]) || !config_model_reads(&schema[k], m))
                continue;
            if (first) fprintf(out, "\n[%s]\n", sections[s]);
            first = 0;
            starter_key(out, schema, c, m, k);
        }
    }
    char swept[CONFIG_TEXT + 16] = "initial.mean";
    if (m->n_params > 0) snprintf(swept, sizeof swept, "model.%s", m->params[0].key);
    fprintf(out,
            "\n; [sweep] runs the members over a grid of values (design = grid, the default) or\n"
            "; side by side (design = zip), each point sweep.replicates times, for example:\n"
            "; [sweep]\n; %s = start:stop:count    (or = v1,v2,...)\n"
            "; or over ranges lo:hi (lo:hi:log: log-uniform) with a space-filling design of\n"
            "; sweep.points points (design = lhs, sobol or saltelli; saltelli: d + 2 members a\n"
            "; point, for cohort analyze --sensitivity), for example:\n"
            "; design = saltelli\n; points = 256\n; %s = lo:hi\n",
            swept, swept);
    return ferror(out) ? COHORT_ERR_IO : COHORT_OK;
}

/* The defaults of shared keys that each model owns (model_defaults), as `cohort models` states
 * them; NULL for a key whose default is the schema's. */
static const char *model_owned_default(const char *section, const char *name)
{
    static const struct {
        const char *section, *name, *text;
    } owned[] = {
        {"initial", "kind", "the model's first (listed with it above)"},
        {"time", "output_every", "1; adaptive models: t_end / 10"},
        {"ensemble", "members", "4096; 1 where every member would be alike (no noise, no sweep)"},
    };
    for (size_t i = 0; i < sizeof owned / sizeof owned[0]; ++i)
        if (!strcmp(owned[i].section, section) && !strcmp(owned[i].name, name))
            return owned[i].text;
    return NULL;
}

/* Whether key k is listed with each model that reads it rather than once for all: keys of some
 * models only, not those every time-dependent model reads. */
static int listed_per_model(const config_key *k)
{
    return k->models[0] && k->readers != CONFIG_READ_BY_EVOLVING;
}

/* Model d's entry: what it is, then the keys only some models read, with d's own defaults,
 * ranges and texts, then the values its starter (cohort init) gives the shared keys. */
static void print_model(FILE *out, const cohort_model *d, const config_key *schema, size_t n_keys)
{
    fprintf(out, "%s\n  %dD: %s\n  %s\n  %s\n  from: %s\n  initial.kind: %s; conserves <C>: %s",
            d->name, d->dimension, d->summary, d->equation, d->scheme, d->citation,
            d->initial_kinds, d->conserves_mean ? "yes" : "no");
    if (d->statistics)
        fprintf(out, "; reports %s = %s, %s", d->statistics->length_name,
                d->statistics->length_meaning,
                d->statistics->fit == COHORT_FIT_LINEAR_IN_LOG_T ? "fitted as a + b ln t"
                : d->statistics->fit == COHORT_FIT_POWER_LAW     ? "fitted as a t^b"
                                                                 : "no law fitted");
    for (int q = 0; d->observing && q < d->observing->n_observables; ++q)
        fprintf(out, "%s%s", q ? ", " : "; reports ", d->observing->observables[q].name);
    if (d->observing && d->observing->exact_kind)
        fprintf(out, "; with initial.kind = %s, errors against the exact solution",
                d->observing->exact_kind);
    fputc('\n', out);
    char range[256], meaning[2048], key[64];
    for (size_t k = 0; k < n_keys; ++k) {
        if (!listed_per_model(&schema[k]) || !config_model_reads(&schema[k], d)) continue;
        key_range_for(&schema[k], d, range, sizeof range);
        snprintf(key, sizeof key, "%s.%s", schema[k].section, schema[k].name);
        /* a model key: this model's own default and meaning */
        const int j =
            strcmp(schema[k].section, "model") ? -1 : cohort_model_param_index(d, schema[k].name);
        const cohort_model_param *own = j >= 0 ? &d->params[j] : NULL;
        config_key_meaning(&schema[k], d, meaning, sizeof meaning);
        /* the model's first boundary condition is its default (heat1d's rod: neumann) */
        char first_of[64] = "";
        if (!strcmp(key, "model.boundary") && d->boundaries)
            snprintf(first_of, sizeof first_of, "%.*s", (int)strcspn(d->boundaries, "|"),
                     d->boundaries);
        const int factor_key =
            own && d->member_factors && !strcmp(own->key, d->member_factors->key);
        char per_member[128] = "";
        if (j >= 0 && j == d->per_member_param)
            snprintf(per_member, sizeof per_member, " (sweepable per member)");
        else if (factor_key)
            snprintf(per_member, sizeof per_member,
                     " (sweepable per member, each its own factor, where %s)",
                     d->member_factors->where);
        fprintf(out, "    %-12s default %-6s %s: %s%s\n", key,
                own           ? own->default_value
                : first_of[0] ? first_of
                              : schema[k].default_value,
                range, own ? own->meaning : meaning, per_member);
    }
    const char *const *starter = d->defaults ? d->defaults->starter : NULL;
    for (int i = 0; starter && starter[i]; i += 2)
        fprintf(out, "%s%s = %s", i ? ", " : "  cohort init's values: ", starter[i],
                starter[i + 1]);
    if (starter && starter[0]) fputc('\n', out);
}

void config_print_models(FILE *out)
{
    size_t n_keys = 0;
    const config_key *schema = config_schema(&n_keys);
    size_t n_models = 0;
    const cohort_model *const *models = cohort_models(&n_models);
    for (size_t m = 0; m < n_models; ++m) {
        print_model(out, models[m], schema, n_keys);
        fputc('\n', out);
    }
    char range[256], meaning[2048];
    fprintf(out, "keys every model reads (steady models: no [time] or [initial] key; models "
                 "without a length: no fit_from or member_series):\n");
    for (size_t k = 0; k < n_keys; ++k) {
        if (listed_per_model(&schema[k])) continue;
        config_describe_range(&schema[k], range, sizeof range);
        config_key_meaning(&schema[k], NULL, meaning, sizeof meaning);
        const char *owned = model_owned_default(schema[k].section, schema[k].name);
        fprintf(out, "  %s.%s = %s  (%s)\n      %s%s\n", schema[k].section, schema[k].name,
                owned                        ? owned
                : schema[k].default_value[0] ? schema[k].default_value
                                             : "(none)",
                range,
                schema[k].readers == CONFIG_READ_BY_EVOLVING ? "time-dependent models: " : "",
                meaning);
    }
    /* the [sweep] lines, which apply() reads apart from the schema */
    fprintf(out,
            "the [sweep] section (a value per member; it sets ensemble.members):\n"
            "  SECTION.KEY = START:STOP:COUNT or = V1,V2,...  (a model parameter, initial.mean or "
            "initial.amplitude)\n"
            "      e.g. model.gamma = 0.01:0.03:5; several lines sweep several keys\n"
            "  SECTION.KEY = LO:HI or = LO:HI:log  (for design = lhs, sobol or saltelli)\n"
            "      a range each member's value is drawn from, uniform or log-uniform\n"
            "  design = grid  (one of grid|zip|lhs|sobol|saltelli)\n"
            "      grid: every combination of the swept values; zip: the i-th values together;\n"
            "      lhs: a Latin hypercube; sobol: a scrambled (digitally shifted) Sobol sequence;\n"
            "      saltelli: the A, B and AB_j members of a Sobol base sequence, d + 2 a point\n"
            "      (analysis.sensitivity = sobol streams their Sobol indices in the run;\n"
            "      cohort analyze --sensitivity computes them from a file's member series)\n"
            "  points = auto  (an integer in [1, 2^32]; auto: ensemble.members)\n"
            "      a space-filling design's points (sobol and saltelli: a power of two)\n"
            "  replicates = 1  (an integer in [1, 2^30])\n"
            "      members at each point of the sweep, each with its own noise\n");
}

void config_print_model_table(FILE *out)
{
    size_t n_models = 0;
    const cohort_model *const *models = cohort_models(&n_models);
    /* a model without parameters gets one line with key "-" and range (-inf, inf) */
    static const cohort_model_param none = {"-", "-", -INFINITY, INFINITY, 0, "1", ""};
    fprintf(out, "model\tdimension\tconserves_mean\tcpu_cuda_rtol\tkey\tdefault\tmin\tmax\t"
                 "min_exclusive\tinitial_kind\tbounded\tsteady\n");
    for (size_t m = 0; m < n_models; ++m)
        for (int j = 0; j < (models[m]->n_params ? models[m]->n_params : 1); ++j) {
            const cohort_model *d = models[m];
            const cohort_model_param *q = d->n_params ? &d->params[j] : &none;
            fprintf(out, "%s\t%d\t%d\t%.3g\t%s\t%s\t%.17g\t%.17g\t%d\t%.*s\t%d\t%d\n", d->name,
                    d->dimension, d->conserves_mean, d->cpu_cuda_rtol, q->key, q->default_value,
                    q->min, q->max, q->min_exclusive, (int)strcspn(d->initial_kinds, "|"),
                    d->initial_kinds, d->boundaries != NULL, d->steady != NULL);
        }
}
