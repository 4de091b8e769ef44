#!/bin/sh
# The command line as a user meets it: help, version, exit statuses, messages for bad input.
cohort=${1:?usage: test_cli.sh PATH_TO_COHORT}
passed=0 failed=0

# expect STATUS PATTERN -- ARGS...: runs cohort ARGS, checks the exit status and that the
# combined output matches PATTERN (grep -E)
expect() {
    want=$1 pattern=$2; shift 3
    out=$("$cohort" "$@" 2>&1); got=$?
    if [ "$got" -eq "$want" ] && printf '%s' "$out" | grep -Eq -- "$pattern"; then
        passed=$((passed + 1))
    else
        failed=$((failed + 1))
        printf 'FAIL: cohort %s -> status %s (want %s), output:\n%s\n---\n' "$*" "$got" "$want" "$out"
    fi
}

expect 0 'usage:' -- --help
expect 0 'selfcheck' -- help
expect 2 'usage:' --
expect 0 'NetCDF-C [0-9]' -- --version
expect 0 'GSL [0-9]' -- --version
expect 2 "unknown command 'bogus'" -- bogus
expect 0 'hyperdiffusion1d' -- models
expect 0 'model.gamma +default 0.01' -- models
expect 0 'usage: cohort models' -- models --help
expect 2 "unexpected argument 'x'" -- models x
expect 2 "unexpected argument 'x'" -- models --table x
expect 0 'ch1d_forced.+f0' -- models --table
# issue 52: the [sweep] keys listed, help CMD, -V, and init saying what it wrote
expect 0 'design = grid  \(one of grid\|zip\)' -- models
expect 0 'replicates = 1  \(an integer in \[1, 2\^30\]\)' -- models
expect 0 'usage: cohort run CONFIG.ini' -- help run
expect 0 'usage: cohort merge PART.nc' -- help merge
expect 2 "unknown command 'bogus' \(commands: run, init, merge" -- help bogus
expect 0 'NetCDF-C [0-9]' -- -V
cli_dir=$(mktemp -d)
expect 0 "wrote $cli_dir/h.ini: a starter configuration of heat1d; run it with: cohort run $cli_dir/h.ini" \
    -- init heat1d -o "$cli_dir/h.ini"
rm -rf "$cli_dir"
expect 0 'usage: cohort selfcheck' -- selfcheck --help
expect 2 "--n '2'.*integer in \[5, " -- selfcheck --n 2
expect 2 "--n 'x7'" -- selfcheck --n x7
expect 2 "--members '0'" -- selfcheck --members 0
expect 2 "--backend 'gpu'.*auto, cpu, cuda" -- selfcheck --backend gpu
expect 2 "unknown or incomplete option '--frobnicate'" -- selfcheck --frobnicate 1
expect 2 "--seed '': expected an integer" -- selfcheck --seed
expect 2 'exceeds 2\^31' -- selfcheck --n 1048576 --members 4096
expect 0 'selfcheck passed' -- selfcheck --backend cpu --n 64 --members 100
expect 0 'pentadiagonal +periodic .* ok' -- selfcheck --backend cpu --n 7 --members 3 --seed 9
if "$cohort" --version | grep -q 'cuda backend: usable'; then
    expect 0 'selfcheck passed' -- selfcheck --backend cuda --n 300 --members 1000
else
    expect 2 "backend 'cuda' cannot be used" -- selfcheck --backend cuda
fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
