# Sourced by scripts/test.sh and .ci/run: run named stages, keep going after a failure, and
# end with one verdict line per stage and a non-zero status if any failed.
#   stage NAME COMMAND...   run COMMAND; record "pass" or "FAIL" with its exit code and time,
#                           or "SKIP" with why when COMMAND exits STAGE_SKIP_STATUS (77, the
#                           automake convention): its last line of output says why
#   skip NAME WHY           record a stage that is not run here, and why
#   note TEXT               record a line that is no stage's verdict
#   finish LABEL            print the verdicts, the last lines of each failed stage, and
#                           "LABEL: N passed, N failed, N skipped"; return 1 if any stage
#                           failed (or none passed)
# STAGE_HEADER (not exported) sets what precedes each stage's name in its header line.
# pytest's exit 5 ("no tests collected") is a failure like any other non-zero exit, named as
# such: a stage that ran nothing must not look green. A stage that did not run says SKIP and
# why, never "pass": a green line must mean that something was checked.

_stage_verdicts=()
_stage_passes=0
_stage_failures=0
_stage_skips=0
STAGE_SKIP_STATUS=77
_stage_failed_logs=()   # "name<TAB>log" of each failed stage
_stage_log_dir=""
# How much of a failed stage closes the run: CI shows only the end of what a run printed.
STAGE_TAIL_LINES=${STAGE_TAIL_LINES:-12}

stage() {
    local name=$1 started=$SECONDS status why
    shift
    echo "${STAGE_HEADER:-==} $name"
    [ -n "$_stage_log_dir" ] || _stage_log_dir=$(mktemp -d "${TMPDIR:-/tmp}/roncho-stages.XXXXXX")
    local log="$_stage_log_dir/${#_stage_verdicts[@]}.log"
    # The output is kept as well as shown, for finish. tee ignores Ctrl-C and ends when the
    # stage's output does, so an interrupted stage still cleans up in front of the user. The
    # braces keep the redirection in this shell, so $! is tee's, also for an external command.
    { "$@"; } > >(trap '' INT TERM; exec tee "$log") 2>&1
    status=$?
    _stage_wait_for_tee $!
    if [ "$status" -eq 0 ]; then
        _stage_verdicts+=("pass  $name ($((SECONDS - started)) s)")
        _stage_passes=$((_stage_passes + 1))
    elif [ "$status" -eq "$STAGE_SKIP_STATUS" ]; then
        skip "$name" "$(stage_skip_why "$log")"
    else
        why="exit $status"
        [ "$status" -eq 5 ] && why="exit 5: no tests collected"
        _stage_verdicts+=("FAIL  $name ($why, $((SECONDS - started)) s)")
        _stage_failed_logs+=("$name"$'\t'"$log")
        _stage_failures=$((_stage_failures + 1))
    fi
    return 0
}

# tee runs on after the stage's command ends: wait until it has shown and kept everything,
# so the next header and finish's tail come after it. Bounded (10 s), for a process the
# stage left running that still holds its output open.
_stage_wait_for_tee() {
    local ticks=0
    while kill -0 "$1" 2>/dev/null && [ "$ticks" -lt 100 ]; do
        sleep 0.1
        ticks=$((ticks + 1))
    done
    [ "$ticks" -ge 100 ] || wait "$1" 2>/dev/null
    return 0
}

# Why a stage that exited STAGE_SKIP_STATUS did not run: the last line it printed.
stage_skip_why() { # log
    local why
    why=$(grep -v '^[[:space:]]*$' "$1" 2>/dev/null | tail -n 1)
    echo "${why:-it exited $STAGE_SKIP_STATUS (skipped) without saying why}"
}

skip() {
    echo "== skip: $1: $2"
    _stage_verdicts+=("SKIP  $1 ($2)")
    _stage_skips=$((_stage_skips + 1))
}

note() {
    echo "== note: $1"
    _stage_verdicts+=("note  $1")
}

finish() {
    echo
    echo "${STAGE_HEADER:-==} verdicts"
    printf '%s\n' "${_stage_verdicts[@]}"
    local entry
    for entry in "${_stage_failed_logs[@]}"; do
        echo "${STAGE_HEADER:-==} why it failed, the last $STAGE_TAIL_LINES lines of: ${entry%%$'\t'*}"
        # pytest's own verdicts name the tests; they may be far above the last lines (once
        # each: a nested runner prints them again).
        grep -E '^(FAILED|ERROR) ' "${entry#*$'\t'}" | awk '!seen[$0]++' | head -n 10
        if [ -s "${entry#*$'\t'}" ]; then tail -n "$STAGE_TAIL_LINES" "${entry#*$'\t'}"
        else echo "(it printed nothing)"; fi
    done
    [ -z "$_stage_log_dir" ] || rm -rf "$_stage_log_dir"
    # The closing line in the plain form CI reads; it counts stages, not tests.
    echo "$1: $_stage_passes passed, $_stage_failures failed, $_stage_skips skipped"
    [ "$_stage_failures" -eq 0 ] && [ "$_stage_passes" -gt 0 ]
}
