/* `cohort init MODEL`: a commented starter configuration of a registered model, from its
 * defaults and its starter (models/model.h), to stdout or a new file. */
#ifndef COHORT_INIT_H
#define COHORT_INIT_H

typedef struct init_options {
    const char *model;
    const char *output_path; /* -o FILE; NULL: stdout */
    int overwrite;
} init_options;

/* 0, or 2 with the message on stderr (an unknown model, a bad path), or 1 (a write failed). The
 * file appears whole or not at all. */
int init_write(const init_options *opt);

#endif
