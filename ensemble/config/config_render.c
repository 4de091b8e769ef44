/* A configuration as INI text (config.h): what every output file stores and --resume compares. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/config.h"
#include "config/config_schema.h"
#include "config/design.h"

char *config_render(const cohort_config *c)
{
    size_t n_keys, n_sections;
    const config_key *schema = config_schema(&n_keys);
    const char *const *sections = config_sections(&n_sections);
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
    for (size_t s = 0; s < n_sections; ++s) {
        EMIT("%s[%s]\n", s ? "\n" : "", sections[s]);
        if (!strcmp(sections[s], "sweep")) {
            EMIT("design = %s\nreplicates = %lld\n", design_name((design_kind)c->design),
                 (long long)c->replicates);
            if (c->points) EMIT("points = %lld\n", (long long)c->points);
            for (int w = 0; w < c->n_sweeps; ++w)
                EMIT("%s.%s = %s\n", schema[c->sweeps[w].key].section,
                     schema[c->sweeps[w].key].name, c->sweeps[w].spec);
            continue;
        }
        /* only the keys the run's model reads, and those every model reads */
        for (size_t k = 0; k < n_keys; ++k)
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
