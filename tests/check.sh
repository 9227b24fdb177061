#!/usr/bin/env bash
# sync-cts check: deviations and waivers, the baseline mode, and bad input.
# End to end on the committed H200 matrix (read only); the rest on a small
# matrix cut from it (python3 builds it and its variants).
. "$(dirname "$0")/lib.sh" "$@"
need_python

waivers="$root/waivers.json"

# Without waivers: the unwaived deviations summed up by clause first (count,
# an example, the clause's words once), then one short line a case; failing.
run 1 check "$h200"
[ "$(head -n 1 "$tmp/out")" = "592 deviations not waived, by clause:" ] || fail "no clause summary first: $(head -n 1 "$tmp/out")"
grep -qx '  PG-CONC-64KB: 219 cases, e.g. memcpy.h2d.mapped.1B.default.op_implied.busy_blocking' "$tmp/out" ||
    fail "the clause summary lacks PG-CONC-64KB: $(head -n 12 "$tmp/out")"
grep -q '^    CUDA C++ Programming Guide, Concurrent Execution between Host and Device: "The following device operations are asynchronous' "$tmp/out" ||
    fail "the clause summary does not quote the clause"
[ "$(grep -c '^  [A-Z]' "$tmp/out")" -eq 17 ] || fail "the summary does not list 17 clauses: $(grep '^  [A-Z]' "$tmp/out")"
grep -qx 'DEVIATES memcpy.h2d.pageable.1B.explicit.op_implied.busy_same (W): PG-CONC-64KB (guaranteed_not, about host)' "$tmp/out" ||
    fail "an unwaived deviation is not listed with its clause"
[ "$(grep -c '^DEVIATES ' "$tmp/out")" -eq 592 ] || fail "not one line for each of the 592 deviations"
[ "$(awk '!/^(DEVIATES|CRASH) / && length > 160' "$tmp/out" | wc -l)" -le 17 ] ||
    fail "more long lines than clauses: $(awk '!/^(DEVIATES|CRASH) / && length > 160' "$tmp/out" | head -n 3)"
# A case's line stays short: two predictions at most 220 characters (launch.first's, and a
# written symbol copy's, whose id is the longest).
[ "$(awk '/^DEVIATES / && length > 220' "$tmp/out" | wc -l)" -eq 0 ] ||
    fail "a deviation's line is long: $(awk '/^DEVIATES / && length > 220' "$tmp/out" | head -n 1)"
grep -qx '592 deviations (0 waived, 592 not); 98 cases FAILed or have no verdict' "$tmp/out" || fail "no summary line: $(tail -n 1 "$tmp/out")"
# With the committed waivers: every deviation waived, shown per waiver.
run 0 check "$h200" --waivers "$waivers"
grep -q '^waived: 219 cases contradicting PG-CONC-64KB (e.g. memcpy.h2d.' "$tmp/out" || fail "the 64 KB waiver is not shown"
grep -q '^DEVIATES \|not waived, by clause' "$tmp/out" && fail "a waived deviation is listed as one"
grep -qx '592 deviations (592 waived, 0 not); 98 CRASHes waived' "$tmp/out" || fail "waived summary: $(tail -n 1 "$tmp/out")"
# The driver's own crashes (a capture into a conditional node's body): CRASH without waivers,
# waived by the waiver that names the status and the driver, each listed with both reasons.
grep -q '^CRASH memcpy.body_if_end_body_first.capture_global.by_global.op_blocking.busy_same: the process running this case was killed by signal 11' "$tmp/out" &&
    fail "a waived CRASH is listed as unwaived"
grep -q '^waived CRASH memcpy.body_if_end_body_first.capture_global.by_global.op_blocking.busy_same: .*libcuda.so.1.* (driver 580.159.04 faults inside libcuda.so.1' "$tmp/out" ||
    fail "the waived CRASH is not listed with its reason and the waiver's: $(grep -m 1 'CRASH' "$tmp/out")"

# The small matrix and its variants: another driver, one case altered, no
# clause table, another GPU.
small_matrix "$tmp/small.json"
python3 - "$tmp" <<'EOF' || fail "python3 could not build the variants"
import copy, json, sys
d = sys.argv[1]
m = json.load(open(f"{d}/small.json"))
def write(name, x):
    json.dump(x, open(f"{d}/{name}.json", "w"), sort_keys=True)
