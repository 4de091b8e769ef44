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
expect 0 'arithmetic: generation 2, the same bits on the cpu and cuda backends' -- --version
expect 0 'cohort 0\.2\.0' -- --version
expect 2 "unknown command 'bogus'" -- bogus
expect 0 'hyperdiffusion1d' -- models
expect 0 'model.gamma +default 0.01' -- models
expect 0 'usage: cohort models' -- models --help
expect 2 "unexpected argument 'x'" -- models x
expect 2 "unexpected argument 'x'" -- models --table x
expect 0 'ch1d_forced.+f0' -- models --table
expect 0 '^model	dimension	conserves_mean	cpu_cuda_rtol	key	default	min	max	min_exclusive	initial_kind	bounded	steady' -- models --table
# issue 52: the [sweep] keys listed, help CMD, -V, and init saying what it wrote
expect 0 'design = grid  \(one of grid\|zip\|lhs\|sobol\|saltelli\)' -- models
expect 0 'points = auto  \(an integer in \[1, 2\^32\]; auto: ensemble.members\)' -- models
expect 0 'replicates = 1  \(an integer in \[1, 2\^30\]\)' -- models
expect 0 'usage: cohort run CONFIG.ini' -- help run
expect 0 'usage: cohort merge PART.nc' -- help merge
expect 2 "unknown command 'bogus' \(commands: run, init, merge" -- help bogus
expect 0 'NetCDF-C [0-9]' -- -V
cli_dir=$(mktemp -d)
expect 0 "wrote $cli_dir/h.ini: a starter configuration of heat1d; run it with: cohort run $cli_dir/h.ini" \
    -- init heat1d -o "$cli_dir/h.ini"
# a configuration's syntax, as INI files are commonly written: a '#' comment line is one; a
# broken section header is named on its own line, not as an unknown key on the next; a '#'
# after a value is refused, saying to use ';'; a repeated key names both lines
printf '# a comment\n[model]\nname = ch1d ; the model\n[time]\nt_end = 0.5\n' > "$cli_dir/hash.ini"
expect 0 "wrote $cli_dir/hash.nc" -- run "$cli_dir/hash.ini" --set ensemble.members=2 \
    --set grid.n=16 -o "$cli_dir/hash.nc"
# a second run on the same output: the refusal alone, before any note of what the run would do
again=$("$cohort" run "$cli_dir/hash.ini" --set ensemble.members=2 --set grid.n=16 \
    -o "$cli_dir/hash.nc" 2>&1)
if [ $? -eq 2 ] && [ "$(printf '%s\n' "$again" | wc -l)" -eq 1 ] &&
    printf '%s' "$again" | grep -q "hash.nc: the file exists; pass --overwrite"; then
    passed=$((passed + 1))
else
    failed=$((failed + 1)); echo "FAIL: a second run on the same output said: $again"
fi
printf '[model]\nname = ch1d\n\n[time\nt_end = 2\n' > "$cli_dir/header.ini"
expect 2 "header.ini:4: '\[time': a section header needs its closing '\]'" -- \
    run "$cli_dir/header.ini" -o "$cli_dir/header.nc"
printf '[model]\nname = ch1d\n[time]\nt_end = 2 # two\n' > "$cli_dir/inline.ini"
expect 2 "inline.ini:4: time.t_end = '2 # two': '#' starts a comment only at the start of a line; a comment after a value starts with ';'" -- \
    run "$cli_dir/inline.ini" -o "$cli_dir/inline.nc"
printf '[model]\nname = ch1d\ngamma = 0.02\n[time]\nt_end = 2\n[model]\ngamma = 0.03\n' > "$cli_dir/dup.ini"
expect 2 "dup.ini:7: model.gamma given twice \(first at .*dup.ini:3\)" -- \
    run "$cli_dir/dup.ini" -o "$cli_dir/dup.nc"
# no silent keys: a file's key that its own model does not read is refused with its line and
# the models that read it; where --set model.name switches the file to another model, the keys
# that model ignores are a note
printf '[model]\nname = ch1d\nf0 = 5\n' > "$cli_dir/silent.ini"
expect 2 "silent.ini:3: model.f0 does not apply to model.name = ch1d \(it is read by: ch1d_forced" -- \
    run "$cli_dir/silent.ini" -o "$cli_dir/silent.nc"
