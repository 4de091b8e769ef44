/* What each kind of cohort file holds, decided in one place: the output spec (io/output.h) of a
 * run's file, a part's, a steady run's and cohort analyze's, from the plan, the backend and what
 * the command adds. The plan itself knows nothing of files (config/plan.h). */
#ifndef COHORT_FILE_SPEC_H
#define COHORT_FILE_SPEC_H

#include <stdint.h>

#include "backend/backend.h"
#include "config/plan.h"
#include "io/output.h"

/* The per-member values a run may store (output_spec's member values): an adaptive model's step
 * counts, the errors against the exact solution (seed 000, eq. 31-33). */
enum {
    RUN_VALUE_ACCEPTED,
    RUN_VALUE_REJECTED,
    RUN_VALUE_L1,
    RUN_VALUE_L2,
    RUN_VALUE_LINF,
    RUN_VALUES
};

typedef enum file_kind {
    FILE_KIND_RUN,     /* the file of a run of members [first, end), or of a merge's whole run */
    FILE_KIND_PART,    /* a part of a run for cohort merge: its members and its merge data */
    FILE_KIND_STEADY,  /* a steady model's run: the interior points, the solver's history */
    FILE_KIND_ANALYSIS /* cohort analyze's file of the analyses of an archived run */
} file_kind;

typedef struct file_request {
    file_kind kind;
    const run_plan *plan;
    const cohort_backend *backend;
    const char *path;
    int64_t first, end; /* run and part: the global members the file holds */
    /* what the command adds: the history attribute, "cohort VERSION (git HASH)", the
     * configuration's text, the run's identity; replace: the final rename may replace OUT */
    const char *history, *source, *config, *run_id;
    int replace;
    /* where a merge keeps its first part's: the backend and the device that ran it */
    const char *ran_backend, *ran_device;
    /* steady: the chunk of members, and the iterations of its n_checks history checks */
    int64_t chunk, n_checks;
    const int64_t *check_iterations;
    /* analysis: the archive analysed and the analyses asked for */
    const char *analysed_file;
    int structure_factor, kmeans_k, kmeans_auto;
} file_request;

/* Text a spec points at: the device, the library versions, the swept keys. */
typedef struct file_provenance {
    char device[256], libraries[512];
    char keys[CONFIG_MAX_SWEEPS][2 * CONFIG_TEXT];
} file_provenance;

/* The spec of the file rq asks for; the text it points at lives in *pv, which must outlive the
 * spec's use. value_slot[q] (run and part files) says which RUN_VALUE_* member value q is. */
void file_spec_build(const file_request *rq, file_provenance *pv, output_spec *spec,
                     int value_slot[RUN_VALUES]);

/* The value of each swept parameter of global members [first, first + count), the file's
 * members, into out. */
int file_spec_write_parameters(const run_plan *p, cohort_output *out, int64_t first, int64_t count);

#endif
