#!/usr/bin/env bash
# Known variability: `sync-cts variability` from runs of one configuration,
# and `diff --known`, `check --known` counting a case whose outcome moved
# within it apart from changes; bad input exits 2 with one line and writes
# nothing.  Runs are a small matrix cut from the committed H200 one and
# copies of it altered by python3 (skipped, 77, without it).
. "$(dirname "$0")/lib.sh" "$@"
need_python

small_matrix "$tmp/run1.json"
# run2, run3: the same configuration, other dates; run3 another GPU of the
# same model (another UUID, CUDA_VISIBLE_DEVICES=1).  The noise they carry:
# a case whose landing raced (W -> W~), one that VARIES A/W.
# later.json: a fresh run with both of them again (within), one held-call
# verdict changed (W -> A: a change), and an INCONCLUSIVE (never within).
# other.json: another configuration (CUDA_LAUNCH_BLOCKING=1).
python3 - "$tmp" <<'EOF' || fail "python3 could not build the runs"
import copy, json, sys
d = sys.argv[1]
m = json.load(open(f"{d}/run1.json"))
cases = m["cases"]
ids = sorted(k for k, c in cases.items() if c["status"] == "PASS" and c["symbol"] in ("W", "A"))
w = [k for k in ids if cases[k]["symbol"] == "W"]
a = [k for k in ids if cases[k]["symbol"] == "A"]
landed = [k for k in w if cases[k]["verdict"].get("landed") == "complete"]
landing = landed[0]
flaky, changed, broken = a[0], next(k for k in w if k != landing), a[1]
# A case VARIES in every run already (whether the cut of the committed matrix holds one is a race).
already = a[2]
m["run"]["counts"]["PASS"] -= 1
m["run"]["counts"]["VARIES"] = m["run"]["counts"].get("VARIES", 0) + 1
cases[already].update(status="VARIES", symbol="A/W", reason="repetitions differ on host: returns waits")
json.dump(m, open(f"{d}/run1.json", "w"), sort_keys=True)
VERDICT = {"W~": {"landed": "pending"}, "A": {"host": "returns"}, "W": {"host": "waits"}}
open(f"{d}/ids", "w").write(f"{landing}\n{flaky}\n{changed}\n{broken}\n")
def variant(date, uuid=None, cvd=None, edits=(), lb=None):
    v = copy.deepcopy(m)
    v["run"]["date"] = date
    if uuid:
        v["environment"]["gpu"]["uuid"] = uuid
    if cvd:
        v["environment"]["settings"]["environment_variables"]["CUDA_VISIBLE_DEVICES"] = cvd
    if lb:
        v["environment"]["settings"]["environment_variables"]["CUDA_LAUNCH_BLOCKING"] = lb
    for cid, status, symbol in edits:
        c = v["cases"][cid]
        v["run"]["counts"][c["status"]] -= 1
        v["run"]["counts"][status] = v["run"]["counts"].get(status, 0) + 1
        c["status"], c["symbol"] = status, symbol
        if status == "PASS":
            c["verdict"].update(VERDICT.get(symbol, {}) if symbol != cases[cid]["symbol"] else {})
        c["reason"] = None if status == "PASS" else "repetitions differ on host: returns waits" if status == "VARIES" else "undecided"
    return v
runs = {
    "run2": variant("2026-11-28T01:00:00Z", edits=[(landing, "PASS", "W~")]),
    "run3": variant("2026-11-28T02:00:00Z", uuid="GPU-other", cvd="1", edits=[(flaky, "VARIES", "A/W")]),
    "later": variant("2026-11-28T03:00:00Z", edits=[(landing, "PASS", "W~"), (flaky, "PASS", "W"),
                                                     (changed, "PASS", "A"), (broken, "INCONCLUSIVE", None)]),
    "other": variant("2026-11-28T04:00:00Z", lb="1"),
}
for name, v in runs.items():
    json.dump(v, open(f"{d}/{name}.json", "w"), sort_keys=True)
EOF
{ read -r landing; read -r flaky; read -r changed; read -r broken; } <"$tmp/ids"

