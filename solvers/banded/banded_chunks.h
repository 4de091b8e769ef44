/* The chunked (carry) form of a factor (banded_numerics.h, banded_view.n_chunk): its size and its
 * computation from T's LU. Internal to the banded solver. */
#ifndef COHORT_BANDED_CHUNKS_H
#define COHORT_BANDED_CHUNKS_H

#include <stddef.h>
#include <stdint.h>

#include "banded/banded_numerics.h"

/* Chunks of T's n_band rows. */
int banded_chunks_count(int64_t n_band);

/* Doubles the chunked form of n_band rows of half-bandwidth h occupies. */
size_t banded_chunks_doubles(int64_t n_band, int h);

/* Sets v's chunked form (n_chunk, chunk_fwd and chunk_back in dst, chunk_bottom) from v->coef,
 * the LU of T: the derivatives of each chunk's sweeps by their carries, found by sweeping the
 * unit carries through zero data. */
void banded_chunks_form(banded_view *v, double *dst);

#endif
