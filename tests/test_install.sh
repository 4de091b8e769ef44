#!/bin/sh
# libcohort as another program meets it: cmake --install into a fresh prefix, then the example
# built against it through find_package(cohort) and through pkg-config, and both run (a solve
# whose residual the example checks against the matrix itself).
# Usage: test_install.sh BUILD_DIR SOURCE_DIR WORKDIR
build=${1:?build} src=${2:?source} dir=${3:?workdir}
here=$(cd "$(dirname "$0")" && pwd)
. "$here/test_lib.sh"
test_workdir "$dir"
prefix="$PWD/prefix"
cmake --install "$build" --prefix "$prefix" > install.log 2>&1
pc=$(find "$prefix" -name cohort.pc) lib=$(dirname "$(find "$prefix" -name 'libcohort.so' | head -1)")
if [ -f "$prefix/include/cohort/banded/banded.h" ] && [ -f "$pc" ] &&
    [ -n "$(find "$prefix" -name cohortConfig.cmake)" ]; then
    ok
else
    bad "cmake --install: $(tail -3 install.log)"
fi
if cmake -S "$src/examples" -B example -DCMAKE_PREFIX_PATH="$prefix" > example.log 2>&1 &&
    cmake --build example >> example.log 2>&1 && LD_LIBRARY_PATH="$lib" example/banded_periodic_batch; then
    ok
else
    bad "example through find_package(cohort): $(tail -5 example.log)"
fi
flags=$(PKG_CONFIG_PATH="$(dirname "$pc")" pkg-config --cflags --libs cohort)
if cc -std=c11 "$src/examples/banded_periodic_batch.c" $flags -lm -o example-pc &&
    LD_LIBRARY_PATH="$lib" ./example-pc; then
    ok
else
    bad "example through pkg-config ($flags)"
fi
test_summary
