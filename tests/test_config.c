/* The run configuration: defaults, files, --set overrides, pi expressions, sweeps, the resolved
 * text, and a clear message (origin, key, value, what is allowed, nearest key) for each kind of
 * bad input. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend/cohort_error.h"
#include "config/config.h"
#include "config/design.h"
#include "models/model.h"
#include "test_common.h"

static char path[256];

static void write_config(const char *text)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        perror(path);
        exit(1);
    }
    fputs(text, f);
    fclose(f);
}

/* Loads `text` (NULL: no file) with the --set arguments; returns the status, err filled. */
static int load(const char *text, const char *const *sets, int n_sets, cohort_config *c, char *err)
{
    if (text) write_config(text);
    err[0] = '\0';
    return config_load(c, text ? path : NULL, sets, n_sets, err, 1024);
}

static void expect_error(const char *text, const char *set, const char *needle1,
                         const char *needle2)
{
    cohort_config c;
    char err[1024];
    const char *sets[1] = {set};
    const int rc = load(text, sets, set ? 1 : 0, &c, err);
    EXPECT(rc == COHORT_ERR_CONFIG, "error expected for %s / %s", text ? text : "-",
           set ? set : "-");
    EXPECT(strstr(err, needle1) != NULL, "message '%s' should contain '%s'", err, needle1);
    if (needle2)
        EXPECT(strstr(err, needle2) != NULL, "message '%s' should contain '%s'", err, needle2);
}

/* The defaults: each key holds its schema's value, with origin "default". */
static void defaults_case(void)
{
    cohort_config c;
    char err[1024];
    EXPECT(load(NULL, NULL, 0, &c, err) == COHORT_OK, "defaults: %s", err);
    EXPECT(!strcmp(config_get(&c, "model", "name")->text, "ch1d"), "default model");
    EXPECT(fabs(config_get(&c, "grid", "length")->number - 2.0 * 3.14159265358979323846) < 1e-15,
           "default length 2*pi");
    EXPECT(config_get(&c, "time", "dt")->is_auto, "dt = auto by default");
    EXPECT(!strcmp(config_get(&c, "grid", "n")->origin, "default"), "origin default");
    config_free(&c);
}

/* The resolved text of c (config_render) names every value and loads back to the same ones. */
static void render_reload_check(const cohort_config *c)
{
    char err[1024];
    char *text = config_render(c);
    EXPECT(text && strstr(text, "[model]\nname = ch1d\n") && strstr(text, "gamma = 0.03") &&
               strstr(text, "initial.mean = 0:1.5:4") && strstr(text, "design = zip") &&
               strstr(text, "[analysis]\nfit_from = 1"),
           "resolved text:\n%s", text ? text : "(null)");
    /* the resolved text loads back to the same values */
    cohort_config again;
    if (text) {
        EXPECT(load(text, NULL, 0, &again, err) == COHORT_OK, "reload: %s", err);
        if (again.values) {
            EXPECT(config_get(&again, "model", "gamma")->number == 0.03, "reload gamma");
            EXPECT(again.n_sweeps == 2 && again.design == DESIGN_ZIP, "reload sweeps");
            config_free(&again);
        }
    }
    free(text);
}

