#!/usr/bin/env bash
# Runs roncho's checks against a real Honcho server: the live suite with authentication off
# and on, every notebook, the deriver's gates with batching on, the emulator-versus-server
# differential and the SDK conformance run (each where present). It is the acceptance run
# for a server this script does not own (docs/handover.md):
#
#   RONCHO_LIVE_URL=http://127.0.0.1:PORT [RONCHO_LIVE_KEY=...] bash scripts/test-real.sh \
#       --record docs/observations --results results [--read-workspace NAME]
#
# (test traffic goes to loopback only: reach a remote server through a local tunnel, e.g.
# `ssh -N -L PORT:server:8000 host`; the differential and SDK stages refuse other addresses)
#
#   bash scripts/test-real.sh [--record DIR] [--results DIR] [--deriver-flush on|off]
#                             [--age-gate SECONDS] [--token-gate TOKENS] [--deriver-look SECONDS]
#                             [--read-workspace NAME] [--expect-auth on|off]
#
# --expect-auth on|off: whether authentication should be on at the given server, as its owner
# means it to be; Q1's verdict line holds the server to it (without it, Q1 is not judged and
# says so). On the kit it is known: off at its API, on at its auth API.
#
# What it writes on the server: only workspaces it creates itself, each under a new unique
# name (roncho-live-* for the live suite, roncho-wb-* for the notebooks, roncho-diff-* and
# roncho-sdk-*), each deleted at the end, also on failure or Ctrl-C. Any other workspace is
# only read, and only with --read-workspace. Where the server lets it list workspaces (auth
# off, or an admin key) the last stage checks that no roncho- workspace made during the run
# is left. The notebooks' scratch ids carry a tag made for this run (roncho-wb-<tag>-*), and
# what is left under it is removed there and at the exit of a run stopped early (Ctrl-C can
# stop a notebook's kernel before its own cleanup is done); nothing else is ever deleted.
# tests/acceptance/ holds all of this with the emulator's request log.
#
# --read-workspace NAME: also the read-only checks (lists, searches, conclusions, queue
# status, a dialectic question) against the existing workspace NAME through a read_only=True
# client (scripts/workspace_checks.py), which refuses any write before sending it.
#
# Which server:
# - RONCHO_LIVE_URL set (RONCHO_LIVE_KEY optional): that server, as it is. Nothing is set up,
#   started, restarted or stopped; the deriver-gates stage is skipped (it must restart the
#   deriver). --deriver-flush, --age-gate and --token-gate tell the notebooks how that server's
#   deriver is set (else they assume Honcho's defaults: flush off, age gate 1800 s, token gate
#   512), and so the differential and the SDK stages, whose emulator side is then started
#   with the same settings and whose waits for the deriver end once what is left is held in
#   a batch for a whole deriver look (--deriver-look: the server's longest sleep between two
#   looks for work, default 45 s, Honcho's 30 s times its 1.5 jitter; the kit's is 3 s).
# - else, where the kit ../shared/real-honcho exists beside the checkout (REAL_HONCHO_KIT
#   overrides): its setup.sh and start.sh, in REAL_HONCHO_DIR as the kit resolves it. What
#   this script started, it stops on exit (also on failure or Ctrl-C); a server that was
#   already running is used as it is, and its deriver is left alone.
# - else: one line saying so, exit 77 (skipped: nothing was checked).
#
# --record DIR writes the live suite's observations (docs/observations format) into DIR,
# labelled after the version the server reports. Notebook results go to a temporary folder,
# removed at the end, so the working tree is unchanged; --results DIR keeps them in DIR as
# dated runs whose folder names say the server and its deriver settings (--results results:
# the workbook's record). One verdict line per stage: PASS, FAIL, or SKIP with why (a stage
# whose command exits 77 says SKIP with its last line, as in scripts/stages.sh). Then the
# verdict from the answers (scripts/fitness.py): a line per question (Q1 to Q10) and per stage
# that checks roncho against the server, each PASS, FAIL or SKIP with why, and last the
# overall line: the server is fit for memoryd, or it is not and every reason. Exit 1 if any
# stage failed or the server is not fit.
set -uo pipefail
cd "$(dirname "$0")/.."
ROOT="$(pwd)"

