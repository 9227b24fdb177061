#!/usr/bin/env bash
# Every host-side command frees what it allocates, on its error paths too: under
# LeakSanitizer a leak turns a command's exit status into 1 (issue 43, D15: `thresholds
# --list`, `run` without a GPU and `cite` of a threshold row did).  Each command below runs
# once, on small matrices where it can, and must exit with its own status and no sanitizer
# report.  Meaningful in a build with AddressSanitizer (cmake --preset sanitize); skipped
# (77), saying so, elsewhere.  No GPU is used: CUDA_VISIBLE_DEVICES is empty, so run, env
# and thresholds stop where there is no device (77), as on a machine without one.
. "$(dirname "$0")/lib.sh" "$@"
need_python

if ! ASAN_OPTIONS=help=1 "$cts" --version 2>&1 | grep -q AddressSanitizer; then
    echo "skipped: $cts is not built with AddressSanitizer (cmake --preset sanitize builds it so)"
    exit 77
fi
export CUDA_VISIBLE_DEVICES=
# Leaks found even where a stale pointer is left on the stack: only globals, thread-local
# storage and the heap they reach keep memory alive at exit.
export LSAN_OPTIONS="use_stacks=0:use_registers=0${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
export ASAN_OPTIONS="detect_leaks=1:protect_shadow_gap=0${ASAN_OPTIONS:+:$ASAN_OPTIONS}"

# first_frame FILE: the first frame with a source file of the largest leak LeakSanitizer
# reported in FILE (a direct one where there is one), as "function file:line".
first_frame() {
    { grep -A 16 -m 1 'Direct leak' "$1" || grep -A 16 -m 1 'leak of' "$1"; } |
        awk '/^ *#[0-9]+ / && $4 ~ /^[A-Za-z_]/ && $5 ~ /^\// && $5 !~ /sanitizer/ { print $4, $5; exit }'
}

# clean CODES ARGS...: sync-cts ARGS exits with one of CODES (a|b) and no sanitizer says
# anything; stdout in $tmp/out, stderr in $tmp/err.  A report is made again with whole
# stacks (jansson has no frame pointers), so that it names the function that allocated:
# unwinding every allocation so took 88 of this test's 95 s under the sanitizers.
clean() {
    local codes=$1
    shift
    "$cts" "$@" >"$tmp/out" 2>"$tmp/err"
    local rc=$? said
    said=$(grep -m 1 -E 'SUMMARY: |runtime error:' "$tmp/err")
    if [ -n "$said" ]; then
        ASAN_OPTIONS="$ASAN_OPTIONS:fast_unwind_on_malloc=0" "$cts" "$@" >"$tmp/out" 2>"$tmp/err"
        fail "sync-cts $*: exit $rc, $said; the largest from: $(first_frame "$tmp/err")"
    elif [[ "|$codes|" != *"|$rc|"* ]]; then
        fail "sync-cts $*: exit $rc, expected $codes ($(head -c 300 "$tmp/err"))"
    fi
}

h100="$root/reports/nvidia-h100-80gb-hbm3/driver-580.159.04/cuda-13.0/default/matrix.json.gz"
small_matrix "$tmp/a.json"
small_matrix "$tmp/b.json" "$h100"
small="$tmp/a.json"
# The thresholds' commands on a small matrix that keeps the committed one's threshold rows (and
# their base cases): every row's allocations are made as in the whole one (D15 leaked a row's),
# and each command reads 1 MB, not 47 (under the sanitizers 3 s a reading of the whole one).
small_matrix "$tmp/rows.json" "$h200" "" thresholds
rows="$tmp/rows.json"
case='memcpy.h2d.pageable.4KiB.explicit.op_implied.busy_same'
row=$(python3 -c 'import json, sys; print(min(json.load(open(sys.argv[1]))["thresholds"]["rows"]))' "$rows") ||
    fail "python3 could not read a threshold row from $rows"