x = copy.deepcopy(m); x["environment"]["versions"]["driver"] = "590.10"; write("newdriver", x)
x = copy.deepcopy(m)
c = x["cases"]["cu_module_get_function.op_implied.busy_nonblocking"]
c["symbol"] = "A"
c["verdict"].update(third_blocking="runs", third_nonblocking="runs")
write("altered", x)
x = copy.deepcopy(m); del x["spec"]; write("unjudged", x)
# Landing: a matrix from before the suite observed it (no verdict.landed, no "~"), and one
# whose synchronous copy returned before its bytes landed.
x = copy.deepcopy(m)
for c in x["cases"].values():
    if (c.get("verdict") or {}).pop("landed", None) and c["symbol"]:
        c["symbol"] = c["symbol"].replace("~", "")
write("unlanded", x)
x = copy.deepcopy(m)
c = x["cases"]["memcpy.h2d.pageable.4KiB.explicit.op_implied.busy_same"]
assert c["verdict"]["landed"] == "complete" and c["symbol"] == "W"
c["verdict"]["landed"] = "pending"; c["evidence"]["landed"] = ["pending"] * len(c["evidence"]["landed"])
c["symbol"] = "W~"
write("relanded", x)
x = copy.deepcopy(m); x["environment"]["gpu"]["name"] = "NVIDIA H100 80GB HBM3"; write("h100", x)
EOF
small="$tmp/small.json"

# A driver's own deviation is waived for that driver only.  How many the small matrix holds
# moves with the case table (it keeps every 60th case: 9, 10, 8 as families grew); at least the
# six batch cases it keeps whole, and the summary line says the same number.
run 1 check "$tmp/newdriver.json" --waivers "$waivers"
unwaived=$(sed -n 's/^\([0-9]*\) deviations not waived, by clause:$/\1/p' "$tmp/out")
[ -n "$unwaived" ] && [ "$unwaived" -ge 6 ] || fail "new driver: $(head -n 1 "$tmp/out")"
grep -q '^  RT-BATCH-DURING-CALL: 6 cases, e.g. memcpy_batch_async.during_call.h2d.pageable.1MiB.op_blocking.busy_' "$tmp/out" ||
    fail "new driver: no RT-BATCH-DURING-CALL in the summary"
grep -q '^DEVIATES memcpy_batch_async.during_call.h2d.pageable.1MiB.op_blocking.busy_same' "$tmp/out" ||
    fail "a driver-ranged waiver still applied on another driver"
grep -qE "^[0-9]+ deviations \([0-9]+ waived, ${unwaived:-x} not\)\$" "$tmp/out" || fail "new-driver summary: $(tail -n 1 "$tmp/out")"

# Baseline: the matrix against itself is unchanged; a copy with one case
# altered (and judged again) is caught, naming exactly that case.
run 0 check "$small" --waivers "$waivers" --baseline "$small"
grep -q '; 0 verdicts changed against the baseline' "$tmp/out" || fail "self-baseline: $(tail -n 1 "$tmp/out")"
"$cts" judge "$tmp/altered.json" >/dev/null || fail "judge of the altered matrix failed"
run 1 check "$tmp/altered.json" --waivers "$waivers" --baseline "$small"
[ "$(grep -c '^CHANGED ' "$tmp/out")" -eq 1 ] || fail "the baseline did not name exactly one case: $(grep '^CHANGED' "$tmp/out")"
grep -qx "CHANGED cu_module_get_function.op_implied.busy_nonblocking: Q+b+n in the baseline, A now" "$tmp/out" ||
    fail "the altered case is not named: $(grep '^CHANGED' "$tmp/out")"

# Landing is compared where both matrices record it: not against a matrix from before.
run 0 check "$small" --waivers "$waivers" --baseline "$tmp/unlanded.json"
grep -q '; 0 verdicts changed against the baseline' "$tmp/out" || fail "landing against an older baseline: $(tail -n 1 "$tmp/out")"
"$cts" judge "$tmp/relanded.json" >/dev/null || fail "judge of the relanded matrix failed"
run 1 check "$tmp/relanded.json" --waivers "$waivers" --baseline "$small"
grep -qx "CHANGED memcpy.h2d.pageable.4KiB.explicit.op_implied.busy_same: W in the baseline, W~ now" "$tmp/out" ||
    fail "a changed landing is not named: $(grep '^CHANGED' "$tmp/out")"

