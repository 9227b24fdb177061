#!/usr/bin/env bash
# sync-cts run's supervisor, without a GPU: a scripted worker
# (tests/fake-worker.py, through the test-only CTS_TEST_WORKER) crashes, loses
# its context, tears a line, dies before its first case or finds no device,
# and the supervisor must record that case as CRASH, go on in a fresh worker,
# and write the matrix and the log whole (or nothing, when skipped).
. "$(dirname "$0")/lib.sh" "$@"
need_python

glob='memcpy.d2d.device.1B.*'
export CTS_TEST_WORKER="$root/tests/fake-worker.py"
export CTS_TEST_MATRIX="$tmp/committed.json" CTS_TEST_IDS="$tmp/ids" CTS_TEST_STATE="$tmp/state"
"$cts" list "$glob" >"$tmp/ids" || fail "list failed"
# The committed records of those cases, for the scripted worker to report.
small_matrix "$tmp/committed.json" "$root/reports/nvidia-h200/driver-580.159.04/cuda-13.0/default/matrix.json.gz" "$tmp/ids"
n=$(wc -l <"$tmp/ids")
second=$(sed -n 2p "$tmp/ids") third=$(sed -n 3p "$tmp/ids")

# scenario NAME CODE: a run with that scenario at the second case exits CODE;
# its matrix's cases go to $tmp/cases, a line each: id, status, reason.
scenario() {
    rm -f "$tmp/state" "$tmp"/m.* "$tmp/cases"
    CTS_TEST_SCENARIO=$1 CTS_TEST_CASE=${crash_at:-$second} run "$2" run "$glob" --out "$tmp/m.json"
    [ -e "$tmp/m.json" ] || return 0
    python3 -c "import json, sys
for k, c in json.load(open(sys.argv[1]))['cases'].items(): print(k, c['status'], c['reason'])" \
        "$tmp/m.json" >"$tmp/cases" || fail "python3 could not read $tmp/m.json"
}
# field ID status|reason: that case's, from the last scenario's matrix.
field() { awk -v id="$1" -v f="$2" '$1 == id { if (f == "status") print $2; else { $1 = $2 = ""; print substr($0, 3) } }' "$tmp/cases"; }
ncases() { wc -l <"$tmp/cases"; }

scenario "" 0
[ "$(ncases)" -eq "$n" ] || fail "a clean run has $(ncases) of $n cases"
[ "$(wc -l <"$tmp/state")" -eq 1 ] || fail "a clean run started $(wc -l <"$tmp/state") workers"

scenario crash 3
[ "$(ncases)" -eq "$n" ] || fail "after a crash the matrix has $(ncases) of $n cases"
[ "$(field "$second" status)" = CRASH ] || fail "the crashed case is $(field "$second" status)"
field "$second" reason | grep -q "was killed by signal 11 (Segmentation fault); the run went on in a fresh process" ||
    fail "the crash's reason: $(field "$second" reason)"
[ "$(field "$third" status)" = PASS ] || fail "the case after the crash is $(field "$third" status)"
[ "$(tr '\n' ' ' <"$tmp/state")" = "start 0 start 2 " ] || fail "workers started at: $(cat "$tmp/state")"
grep -q "CRASH $second" "$tmp/out" || fail "run did not name the crashed case: $(cat "$tmp/out")"
run 3 log "$tmp/m.log"
grep -q "^CRASH $second: the process running this case was killed by signal 11" "$tmp/out" ||
    fail "log did not report the crash: $(cat "$tmp/out")"
grep -qx "$n cases: $((n - 1)) PASS 1 CRASH" "$tmp/out" || fail "log summary: $(tail -n 1 "$tmp/out")"
[ -s "$tmp/m.md" ] || fail "no Markdown after a crash"
# The run's environment is the first worker's: the fresh one says none (as sync-cts's own do not).
python3 -c "import json, sys; sys.exit(0 if json.load(open(sys.argv[1]))['environment'].get('gpu') else 1)" \
    "$tmp/m.json" || fail "after a crash the matrix has no environment"
