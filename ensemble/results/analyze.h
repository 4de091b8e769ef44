/* `cohort analyze`: the analyses of `cohort run` (structure factor and k1, k-means with its labels
 * and label map) again, on the archive C of a finished run, read chunk by chunk; and the length
 * fit's bootstrap again from the blocks' moments the run stored (analyze_fit.h). The input is
 * opened read-only; the results go to a new file (written as OUT.partial and renamed on success,
 * so a failure leaves nothing), holding the coordinates, the swept parameters, the analyses and
 * the input's provenance. On the same backend and with the run's chunking of the archive the
 * results equal the run's own bit for bit (the fields are the doubles the run analysed; with
 * output.precision = float the run clustered the rounded fields, as analyze does, but its
 * structure factor used the unrounded ones). */
#ifndef COHORT_ANALYZE_H
#define COHORT_ANALYZE_H

typedef struct analyze_options {
    const char *input;
    const char *output_path; /* NULL: the input's name with .nc replaced by .analysis.nc */
    int overwrite;           /* --overwrite: an existing output file may be replaced */
    int kmeans;              /* clusters; 0: none; -1: as the run's analysis.kmeans */
    int kmeans_auto;         /* --kmeans auto: clusters chosen by the silhouette */
    int structure_factor;    /* 1, 0, or -1: as the run's analysis.structure_factor */
    double from;             /* the structure factor at archived times t >= from */
    int bootstrap;           /* resamples of the length fit's bootstrap; 0: none */
    int sensitivity;         /* --sensitivity: Sobol indices of a Saltelli design */
    const char *backend;     /* auto | cpu | cuda */
    int quiet;
    const char *command_line, *version;
} analyze_options;

/* Returns 0 success; 2 bad usage or input (a missing, foreign, corrupt or truncated file, no
 * archive, wrong shapes; nothing written); 1 failure while running (nothing written). */
int analyze_archive(const analyze_options *opt);

#endif