RECORD=""
RESULTS=""
READ_WORKSPACE=""
EXPECT_AUTH=""
GIVEN_DERIVER=()
DERIVER_FLUSH="" AGE_GATE_TOLD="" TOKEN_GATE_TOLD="" DERIVER_LOOK=45
while [ $# -gt 0 ]; do
    case "$1" in
        --record) RECORD="$(mkdir -p "$2" && cd "$2" && pwd)" || exit 2; shift 2 ;;
        --results) RESULTS="$(mkdir -p "$2" && cd "$2" && pwd)" || exit 2; shift 2 ;;
        --deriver-flush|--age-gate|--token-gate) GIVEN_DERIVER+=("$1" "$2")
            case "$1" in
                --deriver-flush) DERIVER_FLUSH="$2" ;;
                --age-gate) AGE_GATE_TOLD="$2" ;;
                *) TOKEN_GATE_TOLD="$2" ;;
            esac
            shift 2 ;;
        --deriver-look) DERIVER_LOOK="$2"; shift 2 ;;
        --read-workspace) READ_WORKSPACE="$2"; shift 2 ;;
        --expect-auth) EXPECT_AUTH="$2"; shift 2
            case "$EXPECT_AUTH" in on|off) ;; *) echo "test-real.sh: --expect-auth takes on or off" >&2; exit 2 ;; esac ;;
        -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
        *) echo "test-real.sh: unknown argument $1" >&2; exit 2 ;;
    esac
done

# STAGE_SKIP_STATUS and stage_skip_why: the skip convention the test runners share (this
# script keeps its own stage and verdict functions below, and its own verdict format).
# shellcheck source=scripts/stages.sh
source scripts/stages.sh

KIT="${REAL_HONCHO_KIT:-$ROOT/../shared/real-honcho}"
# The deriver's age gate while batching is on (Honcho's default is 1800 s): low enough that
# the below-token-gate messages of Q3 are released within the run (README of the kit: a 30 s
# gate released a message 32-36 s after it was sent).
AGE_GATE=30
BATCHING_TRIALS=5   # per size class and per Q9 sync series, with batching on (see deriver_gates)
T_START=$(date +%s)
VERDICTS=()
FAILED=0
verdict() { # stage PASS|FAIL|SKIP seconds [why]
    local line="test-real: $1: $2 ($3 s)${4:+ - $4}"
    VERDICTS+=("$line"); echo "$line"
    [ "$2" = FAIL ] && FAILED=1
    return 0
}
FAILED_LOGS=()   # "name<TAB>log" of each failed stage: their last lines close the run
stage() { # name command... : runs it, prints the verdict
    local name=$1 t0 rc log; shift
    log="$TMP/stage-${#VERDICTS[@]}.log"
    echo "== test-real: $name"
    t0=$(date +%s)
    # The output is kept as well as shown: CI shows only the end of a run, so a failed stage's
    # last lines are printed again there. tee ignores Ctrl-C and ends when the output does;
    # the braces keep the redirection in this shell, so $! is tee's.
    { "$@"; } > >(trap '' INT TERM; exec tee "$log") 2>&1; rc=$?
    _stage_wait_for_tee $!   # (scripts/stages.sh) the verdict comes after all the output
    if [ "$rc" = 0 ]; then verdict "$name" PASS $(( $(date +%s) - t0 ))
    elif [ "$rc" = "$STAGE_SKIP_STATUS" ]; then
        verdict "$name" SKIP $(( $(date +%s) - t0 )) "$(stage_skip_why "$log")"
    else
        verdict "$name" FAIL $(( $(date +%s) - t0 )) "exit $rc"
        FAILED_LOGS+=("$name"$'\t'"$log")
    fi
    return 0
}
skip() { verdict "$1" SKIP 0 "$2"; }

# -- which server -------------------------------------------------------------------------
MODE=""
if [ -n "${RONCHO_LIVE_URL:-}" ]; then
    MODE=given
elif [ -d "$KIT" ] && [ -f "$KIT/start.sh" ]; then
    MODE=kit
else
    echo "test-real: no real server: RONCHO_LIVE_URL is not set and there is no kit at $KIT; skipped"
    exit "$STAGE_SKIP_STATUS"
fi

# -- the Python environment (scripts/test.sh normally made it already) --------------------
if ! .venv/bin/python -c 'import papermill, pytest, pytest_timeout' >/dev/null 2>&1; then
    [ -x .venv/bin/python ] || "${PYTHON:-python3}" -m venv .venv || exit 1
    .venv/bin/python -m pip install --quiet --disable-pip-version-check -e '.[test]' || exit 1
