/* analysis/cluster_quality.c: the adjusted Rand index and the silhouette against values derived
 * by hand (and equal to scikit-learn 1.2.1's adjusted_rand_score and silhouette_score), the
 * subsample's properties. tests/check_kmeans_quality.py compares a run's stored silhouette with
 * scikit-learn's on the run's own features. */
#include <math.h>
#include <stdlib.h>

#include "analysis/cluster_quality.h"
#include "test_common.h"

static void adjusted_rand(void)
{
    static const unsigned char a[] = {0, 0, 1, 1, 2}, renumbered[] = {2, 2, 0, 0, 1};
    EXPECT(cluster_adjusted_rand(a, renumbered, 5, 3) == 1.0, "renumbering agrees");
    /* all four pairs' contingency cells hold one member: index 0, expected 2 x 2 / 6, maximum 2 */
    static const unsigned char c[] = {0, 0, 1, 1}, d[] = {0, 1, 0, 1};
    EXPECT(fabs(cluster_adjusted_rand(c, d, 4, 2) + 0.5) < 1e-15, "crossed halves: -1/2");
    /* index 2, expected 6 x 3 / 15, maximum (6 + 3) / 2: (2 - 1.2) / (4.5 - 1.2) = 8/33 */
    static const unsigned char e[] = {0, 0, 0, 1, 1, 1}, f[] = {0, 0, 1, 1, 2, 2};
    EXPECT(fabs(cluster_adjusted_rand(e, f, 6, 3) - 8.0 / 33.0) < 1e-15, "%.17g",
           cluster_adjusted_rand(e, f, 6, 3));
    static const unsigned char one[] = {0, 0, 0}, other[] = {1, 1, 1};
    EXPECT(cluster_adjusted_rand(one, other, 3, 2) == 1.0, "one cluster each agrees");
    /* skipped members (255, diverged) count in neither labeling */
    static const unsigned char g[] = {0, 0, 255, 1, 1}, h[] = {1, 1, 0, 0, 0};
    EXPECT(cluster_adjusted_rand(g, h, 5, 2) == 1.0, "the skipped member is left out");
}

static void silhouette(void)
{
    /* 1D points 0, 1 | 10, 11: a = 1 for each, b = 10.5, 9.5, 9.5, 10.5 */
    const double x[] = {0.0, 1.0, 10.0, 11.0};
    const unsigned char labels[] = {0, 0, 1, 1};
    double s = 0.0;
    EXPECT(cluster_silhouette(x, 1, 4, labels, 2, &s) == COHORT_OK, "runs");
    const double expected = (9.5 / 10.5 + 8.5 / 9.5) / 2.0;
    EXPECT(fabs(s - expected) < 1e-15, "%.17g, expected %.17g", s, expected);
    /* a member alone in its cluster counts 0 (scikit-learn 1.2.1: 0.6651256373154896) */
    const double y[] = {0, 0, 0, 1, 5, 5, 9, 9, 9, 8};
    const unsigned char three[] = {0, 0, 1, 2, 2};
    EXPECT(cluster_silhouette(y, 2, 5, three, 3, &s) == COHORT_OK, "runs");
    EXPECT(fabs(s - 0.6651256373154896) < 1e-15, "%.17g", s);
    const unsigned char same[] = {1, 1, 1, 1};
    EXPECT(cluster_silhouette(x, 1, 4, same, 2, &s) == COHORT_OK && isnan(s), "one cluster: NaN");
}

static void sample(void)
{
    int64_t index[1000];
    EXPECT(cluster_sample(7, 10, 20, index) == 10 && index[0] == 0 && index[9] == 9, "all of 10");
    /* 100 of 1000, over 200 seeds: each a distinct ascending draw; every index drawn about 20
     * times (binomial 200 x 0.1: sd 4.2; none outside 0 .. 50) */
    int hits[1000] = {0}, ordered = 1, repeat = 1;
    for (uint64_t seed = 0; seed < 200; ++seed) {
        const int64_t got = cluster_sample(seed, 1000, 100, index);
        EXPECT(got == 100, "seed %llu: %lld drawn", (unsigned long long)seed, (long long)got);
        for (int64_t j = 0; j < got; ++j) {
            ++hits[index[j]];
            if (j > 0 && index[j] <= index[j - 1]) ordered = 0;
        }
        int64_t again[100];
        cluster_sample(seed, 1000, 100, again);
        for (int j = 0; j < 100; ++j) repeat &= again[j] == index[j];
    }
    EXPECT(ordered, "ascending and distinct");
    EXPECT(repeat, "the same seed draws the same members");
    int lo = 1000, hi = 0;
    for (int j = 0; j < 1000; ++j)
        lo = hits[j] < lo ? hits[j] : lo, hi = hits[j] > hi ? hits[j] : hi;
    EXPECT(lo > 0 && hi < 50, "every member drawn 1 .. 49 times of 200: %d .. %d", lo, hi);
}

int main(void)
{
    adjusted_rand();
    silhouette();
    sample();
    return test_summary();
}
