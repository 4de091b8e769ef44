/* Initial conditions of 1D members, written on a backend as deviations from the member's mean
 * (the state model1d_step evolves; the mean itself is initial.mean, kept separately):
 *   uniform  mean-free uniform noise in [-amplitude, amplitude]: Philox4x32-10 stream g (the
 *            global member index), values 0 .. N-1 (backend/philox.h), so a member's noise
 *            never depends on the chunking or the backend;
 *   cosine, mode  amplitude cos(2 pi mode x / L) on x_i = i L / N (seed 003, eq. 28). */
#ifndef COHORT_INITIAL_H
#define COHORT_INITIAL_H

#include <stdint.h>

#include "backend/backend.h"
#include "config/initial_spec.h"

/* Doubles of backend memory initial1d_fill needs as scratch for `count` members of n points. */
int64_t initial1d_scratch_values(const initial1d *ic, int64_t n, int64_t count);

/* Writes the initial conditions of global members [first, first + count) into columns
 * [column, column + count) of state (interleaved, ld columns, n points): a chunk's array holds its
 * members from column 0, while the noise follows the global index. amplitude (backend memory,
 * count values, or NULL) multiplies each member's field: a swept initial.amplitude, with
 * ic->amplitude = 1. */
int initial1d_fill(const cohort_backend *be, const initial1d *ic, const double *amplitude,
                   double *state, double *scratch, int64_t n, int64_t ld, int64_t column,
                   int64_t first, int64_t count);

#endif