# A case that FAILed or has no verdict is listed with its reason and fails
# the check: the small matrix with one case made a FAIL (as cudaMemcpyBatchAsync
# on stream 0 was, in the per-thread build of 277488cc1fc4) and one INCONCLUSIVE.
python3 - "$tmp" <<'EOF' || fail "python3 could not build the failing matrix"
import json, sys
d = sys.argv[1]
m = json.load(open(f"{d}/small.json"))
ids = sorted(m["cases"])
for cid, status, reason in (
        ("memcpy_batch_async.during_call.h2d.pageable.1MiB.op_blocking.busy_same", "FAIL",
         "cudaMemcpyBatchAsync returned cudaErrorInvalidValue"),
        (ids[-1], "INCONCLUSIVE", "repetition 3: a held marker ran 354.8 us after the gate opened")):
    c = m["cases"][cid]
    c.update(status=status, symbol=None, reason=reason, spec={"clauses": [], "conformance": None})
    c["verdict"] = {k: None for k in ("host", "op_after", "third_blocking", "third_nonblocking", "src", "dst")}
counts = {k: 0 for k in m["run"]["counts"]}
for c in m["cases"].values():
    counts[c["status"]] += 1
m["run"]["counts"] = counts
json.dump(m, open(f"{d}/failing.json", "w"), sort_keys=True)
EOF
run 1 check "$tmp/failing.json" --waivers "$waivers"
grep -q '^FAIL memcpy_batch_async\..*: cudaMemcpyBatchAsync returned cudaErrorInvalidValue' "$tmp/out" ||
    fail "a FAIL case is not listed with its reason: $(grep -v '^waived' "$tmp/out" | head -n 5)"
[ "$(grep -c '^FAIL ' "$tmp/out")" -eq 1 ] || fail "FAIL lines: $(grep -c '^FAIL ' "$tmp/out"), expected 1"
grep -q '^INCONCLUSIVE .*: repetition 3: a held marker ran 354.8 us' "$tmp/out" ||
    fail "a case with no verdict is not listed with its reason: $(grep -v '^waived' "$tmp/out" | head -n 5)"
grep -q '; 2 cases FAILed or have no verdict$' "$tmp/out" || fail "summary: $(tail -n 1 "$tmp/out")"

# Bad input: one line naming the problem, exit 2.
error "the baseline was measured on NVIDIA H100 80GB HBM3, this matrix on NVIDIA H200" check "$small" --baseline "$tmp/h100.json"
error "check wants a matrix file" check
error "cannot read '$tmp/none.json'" check "$tmp/none.json"
error "cannot read '$tmp/none.waivers'" check "$small" --waivers "$tmp/none.waivers"
echo '{ nope' >"$tmp/w.json"
error "'$tmp/w.json' is not JSON" check "$small" --waivers "$tmp/w.json"
echo '{"schema": "other", "waivers": []}' >"$tmp/w.json"
error "'$tmp/w.json' is not a cuda-sync-cts waivers file" check "$small" --waivers "$tmp/w.json"
echo '{"schema": "cuda-sync-cts/waivers", "waivers": [{"cases": "*", "link": "x"}]}' >"$tmp/w.json"
error "'$tmp/w.json': waiver 1 has no reason" check "$small" --waivers "$tmp/w.json"
echo '{"schema": "cuda-sync-cts/waivers", "waivers": [{"cases": "*", "clause": "PG-NOPE", "reason": "r", "link": "x"}]}' >"$tmp/w.json"
error "'$tmp/w.json': waiver 1 has an unknown clause" check "$small" --waivers "$tmp/w.json"
echo '{"schema": "cuda-sync-cts/waivers", "waivers": [{"cases": "*", "reason": "r", "link": "x", "driver_min": "new"}]}' >"$tmp/w.json"
error "'$tmp/w.json': waiver 1 has a driver bound that is not a version like 580.159.04" check "$small" --waivers "$tmp/w.json"
error "'$tmp/unjudged.json' is not judged against the documentation: run sync-cts judge on it" check "$tmp/unjudged.json"
# run checks its waivers file before anything runs.
error "'$tmp/w.json': waiver 1 has a driver bound" run 'memcpy.d2d.*' --waivers "$tmp/w.json" --out "$tmp/m.json"
echo '{"schema": "cuda-sync-cts/waivers", "waivers": [{"cases": "*", "status": "CRASH", "reason": "r", "link": "x"}]}' >"$tmp/w.json"
error "'$tmp/w.json': waiver 1 has a CRASH waived without the drivers it was seen on (driver_min, driver_max)" check "$small" --waivers "$tmp/w.json"
echo '{"schema": "cuda-sync-cts/waivers", "waivers": [{"cases": "*", "status": "FAIL", "reason": "r", "link": "x", "driver_min": "1.0", "driver_max": "2.0"}]}' >"$tmp/w.json"
error "'$tmp/w.json': waiver 1 has a status other than CRASH, or a status with a clause" check "$small" --waivers "$tmp/w.json"
[ -e "$tmp/m.json" ] && fail "a run with a bad waivers file left a matrix"
# A driver bound past any machine integer is a version like another, far above 580.159.04:
# the waiver does not apply (at 5b7a8bd it wrapped to 580 and applied, exit 0: issue 43, D1).
echo '{"schema": "cuda-sync-cts/waivers", "waivers": [{"cases": "*", "reason": "r", "link": "x", "driver_min": "18446744073709552196"}]}' >"$tmp/w.json"
run 1 check "$small" --waivers "$tmp/w.json"
grep -qE '^[0-9]+ deviations \(0 waived, [0-9]+ not\)$' "$tmp/out" || fail "a driver_min past 2^64 applied: $(tail -n 1 "$tmp/out")"
echo '{"schema": "cuda-sync-cts/waivers", "waivers": [{"cases": "*", "reason": "r", "link": "x", "driver_max": "0000000000000000000000580.159.04"}]}' >"$tmp/w.json"
run 0 check "$small" --waivers "$tmp/w.json"