# A crash in the last case: nothing is left to run, so no fresh worker is started for it.
last=$(tail -n 1 "$tmp/ids")
crash_at=$last scenario crash 3
[ "$(field "$last" status)" = CRASH ] || fail "the crashed last case is $(field "$last" status)"
[ "$(ncases)" -eq "$n" ] || fail "after a crash in the last case the matrix has $(ncases) of $n cases"
[ "$(tr '\n' ' ' <"$tmp/state")" = "start 0 " ] || fail "a crash in the last case started workers at: $(cat "$tmp/state")"

# A case that reported its stages (cts_case_stage) and its fault before dying: CRASH naming both, the
# next case's reason without it.
scenario stage 3
[ "$(field "$second" status)" = CRASH ] || fail "the case crashed at a stage is $(field "$second" status)"
field "$second" reason | grep -q "signal 11 (Segmentation fault); the run went on in a fresh process (its last stage: the parent's cudaStreamEndCapture); the faulting instruction in libcuda.so.1+0x1f00" ||
    fail "the staged crash's reason: $(field "$second" reason)"
[ "$(field "$third" status)" = PASS ] || fail "the case after the staged crash is $(field "$third" status)"
[ "$(tr '\n' ' ' <"$tmp/state")" = "start 0 start 2 " ] || fail "workers started at: $(cat "$tmp/state")"

scenario lost 3
[ "$(field "$second" status)" = CRASH ] || fail "the case that lost its context is $(field "$second" status)"
field "$second" reason | grep -q "context was lost" || fail "lost context reason: $(field "$second" reason)"
[ "$(field "$third" status)" = PASS ] || fail "the case after the lost context is $(field "$third" status)"
[ "$(tr '\n' ' ' <"$tmp/state")" = "start 0 start 2 " ] || fail "workers started at: $(cat "$tmp/state")"

scenario torn 3
[ "$(ncases)" -eq "$n" ] || fail "after a torn line the matrix has $(ncases) of $n cases"
field "$second" reason | grep -q "exited with status 1" || fail "torn line reason: $(field "$second" reason)"
[ "$(field "$third" status)" = PASS ] || fail "the case after the torn line is $(field "$third" status)"

CTS_TEST_CASE_LIMIT_S=1 scenario hang 3
[ "$(field "$second" status)" = CRASH ] || fail "the case that hung is $(field "$second" status)"
field "$second" reason | grep -q "said nothing for 1 s (a hang)" || fail "hang: $(field "$second" reason)"
[ "$(field "$third" status)" = PASS ] || fail "the case after the hang is $(field "$third" status)"

scenario early 3
[ "$(ncases)" -eq "$n" ] || fail "a worker that died at once left $(ncases) of $n cases"
[ "$(field "$second" status)" = BROKEN ] || fail "with no worker the case is $(field "$second" status)"
field "$second" reason | grep -q "exited with status 1 before its first case" || fail "early: $(field "$second" reason)"
[ "$(wc -l <"$tmp/state")" -eq 1 ] || fail "a worker that dies at once was started $(wc -l <"$tmp/state") times"

scenario skip 77
grep -q "^sync-cts: skipped: no CUDA device" "$tmp/out" || fail "a skipped run gave no reason: $(cat "$tmp/out")"
ls "$tmp"/m.* >/dev/null 2>&1 && fail "a skipped run left files: $(ls "$tmp"/m.*)"

# Outputs (issue 43): --out, its Markdown and --log are compared as files, not
# as strings (D2: at 5b7a8bd `--out ./m.json --log m.md` wrote the Markdown
# over the log and exited 0); refused before any worker starts.
rm -f "$tmp/state" "$tmp"/m.*
(cd "$tmp" && "$cts" run "$glob" --out ./m.json --log m.md >"$tmp/out" 2>"$tmp/err")
rc=$?
[ "$rc" -eq 2 ] || fail "run --out ./m.json --log m.md: exit $rc, expected 2"
grep -qF "must be three files: './m.json' is two of them" "$tmp/err" ||
    grep -qF "is two of them" "$tmp/err" || fail "run --out ./m.json --log m.md: $(cat "$tmp/err")"
