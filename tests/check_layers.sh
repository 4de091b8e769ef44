#!/bin/sh
# The architecture as the includes draw it (docs/design.md, "The tree of ensemble/"):
# ensemble -> analysis -> solvers -> backend, and inside ensemble/ the folders one way,
# cli -> parts -> run -> results -> config -> io; no file outside cli/ includes a cli/ header;
# the writer's insides (io/output_internal.h) in io/output*.c alone; exit statuses defined in
# exit_status.h alone; the `cohort CMD:` prefix printed by cli/ alone.
# Usage: check_layers.sh SOURCE_DIR
cd "${1:?usage: check_layers.sh SOURCE_DIR}" || exit 1
failures=0
bad() { echo "FAIL: $*"; failures=$((failures + 1)); }

# a folder may include itself and the folders after it in this order, nothing before it
order="cli parts run results config io"
above=""
for folder in $order; do
    for up in $above; do
        hits=$(grep -rln "#include \"$up/" "ensemble/$folder" 2>/dev/null)
        [ -z "$hits" ] || bad "ensemble/$folder includes $up/ (an upper layer):" $hits
    done
    above="$above $folder"
done
hits=$(grep -rlE '#include "(cli|parts|run|results|config|io)/|#include "(exit_status|report)\.h"' \
    analysis solvers)
[ -z "$hits" ] || bad "analysis/ or solvers/ include ensemble/ headers:" $hits
hits=$(grep -rlE '#include "(models|analysis)/' solvers/backend)
[ -z "$hits" ] || bad "solvers/backend includes a model or an analysis:" $hits
hits=$(grep -rlE '#include <netcdf' solvers analysis ensemble/config)
[ -z "$hits" ] || bad "NetCDF outside the writer's layers:" $hits
hits=$(grep -rl '#include <netcdf' ensemble | grep -v '^ensemble/io/')
[ -z "$hits" ] || bad "NetCDF spoken outside io/ (reading: io/cohort_file.h; writing: io/output.h):" $hits
hits=$(grep -rl '#include "io/output.h"' ensemble/config)
[ -z "$hits" ] || bad "the plan includes the writer:" $hits
hits=$(grep -rl '#include "io/output_internal.h"' ensemble | grep -v '^ensemble/io/output[a-z_]*\.[ch]$')
[ -z "$hits" ] || bad "the writer's insides included outside io/output*.c:" $hits
# exit statuses: defined once
hits=$(grep -rnE '(EXIT_BAD_INPUT|EXIT_USAGE|EXIT_FAILURE_RUNNING)[[:space:]]*=' ensemble solvers analysis |
    grep -v '^ensemble/exit_status.h:')
[ -z "$hits" ] || bad "an exit status defined outside exit_status.h: $hits"
# the prefix: only cli/ writes "cohort CMD: " into a message
hits=$(grep -rnE '"\\?n?cohort (run|init|merge|analyze|info|models|selfcheck): ' ensemble solvers analysis |
    grep -v '^ensemble/cli/')
[ -z "$hits" ] || bad "a 'cohort CMD:' prefix outside cli/: $hits"
hits=$(grep -rn 'fprintf(stderr' ensemble --include=*.c | grep -v '^ensemble/cli/\|^ensemble/report.c:')
[ -z "$hits" ] || bad "library code in ensemble/ printing to stderr itself (use report()): $hits"

if [ "$failures" -gt 0 ]; then
    echo "$failures layering check(s) failed"
    exit 1
fi
echo "layers: every include points one way; exit statuses and the prefix in one place each"