fi
PY="$ROOT/.venv/bin/python"
TMP="$(mktemp -d "${TMPDIR:-/tmp}/roncho-test-real.XXXXXX")"
OUT="${RESULTS:-$TMP}"
touch "$TMP/started"   # what --record and --results gain after this is this run's
# The notebooks' scratch workspaces are named under a tag of this run alone, so what an
# interrupt leaves of them can be told from anyone else's (another run's included).
NB_PREFIX="roncho-wb-$(od -An -N4 -tx1 /dev/urandom | tr -d ' \n')"

# -- cleanup: what this script changed or started, undone on every exit -------------------
OWNED=0            # 1: this script started the server, so it stops it
DERIVER_CHANGED=0  # 1: extra.env and the deriver's flush are ours to restore
EXTRA_BACKUP=""    # the caller's extra.env, if there was one
RH_DIR=""
restore_deriver() { # restart: yes (the server keeps running) or no (it is about to stop)
    [ "$DERIVER_CHANGED" = 1 ] || return 0
    if [ -n "$EXTRA_BACKUP" ]; then cp "$EXTRA_BACKUP" "$RH_DIR/extra.env"; else rm -f "$RH_DIR/extra.env"; fi
    DERIVER_CHANGED=0
    [ "$1" = yes ] || return 0
    HONCHO_DERIVER_FLUSH=1 bash "$KIT/start.sh" --restart-deriver "$RH_DIR" >/dev/null && return 0
    echo "test-real: could not restore the deriver (flush on); see $RH_DIR/logs" >&2
    return 1
}
SWEPT=0           # 1: the leftover stage ran (else cleanup finishes what an interrupt cut)
sweep() { # wait: this run's own scratch workspaces still there are named and removed
    "$PY" scripts/workspace_checks.py "${KEY_FLAG[@]}" leftovers "$CHECK_URL" \
        "$TMP/workspaces-before" --wait "$1" --remove-prefix "$NB_PREFIX-"
}
cleanup() {
    if [ "$SWEPT" = 0 ] && [ -n "${CHECK_URL:-}" ]; then
        echo "== test-real: stopped early: removing what this run made and left"
        sweep 10 || true
    fi
    restore_deriver "$([ "$OWNED" = 1 ] && echo no || echo yes)"
    if [ "$OWNED" = 1 ]; then
        # Quiet unless it fails: the run's last lines are its verdicts, which CI shows.
        if bash "$KIT/stop.sh" "$RH_DIR" > "$TMP/stop.log" 2>&1; then
            echo "== test-real: stopped the server it started"
        else
            cat "$TMP/stop.log"; echo "test-real: stop.sh failed" >&2
        fi
    fi
    rm -rf "$TMP"
    # The overall verdict is the run's very last line, after anything stopping printed.
    [ -z "$OVERALL" ] || echo "$OVERALL"
}
OVERALL=""   # the overall verdict line (scripts/fitness.py), printed last by cleanup
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# -- setup and start (kit only) -------------------------------------------------------------
health_ok() { curl -s --noproxy '*' -o /dev/null --max-time 2 -f "$1/health"; }
# The kit's deriver has one worker and takes work oldest first, and the kit keeps its database
# between runs: deletions an earlier run queued just before stopping are worked off after the
# next start, ahead of everything this run asks for (a webhook test event came after 150 s).
# Before the stages that time the deriver, wait (bounded) until its queue in the kit's own
# database is worked off. Read-only; kit mode only (a given server's queue is not ours to see).
SETTLE_WAIT=600
deriver_queue() { # the kit's unprocessed queue items, or nothing when it cannot be read
    local uri port
    uri="$(sed -n 's/^DB_CONNECTION_URI=//p' "$KIT/honcho.env" | tail -1)"
    port="$(sed -n 's/^PG_PORT=//p' "$RH_DIR/local.conf" | tail -1)"
    uri="${uri/postgresql+psycopg:/postgresql:}"
    uri="${uri//\$\{PG_PORT\}/$port}"
    local psql; psql="$(sed -n 's/^PG_BIN=//p' "$RH_DIR/local.conf" | tail -1)/psql"
    [ -x "$psql" ] || psql="$(command -v psql)" || return 0
    "$psql" "$uri" -X -tAc "SELECT count(*) FROM queue WHERE NOT processed" 2>/dev/null
}
deriver_settle() {
    local left t0 shown=0; t0=$(date +%s)
    left="$(deriver_queue)"
    if ! [[ "$left" =~ ^[0-9]+$ ]]; then
        echo "test-real: the deriver's queue cannot be read from the kit's database; not waited for"
        return 0
    fi
    while [ "$left" -gt 0 ] && [ $(( $(date +%s) - t0 )) -lt "$SETTLE_WAIT" ]; do
        if [ $(( $(date +%s) - shown )) -ge 30 ]; then
            echo "test-real: the deriver has $left queued items to work off first; waiting (at most ${SETTLE_WAIT} s)"
            shown=$(date +%s)
        fi
        sleep 2
        left="$(deriver_queue)"; [[ "$left" =~ ^[0-9]+$ ]] || left=0
    done
    if [ "$left" -gt 0 ]; then
        echo "test-real: the deriver still has $left queued items after ${SETTLE_WAIT} s; going on (deriver timings will be late)"
    else
        echo "test-real: the deriver's queue is empty ($(( $(date +%s) - t0 )) s waited)"
    fi
}
# Settings this run adds to the kit's DIR/extra.env for a while; the caller's own file is kept
# and put back by restore_deriver (also on every exit, through cleanup).
with_extra_env() { # KEY=VALUE: DIR/extra.env becomes the caller's, plus this line
    if [ "$DERIVER_CHANGED" = 0 ]; then
        EXTRA_BACKUP=""
        if [ -f "$RH_DIR/extra.env" ]; then
            EXTRA_BACKUP="$TMP/extra.env.orig"; cp "$RH_DIR/extra.env" "$EXTRA_BACKUP" || return 1
        fi
    fi
    DERIVER_CHANGED=1
    { if [ -n "$EXTRA_BACKUP" ]; then cat "$EXTRA_BACKUP"; echo; fi
      echo "$1"; } > "$RH_DIR/extra.env.new" && mv "$RH_DIR/extra.env.new" "$RH_DIR/extra.env"
}
# A backlog (an earlier run's deletions, queued just before its kit stopped; this run's live
# suites) is worked off by more deriver workers than the kit's one: one worker takes the queue
# an item at a time, and most of an item is waiting on the database, so several side by side
# work it off faster. Then the deriver is restarted as the kit sets it, so the stages that
# time it see the measured configuration. Only where this run started the server: a deriver
# it did not start is never restarted (there it is only waited for).
DRAIN_ABOVE=30     # queued items worth two deriver restarts
DRAIN_WORKERS=4
deriver_drain() {
    local left; left="$(deriver_queue)"
    if [ "$OWNED" = 1 ] && [[ "$left" =~ ^[0-9]+$ ]] && [ "$left" -gt "$DRAIN_ABOVE" ]; then
        echo "test-real: $left queued items to work off first, by $DRAIN_WORKERS deriver workers; then the kit's own deriver again"
        if with_extra_env "DERIVER_WORKERS=$DRAIN_WORKERS" &&
            HONCHO_DERIVER_FLUSH=1 bash "$KIT/start.sh" --restart-deriver "$RH_DIR" >/dev/null; then
            deriver_settle
        fi
        restore_deriver yes || return 1
    fi
    deriver_settle
}
if [ "$MODE" = kit ]; then
    RH_DIR="${REAL_HONCHO_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/roncho-real-honcho}"
    already=0
    if [ -f "$RH_DIR/local.conf" ]; then
        api_port="$(sed -n 's/^API_PORT=//p' "$RH_DIR/local.conf" | tail -1)"
        auth_port="$(sed -n 's/^API_AUTH_PORT=//p' "$RH_DIR/local.conf" | tail -1)"
        health_ok "http://127.0.0.1:$api_port" && health_ok "http://127.0.0.1:$auth_port" && already=1
    fi
    stage setup bash "$KIT/setup.sh" "$RH_DIR"
    if [ "$FAILED" = 1 ]; then
        echo "test-real: setup failed; nothing else runs"
        OVERALL="test-real: no verdict on the server: the kit's setup failed"
        exit 1
    fi
    RH_DIR="$(cd "$RH_DIR" && pwd)"
    [ "$already" = 1 ] || OWNED=1   # set before start.sh: a half-started server is stopped too
    echo "== test-real: start"
    t0=$(date +%s)
    out="$(bash "$KIT/start.sh" "$RH_DIR")"
    rc=$?
    echo "$out"
    if [ "$rc" != 0 ]; then
        verdict start FAIL $(( $(date +%s) - t0 )) "start.sh exit $rc"
        OVERALL="test-real: no verdict on the server: the kit did not start"
        exit 1
    fi
    verdict start PASS $(( $(date +%s) - t0 )) "$([ "$already" = 1 ] && echo "already running: used as it is, not stopped" || echo "started here, stopped at the end")"
    eval "$(grep '^RONCHO_LIVE_' <<<"$out")"
    URL="$RONCHO_LIVE_URL"
    deriver_drain
    AUTH_URL="$RONCHO_LIVE_AUTH_URL"
    ADMIN_KEY="$(cat "$RONCHO_LIVE_KEY_FILE")"
