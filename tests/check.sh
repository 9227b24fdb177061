#!/usr/bin/env bash
# sync-cts check: deviations and waivers, the baseline mode, and bad input,
# on the committed matrices (copied: reports/ is never written).
. "$(dirname "$0")/lib.sh" "$@"

h200="$root/reports/nvidia-h200/driver-580.159.04/cuda-13.0/default/matrix.json.gz"
h100="$root/reports/nvidia-h100-80gb-hbm3/driver-580.159.04/cuda-13.0/default/matrix.json.gz"
waivers="$root/waivers.json"
cp "$h200" "$tmp/h200.json.gz"

# Deviations: listed one by one, and failing, without waivers; shown as
# waived (per waiver, with its reason and examples) with the committed ones.
run 1 check "$tmp/h200.json.gz"
grep -q '^DEVIATES memcpy.h2d.pageable.1B.explicit.op_implied.busy_same (W): PG-CONC-64KB (guaranteed_not, about host: "' "$tmp/out" ||
    fail "an unwaived deviation is not listed with its clause and quote"
grep -qx '[0-9]* deviations (0 waived, [0-9]* not)' "$tmp/out" || fail "no summary line: $(tail -n 1 "$tmp/out")"
run 0 check "$tmp/h200.json.gz" --waivers "$waivers"
grep -q '^waived: 180 cases contradicting PG-CONC-64KB (e.g. memcpy.h2d.' "$tmp/out" || fail "the 64 KB waiver is not shown"
grep -q '^DEVIATES ' "$tmp/out" && fail "a waived deviation is listed as one"
grep -qx '443 deviations (443 waived, 0 not)' "$tmp/out" || fail "waived summary: $(tail -n 1 "$tmp/out")"

# A driver's own deviation is waived for that driver only.
python3 - "$tmp/h200.json.gz" "$tmp/newdriver.json.gz" <<'EOF' || fail "python3 could not rewrite the driver"
import gzip, json, sys
m = json.load(gzip.open(sys.argv[1]))
m["environment"]["versions"]["driver"] = "590.10"
with gzip.open(sys.argv[2], "wt") as f:
    json.dump(m, f)
EOF
run 1 check "$tmp/newdriver.json.gz" --waivers "$waivers"
grep -q '^DEVIATES memcpy_batch_async.during_call.h2d.pageable.1MiB.op_blocking.busy_same' "$tmp/out" ||
    fail "a driver-ranged waiver still applied on another driver"
grep -qx '443 deviations (436 waived, 7 not)' "$tmp/out" || fail "new-driver summary: $(tail -n 1 "$tmp/out")"

# Baseline: the committed matrix against itself is unchanged; a copy with
# one case altered (and judged again) is caught, naming exactly that case.
run 0 check "$tmp/h200.json.gz" --waivers "$waivers" --baseline "$h200"
grep -q '; 0 verdicts changed against the baseline' "$tmp/out" || fail "self-baseline: $(tail -n 1 "$tmp/out")"
id=$(python3 - "$tmp/h200.json.gz" "$tmp/altered.json.gz" <<'EOF'
import gzip, json, sys
m = json.load(gzip.open(sys.argv[1]))
cid = "cu_module_get_function.op_implied.busy_nonblocking"
c = m["cases"][cid]
c["symbol"] = "A"
c["verdict"].update(third_blocking="runs", third_nonblocking="runs")
with gzip.open(sys.argv[2], "wt") as f:
    json.dump(m, f)
print(cid)
EOF
) || fail "python3 could not alter the matrix"
"$cts" judge "$tmp/altered.json.gz" >/dev/null || fail "judge of the altered matrix failed"
run 1 check "$tmp/altered.json.gz" --waivers "$waivers" --baseline "$h200"
[ "$(grep -c '^CHANGED ' "$tmp/out")" -eq 1 ] || fail "the baseline did not name exactly one case: $(grep '^CHANGED' "$tmp/out")"
grep -qx "CHANGED $id: Q+b+n in the baseline, A now" "$tmp/out" || fail "the altered case is not named: $(grep '^CHANGED' "$tmp/out")"
cmp -s "$tmp/h200.json.gz" "$h200" || fail "the committed matrix copy was modified"

# Bad input: one line naming the problem, exit 2.
error "the baseline was measured on NVIDIA H100 80GB HBM3, this matrix on NVIDIA H200" check "$tmp/h200.json.gz" --baseline "$h100"
error "check wants a matrix file" check
error "cannot read '$tmp/none.json'" check "$tmp/none.json"
error "cannot read '$tmp/none.waivers'" check "$tmp/h200.json.gz" --waivers "$tmp/none.waivers"
echo '{ nope' >"$tmp/w.json"
error "'$tmp/w.json' is not JSON" check "$tmp/h200.json.gz" --waivers "$tmp/w.json"
echo '{"schema": "other", "waivers": []}' >"$tmp/w.json"
error "'$tmp/w.json' is not a cuda-sync-cts waivers file" check "$tmp/h200.json.gz" --waivers "$tmp/w.json"
echo '{"schema": "cuda-sync-cts/waivers", "waivers": [{"cases": "*", "link": "x"}]}' >"$tmp/w.json"
error "'$tmp/w.json': waiver 1 has no reason" check "$tmp/h200.json.gz" --waivers "$tmp/w.json"
echo '{"schema": "cuda-sync-cts/waivers", "waivers": [{"cases": "*", "clause": "PG-NOPE", "reason": "r", "link": "x"}]}' >"$tmp/w.json"
error "'$tmp/w.json': waiver 1 has an unknown clause" check "$tmp/h200.json.gz" --waivers "$tmp/w.json"
echo '{"schema": "cuda-sync-cts/waivers", "waivers": [{"cases": "*", "reason": "r", "link": "x", "driver_min": "new"}]}' >"$tmp/w.json"
error "'$tmp/w.json': waiver 1 has a driver bound that is not a version like 580.159.04" check "$tmp/h200.json.gz" --waivers "$tmp/w.json"
python3 - "$tmp/h200.json.gz" "$tmp/unjudged.json" <<'EOF' || fail "python3 could not strip the spec"
import gzip, json, sys
m = json.load(gzip.open(sys.argv[1]))
del m["spec"]
json.dump(m, open(sys.argv[2], "w"))
EOF
error "'$tmp/unjudged.json' is not judged against the documentation: run sync-cts judge on it" check "$tmp/unjudged.json"
# run checks its waivers file before anything runs.
error "'$tmp/w.json': waiver 1 has a driver bound" run 'memcpy.d2d.*' --waivers "$tmp/w.json" --out "$tmp/m.json"
[ -e "$tmp/m.json" ] && fail "a run with a bad waivers file left a matrix"

finish "check tests"
