/* cohort info FILE.nc: what a cohort file holds and how it was made (io/cohort_file.h). */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "exit_status.h"
#include "io/cohort_file.h"

int cli_info(int argc, char **argv, int full_argc, char **full_argv)
{
    (void)full_argc, (void)full_argv;
    if (argc == 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
        printf("usage: cohort info FILE.nc\n"
               "\n"
               "Prints what a cohort file holds (sizes, variables) and how it was made (model,\n"
               "seed, backend, device, versions, command line, fit results, the resolved\n"
               "configuration).\n");
        return 0;
    }
    if (argc != 2) {
        fprintf(stderr, "usage: cohort info FILE.nc\n");
        return EXIT_BAD_INPUT;
    }
    char err[1024];
    const int status = cohort_file_describe(argv[1], stdout, err, sizeof err);
    if (status) fprintf(stderr, "cohort info: %s\n", err);
    return status;
}