else
    URL="$RONCHO_LIVE_URL"
    AUTH_URL=""
    ADMIN_KEY="${RONCHO_LIVE_KEY:-}"
    [ -n "$ADMIN_KEY" ] && AUTH_URL="$URL"
fi
unset RONCHO_LIVE_URL RONCHO_LIVE_KEY   # each stage below is given exactly what it needs
# The key for the scripts below goes through a mode-600 file, never the command line.
KEY_FLAG=()
if [ -n "$ADMIN_KEY" ]; then
    (umask 077 && printf '%s' "$ADMIN_KEY" > "$TMP/admin-key") && KEY_FLAG=(--key-file "$TMP/admin-key")
fi
# The workspaces the server lists now (when it lets us): the leftover check compares.
CHECK_URL="$URL"
[ "$MODE" = kit ] && [ -n "$AUTH_URL" ] && CHECK_URL="$AUTH_URL"
"$PY" scripts/workspace_checks.py "${KEY_FLAG[@]}" snapshot "$CHECK_URL" "$TMP/workspaces-before" \
    || echo "test-real: could not list the server's workspaces; the leftover check will say so"

# The server answers GET /health, and reports its version (GET /openapi.json info.version):
# asked through roncho itself, which reads no proxy variable. The version labels the records.
server_version() { # url
    "$PY" -c 'import sys, roncho
c = roncho.Client(sys.argv[1], "roncho-test-real", connect_timeout=5.0, read_timeout=20.0)
try:
    c.probe()
    print(c.server_version() or "")
except roncho.RonchoError as exc:
    sys.exit(f"test-real: {exc}")' "$1"
}
if ! VERSION="$(server_version "$URL")"; then
    verdict "server answers GET /health" FAIL 0 "$URL did not; nothing else runs"
    OVERALL="test-real: the server is NOT fit for memoryd: it did not answer GET /health at $URL"
    exit 1