# ---- variability ----------------------------------------------------------------
run 0 variability "$tmp/run1.json" "$tmp/run2.json" "$tmp/run3.json" --out "$tmp/known.json"
[ -s "$tmp/out" ] && fail "variability --out also wrote to standard output"
python3 - "$tmp/known.json" "$landing" "$flaky" "$tmp/run1.json" <<'EOF' || fail "the known variability is not the runs' noise"
import json, sys
k = json.load(open(sys.argv[1]))
assert k["schema"] == "cuda-sync-cts/variability" and k["schema_version"] == 1, k["schema"]
# The two cases the runs varied in, and those VARIES in a run already (their symbols' parts).
varies = {i: sorted(c["symbol"].split("/")) for i, c in json.load(open(sys.argv[4]))["cases"].items()
          if c["status"] == "VARIES"}
assert varies and k["cases"] == {sys.argv[2]: ["W", "W~"], sys.argv[3]: ["A", "W"], **varies}, k["cases"]
assert len(k["runs"]) == 3 and k["runs"][2]["gpu_uuid"] == "GPU-other", k["runs"]
c = k["configuration"]
assert c["gpu"] == "NVIDIA H200" and c["visible_devices"] == 1, c
assert "CUDA_VISIBLE_DEVICES" not in c["environment_variables"], c
EOF
# Standard output by default: the same document.
run 0 variability "$tmp/run1.json" "$tmp/run2.json" "$tmp/run3.json"
cmp -s "$tmp/out" "$tmp/known.json" || fail "variability to standard output differs from --out"

# Bad input: one line, exit 2, nothing written.
error "at least two matrices of one configuration, got 1" variability "$tmp/run1.json" --out "$tmp/k1.json"
error "are one run (the same GPU and date)" variability "$tmp/run1.json" "$tmp/run1.json" --out "$tmp/k1.json"
error "is of another configuration than" variability "$tmp/run1.json" "$tmp/other.json" --out "$tmp/k1.json"
grep -qF "CUDA_LAUNCH_BLOCKING" "$tmp/err" || fail "the refusal does not name what differs: $(cat "$tmp/err")"
error "cannot read" variability "$tmp/run1.json" "$tmp/missing.json" --out "$tmp/k1.json"
error "is the input matrix" variability "$tmp/run1.json" "$tmp/run2.json" --out "$tmp/run2.json"
[ -e "$tmp/k1.json" ] && fail "a refused variability wrote its output"
error "unknown option '--bogus'" variability "$tmp/run1.json" "$tmp/run2.json" --bogus

# ---- diff --known -----------------------------------------------------------------
# Without it the noise is change; with it only the held-call verdict and the
# INCONCLUSIVE are, and the noise is counted apart.
run 1 diff "$tmp/run1.json" "$tmp/later.json"
contains "$tmp/out" "A -> B: 4 cases changed"
lacks_text() { grep -qF -- "$2" "$1" && fail "$(basename "$1") mentions '$2'"; }
lacks_text "$tmp/out" "within known variability"
run 1 diff "$tmp/run1.json" "$tmp/later.json" --known "$tmp/known.json"
contains "$tmp/out" "A -> B: 2 cases changed"
contains "$tmp/out" "within known variability 2"
contains "$tmp/out" "within known variability (2)"
grep -A3 '^changed (1)' "$tmp/out" | grep -qF "$changed" || fail "the changed verdict is not listed as changed: $(cat "$tmp/out")"
grep -A3 '^regressed (1)' "$tmp/out" | grep -qF "$broken" || fail "the INCONCLUSIVE is not a regression: $(cat "$tmp/out")"
grep -A3 '^within known variability (2)' "$tmp/out" | grep -qF "$flaky" || fail "the flaky case is not within known variability"
run 1 diff "$tmp/run1.json" "$tmp/later.json" --known "$tmp/known.json" --format csv
grep -qF "within known variability,$landing," "$tmp/out" || fail "CSV lacks the known group"
run 1 diff "$tmp/run1.json" "$tmp/later.json" --known "$tmp/known.json" --format md
contains "$tmp/out" "| within known variability | 2 |"
# Two runs of one build within their known variability: no change, exit 0.
run 0 diff "$tmp/run1.json" "$tmp/run2.json" --known "$tmp/known.json"
contains "$tmp/out" "A -> B: 0 cases changed"
contains "$tmp/out" "within known variability 1"
run 0 diff "$tmp/run2.json" "$tmp/run3.json" --known "$tmp/known.json"
# Bad input.
echo '{"schema": "cuda-sync-cts/matrix"}' >"$tmp/notknown.json"
error "is not known variability: its schema is not" diff "$tmp/run1.json" "$tmp/later.json" --known "$tmp/notknown.json"
error "cannot read known variability" diff "$tmp/run1.json" "$tmp/later.json" --known "$tmp/missing.json"
python3 -c "
import json,sys; k=json.load(open('$tmp/known.json')); k['cases']['$flaky']=['A']; json.dump(k,open('$tmp/one.json','w'))"
error "is not a list of two or more outcomes" diff "$tmp/run1.json" "$tmp/later.json" --known "$tmp/one.json"
error "is known variability of another configuration than" diff "$tmp/other.json" "$tmp/later.json" --known "$tmp/known.json"
error "--known does not apply to --series" diff "$tmp/run1.json" "$tmp/later.json" --known "$tmp/known.json" --series