/* A file, with comments, pi expressions, a sweep, and --set on top. */
static void good_file_case(void)
{
    cohort_config c;
    char err[1024];
    const char *good = "; a coarsening study\n"
                       "[model]\nname = ch1d\ngamma = 0.02\n\n"
                       "[grid]\nn = 512\nlength = 4*pi\n"
                       "[time]\ndt = 0.001\nt_end = 100\n"
                       "[sweep]\ninitial.mean = 0:1.5:4\nmodel.gamma = 0.01, 0.02\nreplicates = 3\n"
                       "[output]\nmember_series = true\n";
    const char *sets[] = {"model.gamma=0.03", "grid.length=pi/2", "sweep.design=zip"};
    EXPECT(load(good, sets, 3, &c, err) == COHORT_OK, "good file: %s", err);
    if (c.values) {
        EXPECT(config_get(&c, "grid", "n")->integer == 512, "n");
        EXPECT(fabs(config_get(&c, "grid", "length")->number - 3.14159265358979323846 / 2) < 1e-15,
               "--set length = pi/2");
        EXPECT(config_get(&c, "model", "gamma")->number == 0.03, "--set wins over the file");
        EXPECT(strstr(config_get(&c, "model", "gamma")->origin, "--set model.gamma=0.03") != NULL,
               "origin of --set: %s", config_get(&c, "model", "gamma")->origin);
        EXPECT(strcmp(config_get(&c, "grid", "n")->origin, path) != 0 &&
                   strstr(config_get(&c, "grid", "n")->origin, ":7") != NULL,
               "origin file:line: %s", config_get(&c, "grid", "n")->origin);
        EXPECT(config_get(&c, "time", "dt")->number == 0.001 &&
                   !config_get(&c, "time", "dt")->is_auto,
               "dt number");
        EXPECT(config_get(&c, "output", "member_series")->integer == 1, "bool");
        EXPECT(c.n_sweeps == 2 && c.sweeps[0].count == 4 && c.sweeps[0].values[3] == 1.5 &&
                   c.sweeps[0].values[1] == 0.5 && c.sweeps[1].count == 2 &&
                   c.sweeps[1].values[1] == 0.02,
               "sweeps parsed");
        EXPECT(c.replicates == 3 && c.design == DESIGN_ZIP, "replicates and --set design");
        render_reload_check(&c);
        config_free(&c);
    }
}

/* Bad input: each names where, what and what is allowed. */
static void bad_input_cases(void)
{
    expect_error("[modle]\nname = ch1d\n", NULL, "unknown section [modle]", "did you mean [model]");
    expect_error("[model]\ngama = 0.01\n", NULL, ":2: unknown key model.gama",
                 "did you mean 'model.gamma'");
    expect_error("[model]\nname = ch3d\n", NULL, "model.name = 'ch3d'",
                 "diffusion1d|hyperdiffusion1d|ch1d|ch1d_forced");
    expect_error("[grid]\nn = 2\n", NULL, "grid.n = '2'", "integer in [3,");
    expect_error("[time]\ndt = -1\n", NULL, "time.dt = '-1'", "number > 0, or auto");
    expect_error("[time]\ndt = 0\n", NULL, "time.dt = '0'", NULL);
    expect_error("[time]\nt_end = soon\n", NULL, ":2: time.t_end = 'soon'", NULL);
    /* a value the stored configuration could not hold back (found by fuzz_config) */
    expect_error("[output]\npath =;\n", NULL, ":2: output.path = ';'", "could not hold it");
    expect_error(NULL, "output.path=a ;b", "output.path = 'a ;b'", "could not hold it");
    expect_error(NULL, "output.path= x", "output.path = ' x'", "could not hold it");
    expect_error(NULL, "sweep.model.f0= 0:1:3", "sweep.model.f0 = ' 0:1:3'", "could not hold it");
    /* libinih cuts longer lines silently: a long line is refused, and so is a value whose line
     * in the stored configuration would be too long */
    {
        char long_line[400], long_set[400];
        snprintf(long_line, sizeof long_line, "[output]\npath = %0250d\n", 7);
        expect_error(long_line, NULL, ":2: a line of 257 characters; lines hold at most 198", NULL);
        snprintf(long_set, sizeof long_set, "output.path=%0200d", 7);
        expect_error(NULL, long_set, "output.path: a value of 200 characters is too long", NULL);
    }
    expect_error("[grid]\nlength = 2*tau\n", NULL, "grid.length = '2*tau'", NULL);
    expect_error("[grid]\nn = 64\nn = 128\n", NULL, "given twice", ":2");
    /* the repeat is named at its own line, the first at its */
    expect_error("[grid]\nn = 64\n\n[time]\nt_end = 1\n[grid]\nn = 128\n", NULL,
                 ":7: grid.n given twice", "(first at");
    expect_error("[grid]\nn = 64\n\n[time]\nt_end = 1\n[grid]\nn = 128\n", NULL, "given twice",
                 ":2)");
    expect_error("[sweep]\nmodel.f0 = 0:2:x\n", NULL, "expected start:stop:count with numbers",
                 NULL);
    expect_error("[sweep]\nmodel.f0 = 0:2:0\n", NULL, "count <= 2^24", NULL);
    expect_error("[sweep]\nmodel.f0 = 1,,2\n", NULL, "expected numbers", NULL);
    expect_error("[sweep]\nmodel.gamma = -1:1:3\n", NULL, "outside the key's range", NULL);
    expect_error("[sweep]\ngrid.n = 1,2\n", NULL, "not a sweepable key", NULL);
    expect_error("[sweep]\ndesign = lattice\n", NULL, "grid, zip, lhs, sobol or saltelli", NULL);
    expect_error("this is not ini\n", NULL, ":1: not an INI line", NULL);
    expect_error(NULL, "model.gama=1", "--set model.gama=1: unknown key", "model.gamma");
    expect_error(NULL, "gamma=1", "expected --set section.key=value", NULL);
    expect_error(NULL, "sweep.model.f0=0:2:x", "--set sweep.model.f0=0:2:x", NULL);
    {
        const char *missing[] = {NULL};
        cohort_config c;
        char err[1024];
        EXPECT(config_load(&c, "/nonexistent/cohort.ini", missing, 0, err, sizeof err) ==
                       COHORT_ERR_CONFIG &&
                   strstr(err, "cannot read"),
               "missing file: %s", err);
    }
}