fi
LABEL="real-$(tr -c 'a-z0-9\n' '-' <<<"${VERSION:-unknown}")$([ "$MODE" = kit ] && echo -src)"
echo "== test-real: the server reports version ${VERSION:-unknown} (GET /openapi.json)"

live_suite() { # url key label note
    local record=()
    [ -n "$RECORD" ] && record=(--record "$RECORD" --server-label "$3" --server-note "$4")
    # The webhook secret (the kit prints it) lets tests/live verify deliveries.
    RONCHO_LIVE_URL="$1" RONCHO_LIVE_KEY="$2" \
        RONCHO_LIVE_WEBHOOK_SECRET="${RONCHO_LIVE_WEBHOOK_SECRET:-}" \
        "$PY" -m pytest tests/live --live-target live \
        -p no:cacheprovider -q "${record[@]}"
}
if [ "$MODE" = kit ]; then
    # The commit the kit's Honcho tarball was made from (git archive stores it).
    COMMIT="$(gzip -dc "$KIT"/honcho-*-server.tar.gz 2>/dev/null | git get-tar-commit-id 2>/dev/null)"
    COMMIT="${COMMIT:-unknown}"
    NOTE="Honcho ${VERSION:-?} built from source by ../shared/real-honcho (commit ${COMMIT:0:8}),"
    NOTE="$NOTE PostgreSQL + pgvector, Redis, deterministic stub LLM and embeddings"
    NOTE="$NOTE (stub_llm.py), deriver flush on (batching off)"
else
    NOTE="the server given by RONCHO_LIVE_URL, version ${VERSION:-not served}"
fi
if [ "$MODE" = kit ]; then
    stage "live suite, auth off" live_suite "$URL" "" "$LABEL" "$NOTE; authentication off"
    stage "live suite, auth on" live_suite "$AUTH_URL" "$ADMIN_KEY" "$LABEL-auth" \
        "$NOTE; authentication on, admin key"
elif [ -z "$ADMIN_KEY" ]; then
    stage "live suite (no key)" live_suite "$URL" "" "$LABEL" "$NOTE; no key"
