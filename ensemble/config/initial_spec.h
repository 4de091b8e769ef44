/* The initial conditions a plan asks for, as typed values (config/plan.h); run/initial.h fills
 * members with them on a backend. */
#ifndef COHORT_INITIAL_SPEC_H
#define COHORT_INITIAL_SPEC_H

#include <stdint.h>

typedef enum { INITIAL_UNIFORM = 0, INITIAL_COSINE = 1, INITIAL_MODE = 2 } initial_kind;

typedef struct initial1d {
    initial_kind kind;
    double amplitude;
    int64_t mode;
    uint64_t seed;
    /* the noise streams' layout (layout_noise_stream): a Saltelli design's arms and replicates,
     * else 1 and 1. The arms AB_j draw their base point's arm A noise: the noise is then one more
     * input of the model, held with A's other inputs, so that f(A) - f(AB_j) is parameter j's
     * change alone and Jansen's totals count no noise in (docs/design.md, "Designs and
     * sensitivity") */
    int64_t noise_arms, noise_replicates;
} initial1d;

#endif
