# What the shell tests share (sourced, POSIX sh): a fresh working directory, the pass/fail
# counters and summary, the cuda skip, and the check that a refused command says so properly.

passed=0 failed=0
ok() { passed=$((passed + 1)); }
bad() { failed=$((failed + 1)); printf 'FAIL: %s\n' "$*"; }

# test_workdir DIR: DIR emptied, and the current directory
test_workdir() { rm -rf "$1" && mkdir -p "$1" && cd "$1" || exit 1; }

# test_needs_backend COHORT BACKEND: exit 77 (ctest: skipped) where BACKEND is cuda and COHORT
# has no usable device
test_needs_backend() {
    if [ "$2" = cuda ] && ! "$1" --version | grep -q "cuda backend: usable"; then
        echo "skipped: no usable CUDA device"
        exit 77
    fi
}

# expect_refusal OUT PATTERN COMMAND...: COMMAND exits 2 with a message matching PATTERN (grep
# -E) and leaves neither OUT, OUT.partial nor OUT.lock behind
expect_refusal() {
    out=$1 pattern=$2; shift 2
    rm -f "$out" "$out.partial" "$out.lock"
    msg=$("$@" 2>&1); status=$?
    if [ $status -eq 2 ] && printf '%s' "$msg" | grep -Eq -- "$pattern" && [ ! -e "$out" ] &&
        [ ! -e "$out.partial" ] && [ ! -e "$out.lock" ]; then
        ok
    else
        bad "$* -> status $status, message: $msg"
    fi
}

# check_python STATUS WHAT: a Python check's status counted: 0 passes, 77 skips (its modules are
# missing from $python), else fails
check_python() {
    case $1 in 0) ok ;; 77) echo "skipped: $2 (modules missing from $python)" ;; *) bad "$2" ;; esac
}

# wait_for FILE: until FILE exists and is not empty (at most 60 s)
wait_for() {
    i=0
    while [ ! -s "$1" ] && [ $i -lt 1200 ]; do sleep 0.05; i=$((i + 1)); done
    [ -s "$1" ]
}

# test_summary: the counts; its status is the test's
test_summary() {
    echo "$passed passed, $failed failed"
    [ "$failed" -eq 0 ]
}