else
    stage "live suite (with RONCHO_LIVE_KEY)" live_suite "$URL" "$ADMIN_KEY" "$LABEL-auth" \
        "$NOTE; with a key"
fi

# The notebooks are told how the deriver is set (Q3 checks every release against it) and
# name their run folders after the server: the kit's settings are known here; a given
# server's come from --deriver-flush/--age-gate. The label says what the server was.
NB_LABEL="$LABEL$([ "$MODE" = kit ] && echo -stub-llm)"
FLUSH_ON_FLAGS=(--deriver-flush on --label "$NB_LABEL")
# q10_context says which LLM wrote the summaries it times: the kit's is a deterministic stand-in.
[ "$MODE" = kit ] && FLUSH_ON_FLAGS+=(--llm "the real-honcho kit's deterministic stub LLM (stub_llm.py)")
AUTH_ON_FLAGS=(--deriver-flush on --label "$NB_LABEL-auth")
BATCHING_FLAGS=(--deriver-flush off --age-gate "$AGE_GATE" --label "$NB_LABEL")
GIVEN_FLAGS=(--label "$NB_LABEL" "${GIVEN_DERIVER[@]}")

# -- every notebook (results into $OUT, by default a temporary folder) -------------------
notebooks() { # url key results [investigate.py flags...]
    local url=$1 key=$2 results=$3; shift 3
    local keyflag=()
    # The key goes through a mode-600 file, never the command line (visible in `ps`).
    if [ -n "$key" ]; then
        (umask 077 && printf '%s' "$key" > "$TMP/notebook-key") || return 1
        keyflag=(--api-key-file "$TMP/notebook-key")
    fi
    # q9_webhooks verifies deliveries with the secret (read by its kernel, never recorded).
    RONCHO_WORKBOOK_WEBHOOK_SECRET="${RONCHO_LIVE_WEBHOOK_SECRET:-}" \
        "$PY" scripts/investigate.py --base-url "$url" "${keyflag[@]}" --results "$results" \
        --prefix "$NB_PREFIX" "$@"
}
if [ "$MODE" = kit ]; then
    deriver_drain   # the live suites' deletions, before Q3 times the deriver
    stage "notebooks, auth off" notebooks "$URL" "" "$OUT" "${FLUSH_ON_FLAGS[@]}"
    # Q1 is the question about keys: it is answered again where keys are required.
    stage "notebooks, auth on (q1_auth)" notebooks "$AUTH_URL" "$ADMIN_KEY" "$OUT" \
        --only q1_auth "${AUTH_ON_FLAGS[@]}"
else
    stage "notebooks" notebooks "$URL" "$ADMIN_KEY" "$OUT" "${GIVEN_FLAGS[@]}"
fi

# -- the deriver's gates: batching on (flush off), a lowered age gate ----------------------
deriver_gates() {
    with_extra_env "DERIVER_REPRESENTATION_BATCH_MAX_AGE_SECONDS=$AGE_GATE" || return 1
    HONCHO_DERIVER_FLUSH=0 bash "$KIT/start.sh" --restart-deriver "$RH_DIR" >/dev/null || return 1
    local rc=0
    # Half the trials of the flush-on run: with batching each of Q9's syncs waits out the age
    # gate in turn, so its trials set this stage's length (the flush-on run has the full set).
    notebooks "$URL" "" "$OUT" --only q3_deriver_latency q3_derivation_switches q9_webhooks \
        --trials "$BATCHING_TRIALS" "${BATCHING_FLAGS[@]}" || rc=$?
    restore_deriver yes || rc=1   # the server stays up for the stages below: flush on again
    return "$rc"
}
if [ "$MODE" = kit ] && [ "$OWNED" = 1 ]; then
    stage "deriver gates (flush off, age gate ${AGE_GATE} s)" deriver_gates
elif [ "$MODE" = kit ]; then
    skip "deriver gates" "the server was already running before this script: its deriver is not restarted"
else
    skip "deriver gates" "a given server (RONCHO_LIVE_URL): its deriver cannot be switched from here"
fi

# -- emulator versus server, and the Honcho SDK's conformance (helper E, branch h-emu) ------
# In kit mode they run against the auth-off API; a given server gets the given key, if any.
DIFF_KEY=""
SDK_KEY=()
if [ "$MODE" = given ] && [ -n "$ADMIN_KEY" ]; then
    DIFF_KEY="$ADMIN_KEY"
    (umask 077 && printf '%s' "$ADMIN_KEY" > "$TMP/key") && SDK_KEY=(--key-file "$TMP/key")
