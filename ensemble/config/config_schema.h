/* The schema's lookups, for config/ alone (config_schema.c): a key by name, a section, the
 * nearest key or section to a mistyped one. The schema itself is config.h's config_schema(). */
#ifndef COHORT_CONFIG_SCHEMA_H
#define COHORT_CONFIG_SCHEMA_H

#include <stddef.h>

#include "config/config.h"

/* The schema index of section.name, or -1. */
int config_schema_find(const char *section, const char *name);

/* Whether section is one of the sections. */
int config_schema_known_section(const char *section);

/* " (did you mean 'model.gamma'?)" for the closest section.key within 3 edits, else "". */
void config_schema_suggest_key(const char *section, const char *name, char *out, size_t len);

/* " (did you mean [grid]?)" for the closest section within 2 edits, else "". */
void config_schema_suggest_section(const char *section, char *out, size_t len);

#endif