# The overlap family's cases (a pair, a staged-copy pattern): their verdict and
# evidence members are checked like the others', and cite tells them apart.
k0=overlap.kernel.with_h2d_pinned.op_nonblocking.busy_nonblocking
ov="$root/reports/comparisons/driver-580.159.04-cuda-13.0/families-wip-258a333/h100/overlap-default-508aec6.json.gz"
run 0 check "$ov"
run 0 cite overlap.d2d.with_kernel_high.op_nonblocking.busy_nonblocking "$ov"
grep -q '^Two operations issued one after the other from one host thread: d2d on a non-blocking stream, then kernel on a non-blocking stream of the highest priority\. They ran at once (overlaps) (`O`)\. Repetition 1: ' "$tmp/out" ||
    fail "cite of an overlap pair: $(cut -c1-300 "$tmp/out")"
run 0 cite overlap.staged_v1.op_blocking.busy_blocking "$ov"
grep -q '^The staged-copy pattern staged_v1: one 32 MiB pinned array in 4 slices, .* on 4 blocking streams, .* Repetition 1: sequential [0-9.]* us, staged [0-9.]* us' "$tmp/out" ||
    fail "cite of a staged-copy case: $(cut -c1-300 "$tmp/out")"
python3 - "$ov" "$tmp" <<'PY'
import gzip, json, sys
k = "overlap.kernel.with_h2d_pinned.op_nonblocking.busy_nonblocking"
m = json.load(gzip.open(sys.argv[1]))
m["cases"][k]["verdict"]["overlap"] = "sometimes"
json.dump(m, open(sys.argv[2] + "/ov-verdict.json", "w"))
m = json.load(gzip.open(sys.argv[1]))
m["cases"][k]["evidence"]["pair"]["fraction"] = [1.0]
json.dump(m, open(sys.argv[2] + "/ov-pair.json", "w"))
m = json.load(gzip.open(sys.argv[1]))
m["cases"][k]["with"] = 7
json.dump(m, open(sys.argv[2] + "/ov-with.json", "w"))
PY
error "case '$k0': verdict.overlap is \"sometimes\", not overlaps, partial, shares or serializes" check "$tmp/ov-verdict.json"
error "case '$k0': evidence.pair.fraction is not an array of 2 numbers" check "$tmp/ov-pair.json"
error "case '$k0': with is" check "$tmp/ov-with.json"
error "verdict.overlap is" render "$tmp/ov-verdict.json" --out "$tmp/ov.md"
[ -e "$tmp/ov.md" ] && fail "render of a bad overlap matrix left a file"

finish "check tests"