fi
# The server's deriver as told (tests/deriver_told.py): the kit's flushes; a given server's is
# what the flags said, else Honcho's defaults. The emulator side is set the same way.
if [ "$MODE" = kit ] || [ "$DERIVER_FLUSH" = on ]; then
    export RONCHO_LIVE_DERIVER="flush=on"
else
    export RONCHO_LIVE_DERIVER="flush=off age=${AGE_GATE_TOLD:-1800} tokens=${TOKEN_GATE_TOLD:-512} look=$DERIVER_LOOK"
fi
echo "== test-real: the differential and the SDK stages take the deriver as: $RONCHO_LIVE_DERIVER"
if [ -d tests/differential ]; then
    # RONCHO_EDGES_OUT: the edges differential's fresh recording, kept beside the results.
    stage "differential (emulator vs server)" env RONCHO_LIVE_URL="$URL" RONCHO_LIVE_KEY="$DIFF_KEY" \
        RONCHO_EDGES_OUT="$OUT/differential-edges" "$PY" -m pytest tests/differential -p no:cacheprovider -q
    # The kit's auth-on API: the edges' key-kind steps against their auth-on recording.
    if [ "$MODE" = kit ] && [ -n "$AUTH_URL" ] && [ -f tests/differential/test_edges.py ]; then
        stage "differential edges, auth on (server vs recording)" env RONCHO_LIVE_URL="$AUTH_URL" \
            RONCHO_LIVE_KEY_FILE="$TMP/admin-key" RONCHO_EDGES_OUT="$OUT/differential-edges" \
            "$PY" -m pytest tests/differential/test_edges.py -k real_server -p no:cacheprovider -q
    fi
else
    skip "differential (emulator vs server)" "tests/differential is not in this checkout yet"
fi
if [ -f scripts/sdk-conformance.sh ]; then
    stage "SDK conformance" bash scripts/sdk-conformance.sh --base-url "$URL" "${SDK_KEY[@]}"
else
    skip "SDK conformance" "scripts/sdk-conformance.sh is not in this checkout yet"
fi

if command -v node >/dev/null; then
    stage "TypeScript SDK conformance" bash scripts/sdk-ts-conformance.sh --base-url "$URL" "${SDK_KEY[@]}"
else
    skip "TypeScript SDK conformance" "no node on PATH"
fi

# sync_batch under faults (tests/delivery_soak.py): both clients at once, 75 turns each,
# through the fault proxy (tests/faultproxy.py: resets before and after the server answered,
# answers held past the read timeout, cut bodies, refusals; seed 43); the server must hold
# every turn exactly once, in order, no batch in part. The proxy forwards from loopback, so
# only a loopback server is driven. About a minute and a half on the kit.
case "$URL" in
    http://127.*|http://localhost[:/]*|http://\[::1\]*)
        stage "delivery under faults (sync_batch, 2 x 75 turns)" "$PY" tests/delivery_soak.py \
            "$URL" "${KEY_FLAG[@]}" --turns 75 --seed 43 --read-timeout 2 ;;
    *) skip "delivery under faults" "the fault proxy forwards from loopback only; $URL is not" ;;
esac

# Honcho's own route tests over HTTP: on the server (both APIs), then on the emulator, which
# must pass every one the server passed (tests/honcho_routes/run_routes.py).
honcho_routes() {
    "$PY" tests/honcho_routes/run_routes.py --target real --url "$URL" --auth-url "$AUTH_URL" \
        --admin-key-file "$RONCHO_LIVE_KEY_FILE" --jwt-secret-file "$RH_DIR/jwt_secret.txt" \
        --rh-dir "$RH_DIR" --kit "$KIT" --record --outcomes "$TMP/routes.json" || return
    "$PY" tests/honcho_routes/run_routes.py --target emulator --rh-dir "$RH_DIR" --kit "$KIT" \
        --compare --outcomes "$TMP/routes.json"
}
if [ "$MODE" = kit ]; then
    stage "Honcho's route tests (server, then emulator vs server)" honcho_routes
else
    skip "Honcho's route tests" "a given server (RONCHO_LIVE_URL): the tests mint keys with the kit's JWT secret"
fi

# -- read-only checks against an existing workspace (--read-workspace) ----------------------
if [ -n "$READ_WORKSPACE" ]; then
    READ_URL="$URL"
    READ_KEY=()
    if [ "$MODE" = kit ]; then READ_URL="$AUTH_URL"; fi
    [ -n "$ADMIN_KEY" ] && READ_KEY=("${KEY_FLAG[@]}")
    stage "read-only checks on workspace $READ_WORKSPACE" \
        "$PY" scripts/workspace_checks.py "${READ_KEY[@]}" read "$READ_URL" "$READ_WORKSPACE"
