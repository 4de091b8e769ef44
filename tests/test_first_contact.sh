#!/bin/sh
# A new user's first contact (issue 39), for every model of the registry (cohort models --table):
# (a) the five-line configuration (model name, a small grid, t_end where the model steps in time)
# runs, and a model whose members would all be alike (no noise: heat1d's ramp, the curvature
# flows' manufactured solution, convdiff2d) runs one member; (b) `cohort init MODEL -o FILE`
# writes a configuration that runs as written and equals examples/configs/MODEL.ini, so the
# examples stay what init writes; (c) the refusals name the key at fault: an adaptive model's
# t_end inside one output interval names time.output_every, init with an unknown model lists the
# models; identical members asked for are a note; --resume without a checkpoint says there is
# none; no message carries a source file:line.
# Usage: test_first_contact.sh COHORT BACKEND SOURCE_DIR WORKDIR
cohort=${1:?cohort} backend=${2:?backend} source=${3:?source} dir=${4:?workdir}
. "$(cd "$(dirname "$0")" && pwd)/test_lib.sh"
test_workdir "$dir"
test_needs_backend "$cohort" "$backend"

# no_source_line WHAT TEXT: TEXT names no source file of cohort's
no_source_line() {
    if printf '%s' "$2" | grep -Eq '\.(c|cu|cuh|h):[0-9]+'; then bad "$1 names a source line: $2"; else ok; fi
}

"$cohort" models --table > table-with-header.tsv || bad "cohort models --table"
tail -n +2 table-with-header.tsv > table.tsv
for model in $(cut -f1 table.tsv | uniq); do
    line=$(grep "^$model	" table.tsv | head -1)
    dimension=$(echo "$line" | cut -f2) kind=$(echo "$line" | cut -f10) steady=$(echo "$line" | cut -f12)
    if [ "$dimension" = 2 ]; then grid="nx = 16
ny = 16"; else grid="n = 32"; fi
    if [ "$steady" = 1 ]; then time=""; else time="[time]
t_end = 0.01"; fi
    printf '[model]\nname = %s\n[grid]\n%s\n%s\n' "$model" "$grid" "$time" > "$model-five.ini"
    msg=$("$cohort" run "$model-five.ini" --backend "$backend" -o "$model-five.nc" 2>&1) &&
        ok || bad "$model: the five-line configuration: $msg"
    no_source_line "$model's run" "$msg"
    # (a) alike members: one, unless the configuration asks for more
    members=$("$cohort" info "$model-five.nc" | sed -n 's/^  sizes *\([0-9]*\) members.*/\1/p')
    if [ "$steady" = 1 ] || [ "$kind" != uniform ]; then want=1; else want=4096; fi
    [ "$members" = "$want" ] && ok || bad "$model: $members members from the five lines, expected $want"
    # (b) cohort init
    "$cohort" init "$model" -o "$model.ini" || bad "$model: cohort init"
    cmp -s "$model.ini" "$source/examples/configs/$model.ini" && ok ||
        bad "$model: examples/configs/$model.ini is not what cohort init $model writes (regenerate it)"
    msg=$("$cohort" run "$model.ini" --backend "$backend" --quiet 2>&1) && [ -s "$model.nc" ] &&
        ok || bad "$model: cohort init's configuration does not run: $msg"
done

# (c) seed 000's end time with the curvature flows' defaults; one output interval past t_end
printf '[model]\nname = mcf2d\n[grid]\nnx = 16\nny = 16\n[time]\nt_end = 0.1\ndt = 0.001\n' > m.ini
"$cohort" run m.ini --backend "$backend" --quiet -o m.nc && ok || bad "mcf2d to t_end = 0.1 with dt = 0.001"
expect_refusal m-bad.nc "time.t_end = 0.1 is less than one output interval \(time.output_every = 1, from --set time.output_every=1\)" \
    "$cohort" run m.ini --backend "$backend" --set time.output_every=1 -o m-bad.nc
expect_refusal u.nc "cohort init: 'mcf': no such model; the models are .*mcf2d" "$cohort" init mcf -o u.nc
cp heat1d.ini kept.ini
msg=$("$cohort" init ks1d -o heat1d.ini 2>&1)
[ $? -eq 2 ] && printf '%s' "$msg" | grep -q "heat1d.ini: the file exists" && cmp -s heat1d.ini kept.ini &&
    ok || bad "cohort init over an existing file: $msg"
msg=$("$cohort" run heat1d-five.ini --backend "$backend" --set ensemble.members=3 -o h3.nc 2>&1)
printf '%s' "$msg" | grep -q "note: the 3 members are identical (initial.kind = ramp (from default) adds no noise, and nothing is swept)" &&
    ok || bad "no note for 3 identical members: $msg"
msg=$("$cohort" run heat1d-five.ini --backend "$backend" -o never.nc --resume 2>&1)
[ $? -eq 2 ] && printf '%s' "$msg" | grep -q "there is no checkpoint of never.nc (never.nc.checkpoint)" &&
    ok || bad "--resume without a checkpoint: $msg"
no_source_line "--resume without a checkpoint" "$msg"
test_summary