clean 0 list 'memcpy.d2d.*'
clean 0 list --groups
clean 2 list 'nothing.*'
clean 77 env
clean 0 render "$small"
clean 0 render --format csv "$small" --out "$tmp/a.csv"
clean 0 render --format html "$small" --out "$tmp/a.html"
clean 0 render --format csv --section thresholds "$rows"
clean 2 render --format csv --section thresholds "$small"
cp "$small" "$tmp/judged.json"
clean 0 judge "$tmp/judged.json"
clean 0 judge --out - "$small"
clean 2 judge --out "$tmp/none/j.json" "$small"
clean 0 cite "$case" "$small"
clean 2 cite "$case.nothing" "$small"
clean 0 cite "$row" "$rows" # D15
clean '0|1' check --waivers "$root/waivers.json" "$small"
clean '0|1' check --baseline "$small" "$small"
clean 2 check --baseline "$tmp/b.json" "$small"
clean 2 check --waivers "$tmp/none.json" "$small"
clean '0|1' diff "$small" "$tmp/b.json"
clean '0|1' diff --format md "$small" "$tmp/b.json" "$small"
clean '0|1' diff --series "$small" "$tmp/b.json"
clean '0|1' diff --format csv --section thresholds "$rows" "$rows"
clean 2 diff "$small" "$tmp/none.json"
# thresholds: the committed rows (D15: 11.9 MB left at thresholds.c:302, on the whole matrix), and a
# search that stops at once without a GPU, before and after its output is opened.
clean 0 thresholds --matrix "$rows" --list
clean 0 thresholds --matrix "$rows" --catalogue --list 'memset*'
clean 2 thresholds --matrix "$rows" --list 'nothing.*'
clean 2 thresholds --matrix "$rows" --out "$tmp/none/t.json"
clean 77 thresholds --matrix "$rows" --out "$tmp/t.json"
# run without a GPU: its worker (this program again) and the supervisor both stop with 77 (D15),
# with or without the inputs it reads first; outputs that cannot be opened are refused (2).
clean 77 run 'memcpy.d2d.device.1B.*' --out "$tmp/r.json"
clean 77 run 'memcpy.d2d.device.1B.*' --out "$tmp/r.json" --waivers "$root/waivers.json" --baseline "$small"
clean 2 run 'memcpy.d2d.device.1B.*' --out "$tmp/none/r.json" --waivers "$root/waivers.json" --baseline "$small"
clean 2 run 'memcpy.d2d.device.1B.*' --out "$tmp/r.json" --log "$tmp/none/r.log" --waivers "$root/waivers.json"
clean 2 run --worker-from 999999 --worker-fd 3
[ -z "$(ls "$tmp" | grep '^[rt]\.')" ] || fail "a run or search that stopped left files: $(ls "$tmp")"

# The supervisor to the end, and the log, with the scripted worker of tests/run.sh: a clean run,
# one whose worker crashes in a case, and one whose worker finds no device.
glob='memcpy.d2d.device.1B.*'
"$cts" list "$glob" >"$tmp/ids" 2>/dev/null || fail "list '$glob' failed"
small_matrix "$tmp/records.json" "$h200" "$tmp/ids"
export CTS_TEST_WORKER="$root/tests/fake-worker.py" CTS_TEST_MATRIX="$tmp/records.json" CTS_TEST_IDS="$tmp/ids"
export CTS_TEST_STATE="$tmp/state" CTS_TEST_CASE=$(sed -n 2p "$tmp/ids")
CTS_TEST_SCENARIO= clean 0 run "$glob" --out "$tmp/w.json" --waivers "$root/waivers.json" --baseline "$tmp/records.json"
rm -f "$tmp/state"
CTS_TEST_SCENARIO=crash clean 3 run "$glob" --out "$tmp/w.json.gz"
clean 3 log "$tmp/w.log"
rm -f "$tmp/state"
CTS_TEST_SCENARIO=skip clean 77 run "$glob" --out "$tmp/s.json" --waivers "$root/waivers.json"
printf 'not a log\n' >"$tmp/bad.log"
clean 2 log "$tmp/bad.log"

finish "leak checks"
