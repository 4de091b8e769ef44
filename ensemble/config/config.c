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
#include "config/config_schema.h"
#include "config/design.h"
#include "io/paths.h"
#include "models/model.h"

static int fail(char *err, size_t len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, len, fmt, ap);
    va_end(ap);
    return COHORT_ERR_CONFIG;
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

/* lo:hi or lo:hi:log (a space-filling design's range; the caller has checked the form): NULL,
 * or what is wrong. */
static const char *parse_range(char *a, char *b, char *c, config_sweep *sw)
{
    sw->range = 1;
    sw->log = c != NULL;
    if (c && strcmp(c, "log")) return "expected start:stop:count, lo:hi or lo:hi:log";
    if (!parse_real(a, &sw->lo) || !parse_real(b, &sw->hi) || !(sw->lo < sw->hi))
        return "a range lo:hi needs numbers lo < hi";
    if (sw->log && !(sw->lo > 0.0)) return "a log range lo:hi:log needs lo > 0";
    return NULL;
}

/* start:stop:count (inclusive linspace): NULL, or what is wrong. */
static const char *parse_linspace(const char *a, const char *b, const char *c, config_sweep *sw)
{
    double start, stop;
    char *end = NULL;
    long long count = strtoll(c, &end, 10);
    if (!parse_real(a, &start) || !parse_real(b, &stop) || end == c || *end || count < 1 ||
        count > (1LL << 24) || (count == 1 && start != stop))
        return "expected start:stop:count with numbers and 1 <= count <= 2^24 (count = 1 "
               "needs start = stop)";
    sw->count = count;
    if (!(sw->values = malloc((size_t)count * sizeof(double)))) return "out of memory";
    for (long long i = 0; i < count; ++i)
        sw->values[i] =
            count == 1 ? start : start + (stop - start) * (double)i / (double)(count - 1);
    return NULL;
}

/* v1,v2,...: NULL, or what is wrong. */
static const char *parse_list(char *buf, config_sweep *sw)
{
    sw->count = 1;
    for (const char *p = buf; *p; ++p) sw->count += *p == ',';
    if (!(sw->values = malloc((size_t)sw->count * sizeof(double)))) return "out of memory";
    int64_t i = 0;
    const char *bad = NULL;
    for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ","))
        if (!parse_real(tok, &sw->values[i++])) bad = "expected numbers separated by commas";
    if (i != sw->count) bad = "expected numbers separated by commas (an empty entry)";
    return bad;
}

/* Whether every value of sw (a range: both ends) lies in key k's range. */
static int sweep_in_range(const config_key *k, const config_sweep *sw)
{
    const int64_t n = sw->range ? 2 : sw->count;
    for (int64_t i = 0; i < n; ++i) {
        const double x = sw->range ? (i ? sw->hi : sw->lo) : sw->values[i];
        if (x > k->max || (k->min_exclusive ? x <= k->min : x < k->min)) return 0;
    }
    return 1;
}

