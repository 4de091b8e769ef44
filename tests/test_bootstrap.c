/* analysis/bootstrap.c on cases whose answer is known without resampling: fewer than two units
 * give NaN; units that all lie on one line give that line with no spread; the band brackets
 * the units' range; the same seed gives the same bits and another seed other draws.
 * tests/check_bootstrap.py redoes a run's bootstrap in numpy with its own Philox. */
#include <math.h>

#include "analysis/bootstrap.h"
#include "test_common.h"

enum { RECORDS = 6, MEMBERS = 5000, UNIT = 1024 }; /* 5 units, the last of 904 members */

/* records whose unit k has mean a + b x_r + shift_k (count: the unit's members) */
static void fill(moments_units *rec, const double *x, double a, double b, const double *shift)
{
    for (int r = 0; r < RECORDS; ++r) {
        moments_units_alloc(&rec[r], MEMBERS, UNIT, 0, MEMBERS);
        for (int64_t k = 0; k < rec[r].n_units; ++k) {
            const double count = k + 1 < rec[r].n_units ? UNIT : MEMBERS % UNIT;
            rec[r].units[k] = (moments){count, a + b * x[r] + shift[k], 1.0};
        }
    }
}

/* the count-weighted means of RECORDS records (bootstrap_series_means) */
static const bootstrap_series *series_of(const moments_units *rec)
{
    static bootstrap_series series;
    series = bootstrap_series_means(rec, RECORDS);
    return &series;
}

int main(void)
{
    const double x[RECORDS] = {0.0, 0.5, 1.0, 1.5, 2.0, 2.5};
    const unsigned char fit[RECORDS] = {0, 1, 1, 1, 1, 1};
    const double none[5] = {0, 0, 0, 0, 0}, spread[5] = {-0.2, 0.1, 0.0, 0.3, -0.1};
    moments_units rec[RECORDS];
    bootstrap_line b, again;
    double band[2 * RECORDS];

    fill(rec, x, 1.0, 0.25, none); /* every unit on the line 1 + x / 4 */
    EXPECT(bootstrap_fit_line(series_of(rec), fit, x, 0, 200, 9, &b, band) == COHORT_OK, "runs");
    EXPECT(b.units == 5 && b.resamples == 200, "%lld units, %d resamples", (long long)b.units,
           b.resamples);
    EXPECT(fabs(b.slope_ci95[0] - 0.25) < 1e-14 && fabs(b.slope_ci95[1] - 0.25) < 1e-14 &&
               b.slope_se < 1e-14,
           "no spread: slope %.17g .. %.17g, se %g", b.slope_ci95[0], b.slope_ci95[1], b.slope_se);
    EXPECT(fabs(band[2 * 3] - 1.375) < 1e-14 && fabs(band[2 * 3 + 1] - 1.375) < 1e-14,
           "band at x = 1.5: %.17g .. %.17g", band[6], band[7]);
    for (int r = 0; r < RECORDS; ++r) moments_units_free(&rec[r]);

    fill(rec, x, 1.0, 0.25, spread); /* units shifted: the slope stays, the intercept spreads */
    EXPECT(bootstrap_fit_line(series_of(rec), fit, x, 0, 400, 9, &b, band) == COHORT_OK, "runs");
    EXPECT(fabs(b.slope_ci95[0] - 0.25) < 1e-12 && fabs(b.slope_ci95[1] - 0.25) < 1e-12,
           "parallel units: slope %.17g .. %.17g", b.slope_ci95[0], b.slope_ci95[1]);
    EXPECT(b.intercept_se > 0.01 && b.intercept_ci95[0] >= 1.0 - 0.2 - 1e-12 &&
               b.intercept_ci95[1] <= 1.0 + 0.3 + 1e-12 &&
               b.intercept_ci95[0] < b.intercept_ci95[1],
           "intercept within the units' shifts: %g .. %g (se %g)", b.intercept_ci95[0],
           b.intercept_ci95[1], b.intercept_se);
    for (int r = 0; r < RECORDS; ++r)
        EXPECT(band[2 * r] >= 1.0 + 0.25 * x[r] - 0.2 - 1e-12 &&
                   band[2 * r + 1] <= 1.0 + 0.25 * x[r] + 0.3 + 1e-12,
               "band of record %d inside the units' range", r);
    EXPECT(bootstrap_fit_line(series_of(rec), fit, x, 0, 400, 9, &again, NULL) == COHORT_OK &&
               again.intercept_se == b.intercept_se &&
               again.intercept_ci95[0] == b.intercept_ci95[0],
           "the same seed, the same bits");
    EXPECT(bootstrap_fit_line(series_of(rec), fit, x, 0, 400, 10, &again, NULL) == COHORT_OK &&
               again.intercept_se != b.intercept_se,
           "another seed, other draws");
    /* log_y: ln of the means; a record of non-positive mean drops out of a resample's fit */
    EXPECT(bootstrap_fit_line(series_of(rec), fit, x, 1, 50, 9, &b, NULL) == COHORT_OK &&
               isfinite(b.slope_se),
           "log_y runs");
    for (int r = 0; r < RECORDS; ++r) moments_units_free(&rec[r]);

    moments_units one[RECORDS]; /* one unit: nothing to resample */
    for (int r = 0; r < RECORDS; ++r) {
        moments_units_alloc(&one[r], 1000, UNIT, 0, 1000);
        one[r].units[0] = (moments){1000, 1.0 + x[r], 1.0};
    }
    EXPECT(bootstrap_fit_line(series_of(one), fit, x, 0, 100, 9, &b, band) == COHORT_OK &&
               isnan(b.slope_se) && isnan(b.slope_ci95[0]) && isnan(band[0]) && b.units == 1,
           "one unit: NaN");
    for (int r = 0; r < RECORDS; ++r) moments_units_free(&one[r]);
    return test_summary();
}