fi

# -- last: nothing this run made is left on the server --------------------------------------
SWEPT=1
stage "no roncho- workspace left behind" sweep 30

# -- what this run recorded, and where ------------------------------------------------------
recorded() { # dir depth: what under dir is newer than the start of this run
    find "$1" -mindepth "$2" -maxdepth "$2" -newer "$TMP/started" 2>/dev/null | sort
}
echo "== test-real: what this run recorded, and where"
if [ -n "$RECORD" ] && [ -n "$(recorded "$RECORD" 1)" ]; then
    echo "observations (server version ${VERSION:-unknown}):"
    recorded "$RECORD" 1 | sed 's/^/  /'
    echo "  next: scripts/render_compat.py docs/observations/*.json (the compatibility page)"
    echo "        scripts/emulator_drift.py ${VERSION%%-*} $RECORD/*.json (where the emulator disagrees)"
else
    echo "observations: not recorded (add --record docs/observations to keep them)"
fi
if [ -n "$RESULTS" ] && [ -n "$(recorded "$RESULTS" 2)" ]; then
    echo "dated notebook results:"
    recorded "$RESULTS" 2 | sed 's/^/  /'
    echo "  next: scripts/render_answers.py (docs/answers.md: what memoryd should do, per version)"
else
    echo "dated notebook results: none kept (the notebooks ran in a temporary folder; add --results results)"
fi
echo "on the server: only the workspaces this run created, each deleted (see the leftover check)"

echo "== test-real: verdicts ($(( $(date +%s) - T_START )) s in all, before stopping)"
printf '%s\n' "${VERDICTS[@]}"
for entry in "${FAILED_LOGS[@]}"; do
    echo "== test-real: why it failed, the last 12 lines of: ${entry%%$'\t'*}"
    grep -E '^(FAILED|ERROR) ' "${entry#*$'\t'}" | awk '!seen[$0]++' | head -n 10   # pytest's, naming the tests
    tail -n 12 "${entry#*$'\t'}"
done
# The kit's deriver runs out of sight of every test (webhook deliveries, purges): what it
# reported as going wrong, where this run started it and something failed.
if [ "$MODE" = kit ] && [ "$FAILED" = 1 ] && [ -f "$RH_DIR/logs/deriver.log" ]; then
    echo "== test-real: the kit's deriver log ($RH_DIR/logs/deriver.log), its last errors and warnings"
    grep -E ' - (ERROR|WARNING) - ' "$RH_DIR/logs/deriver.log" | grep -v 'Deleting workspace' | tail -n 8 | cut -c1-300
fi

# -- the overall verdict, from the answers (the run's last lines) ---------------------------
# The stage verdicts say what ran; these say whether the server suits memoryd: a line per
# question from the answers (Q1 against the auth the owner expects), a line per stage that
# checks roncho against the server (the live suite, the differential, the SDK runs: each
# stage line is handed over, scripts/fitness.py picks those), then the overall line. Not fit
# fails the run like a failed stage.
FITNESS_FLAGS=()
for line in "${VERDICTS[@]}"; do
    FITNESS_FLAGS+=(--stage "$line")
done
if [ "$MODE" = kit ]; then
    FITNESS_FLAGS+=(--expect-auth "$URL=off" --expect-auth "$AUTH_URL=on")
elif [ -n "$EXPECT_AUTH" ]; then
    FITNESS_FLAGS+=(--expect-auth "$EXPECT_AUTH")
fi
# Deliveries reach only the server's own host; without the secret they are not checked here.
[ -n "${RONCHO_LIVE_WEBHOOK_SECRET:-}" ] ||
    FITNESS_FLAGS+=(--deliveries-unchecked "no RONCHO_LIVE_WEBHOOK_SECRET: run on the server's host to check them")
mapfile -t RUN_FOLDERS < <(find "$OUT" -mindepth 2 -maxdepth 2 -type d -newer "$TMP/started" | sort)
OVERALL="$("$PY" scripts/fitness.py "${FITNESS_FLAGS[@]}" "${RUN_FOLDERS[@]}")" || FAILED=1
[ -n "$OVERALL" ] || OVERALL="test-real: no verdict on the server: scripts/fitness.py failed"
exit "$FAILED"