/* start:stop:count (inclusive linspace), v1,v2,..., or a range lo:hi or lo:hi:log */
static int parse_sweep(const config_key *k, const char *spec, const char *origin, config_sweep *sw,
                       char *err, size_t len)
{
    char buf[CONFIG_TEXT], allowed[256];
    snprintf(buf, sizeof buf, "%s", spec);
    config_describe_range(k, allowed, sizeof allowed);
    size_t n_keys;
    sw->key = (size_t)(k - config_schema(&n_keys));
    snprintf(sw->spec, sizeof sw->spec, "%s", spec);
    snprintf(sw->origin, sizeof sw->origin, "%s", origin);
    sw->range = sw->log = 0;
    const char *bad = NULL;
    char *b = strchr(buf, ':'), *c = b ? strchr(b + 1, ':') : NULL;
    if (b) *b++ = '\0';
    if (c) *c++ = '\0';
    if (!b)
        bad = parse_list(buf, sw);
    else if (c && strchr(c, ':'))
        bad = "expected start:stop:count, lo:hi or lo:hi:log";
    else if (!c || !strcmp(c, "log"))
        bad = parse_range(buf, b, c, sw);
    else
        bad = parse_linspace(buf, b, c, sw);
    if (!bad && !sweep_in_range(k, sw)) bad = "a value is outside the key's range";
    if (bad) {
        free(sw->values);
        sw->values = NULL;
        sw->count = 0;
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

/* Whether value can stand in the INI text a file stores; otherwise says why. */
static int value_storable(const char *section, const char *name, const char *value,
                          const char *origin, char *err, size_t len)
{
    if (!ini_representable(value))
        return fail(err, len,
                    "%s: %s.%s = '%s': a value cannot hold a control character, begin or end "
                    "with a space, or have ';' at its start or after a space (the configuration "
                    "stored in the output could not hold it)",
                    origin, section, name, value);
    const char *hash = strchr(value, '#');
    if (hash && hash > value && isspace((unsigned char)hash[-1]))
        return fail(err, len,
                    "%s: %s.%s = '%s': '#' starts a comment only at the start of a line; a "
                    "comment after a value starts with ';'",
                    origin, section, name, value);
    if (strlen(name) + 3 + strlen(value) > CONFIG_LINE_MAX) /* "name = value" */
        return fail(err, len,
                    "%s: %s.%s: a value of %zu characters is too long (a line of the configuration "
                    "holds %d)",
                    origin, section, name, strlen(value), (int)CONFIG_LINE_MAX);
    return COHORT_OK;
}

/* sweep.NAME = an integer in [1, 2^log2_max] into *out. */
static int sweep_count(const char *name, const char *value, int log2_max, const char *origin,
                       int64_t *out, char *err, size_t len)
{
    char *end = NULL;
    const long long n = strtoll(value, &end, 10);
    if (end == value || *end || n < 1 || n > (1LL << log2_max))
        return fail(err, len, "%s: sweep.%s = '%s': expected an integer in [1, 2^%d]%s", origin,
                    name, value, log2_max, strcmp(name, "points") ? "" : " or auto");
    *out = n;
    return COHORT_OK;
}

/* A [sweep] line: design, replicates, or a swept key's values (a later line of the same key
 * replaces an earlier one). */
static int apply_sweep(cohort_config *c, const char *name, const char *value, const char *origin,
                       char *err, size_t len)
{
    if (!strcmp(name, "design")) {
        const int design = design_from_name(value);
        if (design < 0)
            return fail(err, len,
                        "%s: sweep.design = '%s': expected grid, zip, lhs, sobol or saltelli",
                        origin, value);
        c->design = design;
        return COHORT_OK;
    }
    if (!strcmp(name, "points")) { /* auto: ensemble.members */
        snprintf(c->points_origin, sizeof c->points_origin, "%s", origin);
        c->points = 0;
        return strcmp(value, "auto") ? sweep_count(name, value, 32, origin, &c->points, err, len)
                                     : COHORT_OK;
    }
    if (!strcmp(name, "replicates"))
        return sweep_count(name, value, 30, origin, &c->replicates, err, len);
    size_t n_keys;
    const config_key *schema = config_schema(&n_keys);
    const char *dot = strchr(name, '.');
    char sec[CONFIG_TEXT], hint[2 * CONFIG_TEXT + 32] = "";
    snprintf(sec, sizeof sec, "%.*s", dot ? (int)(dot - name) : 0, name);
    const int k = dot ? config_schema_find(sec, dot + 1) : -1;
    if (k < 0 || schema[k].type != CONFIG_REAL ||
        (strcmp(sec, "model") && strcmp(name, "initial.mean") &&
         strcmp(name, "initial.amplitude"))) {
        if (dot) config_schema_suggest_key(sec, dot + 1, hint, sizeof hint);
        return fail(err, len,
                    "%s: sweep.%s: not a sweepable key%s; a sweep line is "
                    "'section.key = start:stop:count' or '= v1,v2,...' (design = grid or "
                    "zip) or '= lo:hi' or '= lo:hi:log' (design = lhs, sobol or saltelli) for "
                    "a model parameter, initial.mean or initial.amplitude, or design, points "
                    "or replicates",
                    origin, name, hint);
    }
    for (int s = 0; s < c->n_sweeps; ++s)
        if (c->sweeps[s].key == (size_t)k) {
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

static int apply(cohort_config *c, const char *section, const char *name, const char *value,
                 const char *origin, char *err, size_t len)
{
    int rc = value_storable(section, name, value, origin, err, len);
    if (rc != COHORT_OK) return rc;
    char hint[2 * CONFIG_TEXT + 32];
    if (!config_schema_known_section(section)) {
        config_schema_suggest_section(section, hint, sizeof hint);
        return fail(err, len,
                    "%s: unknown section [%s]%s; sections are [model] [grid] [time] [solver] "
                    "[ensemble] [initial] [sweep] [output] [analysis]",
                    origin, section, hint);
    }
    if (!strcmp(section, "sweep")) return apply_sweep(c, name, value, origin, err, len);
    size_t n_keys;
    const config_key *schema = config_schema(&n_keys);
    const int k = config_schema_find(section, name);
    if (k < 0) {
        config_schema_suggest_key(section, name, hint, sizeof hint);
        return fail(err, len, "%s: unknown key %s.%s%s", origin, section, name, hint);
    }
    return assign(&schema[k], value, origin, &c->values[k], err, len);
}

/* The first line before line `before` (0: in the whole text) that opens a section header and
 * does not close it ("[time"), its text in header: its number, or 0. inih reads the keys after
 * such a line into the section before it, so the header is the mistake to report. */
static int unclosed_section_line(const char *text, int before, char *header, size_t len)
{
    int line = 0;
    for (const char *p = text; *p && (before == 0 || line + 1 < before);) {
        ++line;
        const size_t n = strcspn(p, "\n");
        if (p[0] == '[' && !memchr(p, ']', n)) {
            snprintf(header, len, "%.*s", (int)(n < 40 ? n : 40), p);
            return line;
        }
        p += n + (p[n] == '\n');
    }
    return 0;
}

static int config_ini_entry(void *user, const char *section, const char *name, const char *value)
{
    load_state *st = user;
    if (st->rc != COHORT_OK) return 1; /* report the first problem only */
    char origin[CONFIG_ORIGIN];
    const int k = config_schema_find(section, name);
    /* a repeated key: the line of its second occurrence, not its first */
    const int line = line_of(st->text, section, name, k >= 0 && st->seen[k] ? 2 : 1);
    snprintf(origin, sizeof origin, "%s:%d", st->path, line);
    char header[64];
    const int unclosed = unclosed_section_line(st->text, line, header, sizeof header);
    if (unclosed) {
        st->rc = fail(st->err, st->err_len,
                      "%s:%d: '%s': a section header needs its closing ']' ([section])", st->path,
                      unclosed, header);
        return 1;
    }
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
    size_t n_keys;
    const config_key *schema = config_schema(&n_keys);
    const int k = config_schema_find(section, name);
    if (strcmp(c->values[k].origin, "default")) return COHORT_OK; /* given */
    return assign(&schema[k], text, "default", &c->values[k], err, len);
}

int config_members_identical(const cohort_config *c)
{
    const cohort_model *m = cohort_model_find(c->values[config_schema_find("model", "name")].text);
    if (!m || m->steady) return 1; /* a steady model starts every member alike */
    return strcmp(c->values[config_schema_find("initial", "kind")].text, "uniform") != 0 ||
           c->values[config_schema_find("initial", "amplitude")].number == 0.0;
}

/* The keys a configuration left out whose default is the model's (model.h): initial.kind and
 * model.boundary, its first; an adaptive model's time.output_every, t_end over its default_records;
 * and ensemble.members, 1 where every member would be the same (no noise and nothing swept). */
/* v as the shortest text that reads back as v ("0.0005", not "0.00050000000000000001"). */
static void shortest_text(double v, char *out, size_t len)
{
    for (int digits = 1; digits <= 17; ++digits) {
        snprintf(out, len, "%.*g", digits, v);
        if (strtod(out, NULL) == v) return;
    }
}

static int model_defaults(cohort_config *c, char *err, size_t len)
{
    const cohort_model *m = cohort_model_find(c->values[config_schema_find("model", "name")].text);
    if (!m) return COHORT_OK; /* the schema allows registered names only */
    char text[CONFIG_TEXT];
    snprintf(text, sizeof text, "%.*s", (int)strcspn(m->initial_kinds, "|"), m->initial_kinds);
    int rc = model_default(c, "initial", "kind", text, err, len);
    if (rc == COHORT_OK && m->boundaries) { /* its first condition (heat1d's rod: neumann) */
        snprintf(text, sizeof text, "%.*s", (int)strcspn(m->boundaries, "|"), m->boundaries);
        rc = model_default(c, "model", "boundary", text, err, len);
    }
    if (rc == COHORT_OK && m->adaptive && m->defaults->default_records > 0) {
        shortest_text(c->values[config_schema_find("time", "t_end")].number /
                          (double)m->defaults->default_records,
                      text, sizeof text);
        rc = model_default(c, "time", "output_every", text, err, len);
    }
    if (rc == COHORT_OK && c->n_sweeps == 0 && config_members_identical(c))
        rc = model_default(c, "ensemble", "members", "1", err, len);
    return rc;
}

/* The file's text over the defaults: every line within what libinih reads whole, each key
 * once, the first problem reported with its file:line. */
static int load_text(cohort_config *c, const char *name, const char *text, size_t n_keys, char *err,
                     size_t err_len)
{
    int line = 1;
    for (const char *p = text; *p; ++line) {
        const size_t n = strcspn(p, "\n");
        if (n > CONFIG_LINE_MAX)
            return fail(err, err_len, "%s:%d: a line of %zu characters; lines hold at most %d",
                        name, line, n, (int)CONFIG_LINE_MAX);
        p += n + (p[n] == '\n');
    }
    load_state st = {c, name, text, calloc(n_keys, 1), COHORT_OK, err, err_len};
    if (!st.seen) return fail(err, err_len, "out of memory");
    const int syntax = ini_parse_string(st.text, config_ini_entry, &st);
    free(st.seen);
    if (st.rc != COHORT_OK || syntax <= 0) return st.rc;
    char header[64];
    if (unclosed_section_line(text, 0, header, sizeof header) == syntax)
        return fail(err, err_len, "%s:%d: '%s': a section header needs its closing ']' ([section])",
                    name, syntax, header);
    return fail(err, err_len, "%s:%d: not an INI line ('[section]' or 'key = value')", name,
                syntax);
}

/* A key given for a model that does not read it would change nothing, silently: refused, from
 * the command line or from a file whose own model does not read it. Where --set model.name
 * switched a file to another model, the file's keys that model ignores are noted instead
 * (c->ignored): a file may serve several models. */
static int refuse_unread_keys(cohort_config *c, const char *file_model, char *err, size_t len)
{
    size_t n_keys;
    const config_key *schema = config_schema(&n_keys);
    const char *model = c->values[config_schema_find("model", "name")].text;
    for (size_t k = 0; k < n_keys; ++k) {
        const config_value *v = &c->values[k];
        if (!strcmp(v->origin, "default") || !schema[k].models[0] ||
            config_list_has(schema[k].models, ' ', model))
            continue;
        const int from_set = !strncmp(v->origin, "--set ", 6);
        if (!from_set && strcmp(file_model, model) &&
            config_list_has(schema[k].models, ' ', file_model)) {
            const size_t used = strlen(c->ignored);
            snprintf(c->ignored + used, sizeof c->ignored - used, "%s%s.%s (%s)", used ? ", " : "",
                     schema[k].section, schema[k].name, v->origin);
            continue;
        }
        return fail(err, len,
                    "%s: %s.%s does not apply to model.name = %s (it is read by: %s; cohort "
                    "models lists each model's keys)",
                    v->origin, schema[k].section, schema[k].name, model, schema[k].models);
    }
    return COHORT_OK;
}

/* Defaults, then `text` (NULL: none; `name` in messages), then the --set arguments, then the
 * model's own defaults of the keys still unset. */
static int load(cohort_config *c, const char *name, const char *text, const char *const *sets,
                int n_sets, char *err, size_t err_len)
{
    size_t n_keys;
    const config_key *schema = config_schema(&n_keys);
    memset(c, 0, sizeof *c);
    c->design = DESIGN_GRID;
    c->replicates = 1;
    c->values = calloc(n_keys, sizeof *c->values);
    if (!c->values) return fail(err, err_len, "out of memory");
    int rc = COHORT_OK;
    for (size_t k = 0; k < n_keys && rc == COHORT_OK; ++k)
        rc = assign(&schema[k], schema[k].default_value, "default", &c->values[k], err, err_len);
    if (rc == COHORT_OK && text) rc = load_text(c, name, text, n_keys, err, err_len);
    /* the model the file itself runs, before --set may switch it */
    char file_model[CONFIG_TEXT] = "";
    if (rc == COHORT_OK)
        snprintf(file_model, sizeof file_model, "%s",
                 c->values[config_schema_find("model", "name")].text);
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
    if (rc == COHORT_OK) rc = refuse_unread_keys(c, file_model, err, err_len);
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
        if (!bytes) continue; /* a range */
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
    const int k = config_schema_find(section, name);
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