/* cohort models: each model lists exactly the parameters it reads. */
static void models_listing_case(void)
{
    char *listing = NULL;
    size_t listing_len = 0;
    FILE *mem = open_memstream(&listing, &listing_len);
    config_print_models(mem);
    fclose(mem);
    const char *ch1d = strstr(listing, "ch1d\n"), *forced = strstr(listing, "ch1d_forced\n");
    EXPECT(ch1d && forced && ch1d < forced, "models listed in order:\n%s", listing);
    if (ch1d && forced) {
        const char *f0 = strstr(ch1d, "model.f0");
        EXPECT(f0 && f0 > forced, "model.f0 is listed under ch1d_forced only");
        EXPECT(strstr(ch1d, "model.gamma") < forced, "model.gamma under ch1d");
    }
    EXPECT(strstr(listing, "grid.n       default 256    an integer in [3, 16777216]") != NULL,
           "ranges exact:\n%s", listing);
    /* ch2d's section ends where the next model's (mcf2d) begins */
    const char *ch2d = strstr(listing, "ch2d\n"), *nx = strstr(listing, "grid.nx");
    const char *after_ch2d = ch2d ? strstr(ch2d, "mcf2d\n") : NULL;
    const char *grid_n = ch2d ? strstr(ch2d, "grid.n ") : NULL;
    EXPECT(ch2d && after_ch2d && nx > ch2d && nx < after_ch2d && (!grid_n || grid_n > after_ch2d),
           "grid.nx under ch2d, which does not read grid.n");
    EXPECT(strstr(listing, "grid.length = 2*pi  (a number > 0)") != NULL,
           "keys every model reads listed with their ranges");
    free(listing);
}

/* The schema keeps one entry per [model] key: models that share a key must agree on its
 * default, range and units (each keeps its own meaning). */
static void shared_params_case(void)
{
    size_t n_models = 0;
    const cohort_model *const *models = cohort_models(&n_models);
    for (size_t a = 0; a < n_models; ++a)
        for (size_t b = a + 1; b < n_models; ++b)
            for (int i = 0; i < models[a]->n_params; ++i) {
                const cohort_model_param *p = &models[a]->params[i];
                const int j = cohort_model_param_index(models[b], p->key);
                if (j < 0) continue;
                const cohort_model_param *q = &models[b]->params[j];
                EXPECT(!strcmp(p->default_value, q->default_value) && p->min == q->min &&
                           p->max == q->max && p->min_exclusive == q->min_exclusive &&
                           !strcmp(p->units, q->units),
                       "model.%s: %s and %s declare it alike", p->key, models[a]->name,
                       models[b]->name);
            }
}

int main(void)
{
    snprintf(path, sizeof path, "/tmp/cohort-test-config-%d.ini", (int)getpid());
    defaults_case();
    good_file_case();
    bad_input_cases();
    models_listing_case();
    shared_params_case();
    remove(path);
    return test_summary();
}