printf '[model]\nname = ch1d_forced\nf0 = 5\n[grid]\nn = 16\n[time]\nt_end = 0.5\n' > "$cli_dir/switch.ini"
expect 0 "note: model.name = ch1d \(from --set model.name=ch1d\) does not read model.f0 \(.*switch.ini:3\): ignored" -- \
    run "$cli_dir/switch.ini" --set model.name=ch1d --set ensemble.members=2 -o "$cli_dir/switch.nc"
# laws only where they hold: ch1d fits ell against ln t; diffusion1d and the forced flow map
# fit nothing, store no fit and print none, and keep the mean's band
# check NAME CONDITION: CONDITION (a shell expression) holds
check() { if eval "$2"; then passed=$((passed + 1)); else failed=$((failed + 1)); echo "FAIL: $1"; fi; }
for m in ch1d diffusion1d ch1d_forced; do
    "$cohort" run "$cli_dir/hash.ini" --set model.name=$m --set ensemble.members=4 \
        --set grid.n=16 --set time.t_end=3 -o "$cli_dir/law-$m.nc" > "$cli_dir/law-$m.log" 2>&1
    "$cohort" info "$cli_dir/law-$m.nc" > "$cli_dir/law-$m.info" 2>&1
done
check "ch1d lacks its fit" "grep -q '^ell_mean = .* ln t' '$cli_dir/law-ch1d.log' && grep -q ell_vs_log_t_slope '$cli_dir/law-ch1d.info'"
for m in diffusion1d ch1d_forced; do
    check "$m prints or stores a fit" "! grep -q 'ell_mean = ' '$cli_dir/law-$m.log' && ! grep -Eq 'vs_log_t|_exponent' '$cli_dir/law-$m.info' && grep -q ell_mean_ci95 '$cli_dir/law-$m.info'"
done
check "a printed formula holds '+ -'" "! grep -q '+ -' '$cli_dir'/law-*.log"
# each model's starter and listing hold only the text that applies to it, numbers short
for m in mcf2d heat1d convdiff2d willmore2d ch1d; do
    "$cohort" init $m -o "$cli_dir/$m.ini" > /dev/null 2>&1
done
check "mcf2d's starter mentions heat1d's rod" "! grep -Eq \"heat1d's|rod\" '$cli_dir/mcf2d.ini'"
check "heat1d's starter calls its domain periodic" "! grep -qi periodic '$cli_dir/heat1d.ini'"
check "mcf2d (no length) has fit_from or member_series" \
    "! grep -Eq '^(fit_from|member_series) =' '$cli_dir/mcf2d.ini'"
check "ch1d (a length) lacks fit_from" "grep -q '^fit_from = ' '$cli_dir/ch1d.ini'"
check "convdiff2d's grid is not the unit square's" \
    "grep -q 'interior points along x of the unit square' '$cli_dir/convdiff2d.ini' && ! grep -q '^length =' '$cli_dir/convdiff2d.ini'"
check "willmore2d's output_every is not short" "grep -qx 'output_every = 0.0005' '$cli_dir/willmore2d.ini'"
"$cohort" models > "$cli_dir/models.txt" 2>&1
check "cohort models lists output.checkpoint_every other than once" \
    "[ \$(grep -c 'output.checkpoint_every' '$cli_dir/models.txt') -eq 1 ]"
check "cohort models lacks each model's starter values" \
    "grep -q \"cohort init's values: grid.nx = 32, grid.ny = 32, time.t_end = 0.1\" '$cli_dir/models.txt'"
check "cohort models shows heat1d's boundary default as dirichlet" \
    "grep -q 'model.boundary default neumann one of neumann' '$cli_dir/models.txt'"
[ ! -e "$cli_dir/header.nc" ] && [ ! -e "$cli_dir/inline.nc" ] && [ ! -e "$cli_dir/dup.nc" ] &&
    [ ! -e "$cli_dir/silent.nc" ] ||
    { failed=$((failed + 1)); echo "FAIL: a refused configuration left a file"; }
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