# ---- tools/bench.py --against --known (its report mode: no GPU) --------------------------
if python3 "$root/tools/bench.py" --report "$tmp/later.json" --against "$tmp/run1.json" --known "$tmp/known.json" \
    >"$tmp/bench.out" 2>&1; then
    contains "$tmp/bench.out" "run 1: 1 held-call host verdicts moved, 1 other outcomes changed, 2 within known variability"
    contains "$tmp/bench.out" "host moved: $changed: W -> A"
    grep -qE "^    other outcomes changed, by family: [a-z_]+ 1$" "$tmp/bench.out" ||
        fail "bench.py does not count the other change by family: $(grep -m 1 'by family' "$tmp/bench.out")"
else
    fail "bench.py --report --against --known failed: $(tail -n 3 "$tmp/bench.out")"
fi
python3 "$root/tools/bench.py" --report "$tmp/later.json" --known "$tmp/known.json" >"$tmp/bench.out" 2>&1 &&
    fail "bench.py took --known without --against"
contains "$tmp/bench.out" "--known applies to a comparison with --against"
# Two matrices of different revisions: a case only in one is left out of the comparison, said so.
python3 -c "
import json; m=json.load(open('$tmp/run1.json')); del m['cases']['$changed']; json.dump(m,open('$tmp/fewer.json','w'))"
python3 "$root/tools/bench.py" --report "$tmp/run1.json" "$tmp/fewer.json" >"$tmp/bench.out" 2>&1 ||
    fail "bench.py --report of matrices with other ids failed: $(tail -n 1 "$tmp/bench.out")"
contains "$tmp/bench.out" "1 cases are not in every run's matrix (other revisions): compared without them"

# ---- check --known ------------------------------------------------------------------
run 1 check "$tmp/later.json" --baseline "$tmp/run1.json" --waivers "$root/waivers.json" --known "$tmp/known.json"
contains "$tmp/out" "CHANGED $changed: W in the baseline, A now"
lacks_text "$tmp/out" "CHANGED $landing"
lacks_text "$tmp/out" "CHANGED $flaky"
grep -qF "1 verdict changed against the baseline, 2 within known variability" "$tmp/out" ||
    fail "check --known's summary: $(tail -n 1 "$tmp/out")"
# A VARIES outside its known set is a change once known variability is given.
python3 - "$tmp" "$changed" <<'EOF' || fail "python3 could not build the VARIES run"
import json, sys
v = json.load(open(f"{sys.argv[1]}/run1.json"))
v["run"]["date"] = "2026-11-28T05:00:00Z"
c = v["cases"][sys.argv[2]]
v["run"]["counts"]["PASS"] -= 1
v["run"]["counts"]["VARIES"] = v["run"]["counts"].get("VARIES", 0) + 1
c["status"], c["symbol"], c["reason"] = "VARIES", "W/A", "repetitions differ on host: waits returns"
json.dump(v, open(f"{sys.argv[1]}/varies.json", "w"), sort_keys=True)
EOF
run 1 check "$tmp/varies.json" --baseline "$tmp/run1.json" --waivers "$root/waivers.json" --known "$tmp/known.json"
contains "$tmp/out" "CHANGED $changed: W in the baseline, W/A now"
run 0 check "$tmp/varies.json" --baseline "$tmp/run1.json" --waivers "$root/waivers.json"
grep -qF "0 verdicts changed against the baseline (" "$tmp/out" || fail "without --known a VARIES is not compared: $(tail -n 1 "$tmp/out")"
error "--known applies to a comparison with --baseline" check "$tmp/later.json" --known "$tmp/known.json"
error "is known variability of another configuration than" check "$tmp/later.json" --baseline "$tmp/other.json" --known "$tmp/known.json"

finish "known-variability tests"