[ "$(wc -l <"$tmp/err")" -eq 1 ] || fail "run --out ./m.json --log m.md: not one line: $(cat "$tmp/err")"
[ -e "$tmp/state" ] && fail "run --out ./m.json --log m.md started a worker"
ls "$tmp"/m.* >/dev/null 2>&1 && fail "run --out ./m.json --log m.md left files: $(ls "$tmp"/m.*)"
ln -s m.json "$tmp/link.log"
error "is two of them" run "$glob" --out "$tmp/m.json" --log "$tmp/link.log"
rm -f "$tmp/link.log"
# D4: a --split-groups directory nothing can be written into is refused first.
if [ -d /proc/self ] && ! touch /proc/sync-cts-probe 2>/dev/null; then
    error "--split-groups: cannot write into '/proc'" run "$glob" --out "$tmp/m.json" --split-groups /proc
    [ -e "$tmp/state" ] && fail "run --split-groups /proc started a worker"
fi
# D3: a log that cannot be written ends the run with exit 2, one line, and
# leaves no matrix (at 5b7a8bd `--log /dev/full` exited 0 with no log).
if [ -w /dev/full ]; then
    rm -f "$tmp/state" "$tmp"/m.*
    error "cannot write '/dev/full': No space left on device" run "$glob" --out "$tmp/m.json" --log /dev/full
    ls "$tmp"/m.* >/dev/null 2>&1 && fail "a run whose log could not be written left files: $(ls "$tmp"/m.*)"
    [ "$(wc -l <"$tmp/state")" -eq 1 ] || fail "a run whose log could not be written started $(wc -l <"$tmp/state") workers"
    [ -c /dev/full ] || fail "a run whose log could not be written removed /dev/full"
fi

# D5: a matrix that cannot be written (here a file-size limit, as a full disk would) is exit 2
# naming the file, and leaves none of the three files (at 5b7a8bd "cannot render the matrix",
# exit 3, and the log left behind).
rm -f "$tmp/state" "$tmp"/m.*
(trap '' XFSZ; ulimit -f 8; exec "$cts" run "$glob" --out "$tmp/m.json") >"$tmp/out" 2>"$tmp/err"
rc=$?
[ "$rc" -eq 2 ] || fail "a run whose matrix could not be written: exit $rc, expected 2 ($(cat "$tmp/err"))"
grep -qF "cannot write '$tmp/m.json' or '$tmp/m.md': File too large" "$tmp/err" ||
    fail "a run whose matrix could not be written said: $(cat "$tmp/err")"
ls "$tmp"/m.* >/dev/null 2>&1 && fail "a run whose matrix could not be written left files: $(ls "$tmp"/m.*)"

# The log reader: a torn last line is the process dying; anything else off is bad input.
printf '%s\n' '{"event":"begin","id":"a.b"}' >"$tmp/l.log"
printf '{"event":"res' >>"$tmp/l.log"
run 3 log "$tmp/l.log"
grep -q '^CRASH a.b: the log has its begin and no result' "$tmp/out" || fail "torn log: $(cat "$tmp/out")"
printf '%s\n' '{"event":"begin","id":"a.b"}' '{"event":"result","id":"a.b","status":"GREAT"}' >"$tmp/l.log"
error "line 2: case 'a.b' has an unknown status 'GREAT'" log "$tmp/l.log"
printf '%s\n' '{"event":"begin","id":"a.b"}' '{"event":"result","id":"a.b","status":"PASS","reason":5}' >"$tmp/l.log"
error "line 2: \"id\", \"status\" or \"reason\" is not a string" log "$tmp/l.log"
printf '%s\n' '{"event":"begin","id":"a.b"}' '{"event":"end","id":"a.b"}' >"$tmp/l.log"
error "line 2: case 'a.b' ends without a result" log "$tmp/l.log"
printf '%s\n' '{"event":"begin","id":"a.b"}' 'garbage' '{"event":"end","id":"a.b"}' >"$tmp/l.log"
error "line 2 is not a sync-cts log event" log "$tmp/l.log"
# A read that fails is no end of the file (at 5b7a8bd a directory read as a log of "0 cases",
# exit 0: issue 43, D12).
mkdir -p "$tmp/adir.log"
error "cannot read '$tmp/adir.log'" log "$tmp/adir.log"

finish "run supervisor tests"
