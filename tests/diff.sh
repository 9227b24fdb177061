#!/usr/bin/env bash
# sync-cts diff: which cases changed between matrices, in which group, in each
# format; --series; exit 0 / 1 / 2; one-line errors and no half-written output.  Builds
# small matrices with python3 (json, gzip; skipped, 77, without it), alters
# a small matrix cut from a committed one, and reproduces a committed
# comparison end to end.
. "$(dirname "$0")/lib.sh" "$@"
need_python

# has FILE LINE: FILE has LINE exactly (carriage returns ignored).
lacks() { grep -qF -- "$2" "$1" && fail "$(basename "$1") mentions '$2'"; }

# ---- small matrices -------------------------------------------------------------
python3 - "$tmp" <<'EOF' || fail "python3 could not build the test matrices"
import copy, gzip, json, sys
d = sys.argv[1]
NOV = dict(host=None, op_after=None, third_blocking=None, third_nonblocking=None, src=None, dst=None)
def case(status, symbol=None, call=(10.0,), **verdict):
    v = dict(NOV); v.update(verdict)
    verdict_status = status in ("PASS", "VARIES")
    reps = len(call)
    ev = {"repetitions": reps, "idle_call_us": 1.0 if verdict_status else None, "idle_call_max_us": None,
          "idle_complete_us": None, "timeout_us": None, "window_us": None, "window_retries": 0,
          "timeout_retries": 0, "control": None}
    if reps:
        ev["call_us"] = list(call)
    if v["host"] == "waits":
        ev["release_to_return_us"] = [1.0] * reps
    return {"status": status, "symbol": symbol, "reason": None if status == "PASS" else status.lower(),
            "verdict": v, "evidence": ev, "family": "memcpy", "group": "c", "api": "c", "function": "cudaC",
            "variant": None, "direction": None, "memory": None, "allocator": None, "size": None,
            "size_label": None, "kind": None, "copy_kind": None, "op_stream": "null", "busy": "same"}
W = dict(host="waits")
A = dict(host="returns", op_after="runs", third_blocking="runs", third_nonblocking="runs")
def matrix(cases, gpu="Test GPU", date="2026-01-01T00:00:00Z", env=None, spec=False):
    counts = {}
    for c in cases.values():
        counts[c["status"]] = counts.get(c["status"], 0) + 1
    m = {"schema": "cuda-sync-cts/matrix", "schema_version": 1,
         "environment": {"gpu": {"name": gpu, "compute_capability": "9.0", "uuid": "GPU-0"}, "suite_revision": "abc",
                         "versions": {"driver": "580.1", "driver_api": {"number": 13000, "text": "13.0"},
                                      "runtime": {"number": 13000, "text": "13.0"},
                                      "toolkit": {"number": 13000, "text": "13.0"}},
                         "attributes": {"asyncEngineCount": 3, "concurrentKernels": 1, "pageableMemoryAccess": 0,
                                        "concurrentManagedAccess": 1},
                         "settings": {"default_stream": "legacy", "device_schedule": "auto",
                                      "environment_variables": env or {"CUDA_LAUNCH_BLOCKING": None}}},
         "run": {"date": date, "counts": counts, "wall_s": 1.0, "repeat": 3}, "cases": cases}
    if spec:
        m["spec"] = {"documentation": "d", "clauses": {"PG-X": {"where": "w", "quote": "q", "url": "https://x"}}}
    return m
a = {"c.pass_fail": case("PASS", "W", **W),
     "c.w_a": case("PASS", "W", call=(10.0, 30.0, 20.0), **W),
     "c.notsupp": case("PASS", "A", **A),
     "c.timing": case("PASS", "A", call=(1.0, 2.0, 3.0), **A),
     "c.varies": case("VARIES", "A/W", host=None),
     'x,"y"': case("PASS", "A", **A)}
b = copy.deepcopy(a)
b["c.pass_fail"] = case("FAIL")
b["c.w_a"] = case("PASS", "A", call=(5.0,), **A)
b["c.notsupp"] = case("NOTSUPP")
b["c.timing"]["evidence"]["call_us"] = [100.0, 200.0, 300.0]   # a time only: no change
b["c.varies"]["symbol"] = "W/A"                                # the same two symbols: no change
b["c.only_b"] = case("PASS", "A", **A)
json.dump(matrix(a), open(f"{d}/a.json", "w"))
json.dump(matrix(a), open(f"{d}/a2.json", "w"))
with gzip.open(f"{d}/b.json.gz", "wt") as f:
    json.dump(matrix(b, gpu="Other GPU", date="2026-01-02T00:00:00Z", env={"CUDA_LAUNCH_BLOCKING": "1"}), f)
# C: only the quoted id is gone.
c = copy.deepcopy(a); del c['x,"y"']
json.dump(matrix(c), open(f"{d}/c.json", "w"))
# Conformance: compared where both sides carry a spec.
def spec(cf):
    return {"conformance": cf, "clauses": [{"id": "PG-X", "about": "host", "prediction": "guaranteed",
                                            "holds": {"DEVIATES": False, "CONFORMS": True}.get(cf)}]}
sa = copy.deepcopy(a); sb = copy.deepcopy(a)
sa["c.notsupp"]["spec"] = spec("CONFORMS"); sb["c.notsupp"]["spec"] = spec("DEVIATES")
sa["c.timing"]["spec"] = spec("DEVIATES");  sb["c.timing"]["spec"] = spec("RECORDED")
sb["c.w_a"]["spec"] = spec("DEVIATES")      # no spec in A: not compared
json.dump(matrix(sa, spec=True), open(f"{d}/sa.json", "w"))
json.dump(matrix(sb, spec=True), open(f"{d}/sb.json", "w"))
# Strings from a matrix reach the Markdown escaped.
e = copy.deepcopy(a)
e["c.w_a"] = case("PASS", "A|<b>", call=(5.0,), **A)
json.dump(matrix(e, gpu="GPU | <script>x</script>"), open(f"{d}/e.json", "w"))
# verdict.rejected (present only where a documented rejection happened) is part of the verdict.
ra = copy.deepcopy(a); rb = copy.deepcopy(a)
ra["c.timing"]["verdict"]["rejected"] = "cudaErrorInvalidValue"
rb["c.timing"]["verdict"]["rejected"] = "cudaErrorNotSupported"
rb["c.notsupp"]["verdict"]["rejected"] = "cudaErrorInvalidValue"
json.dump(matrix(ra), open(f"{d}/ra.json", "w"))
json.dump(matrix(rb), open(f"{d}/rb.json", "w"))
# Landing (verdict.landed, cell mark "~"): la measured before the suite looked at it, lb and lc after.
lb = copy.deepcopy(a); lc = copy.deepcopy(a)
lb["c.pass_fail"] = case("PASS", "W~", landed="pending", **W)
lb["c.w_a"] = case("PASS", "W", call=(10.0, 30.0, 20.0), landed="complete", **W)
lb["c.varies"]["symbol"] = "A/W~/W"
lb["c.timing"] = case("VARIES", "A~/A", call=(1.0, 2.0, 3.0), **A)
lb["c.timing"]["reason"] = "repetitions differ on landed: pending complete pending"
lc["c.pass_fail"] = case("PASS", "W", landed="complete", **W)
lc["c.w_a"] = case("PASS", "W", call=(10.0, 30.0, 20.0), landed="complete", **W)
lc["c.varies"]["symbol"] = "W/A"
for n, m in (("la", a), ("lb", lb), ("lc", lc)):
    json.dump(matrix(m), open(f"{d}/{n}.json", "w"))
# A series (runtimes 12.0, 12.2, 12.4): c.pass_fail fails from the second, c.notsupp is
# NOTSUPP (not in the runtime) until the third.
def runtime(m, text, number):
    m["environment"]["versions"]["runtime"] = {"number": number, "text": text}
    m["environment"]["versions"]["toolkit"] = {"number": number, "text": text}
    return m
s1 = copy.deepcopy(a); s1["c.notsupp"] = case("NOTSUPP"); s1["c.notsupp"]["reason"] = "not in runtime 12.0"
s2 = copy.deepcopy(s1); s2["c.pass_fail"] = case("FAIL"); s2["c.notsupp"]["reason"] = "not in runtime 12.2"
s3 = copy.deepcopy(s2); s3["c.notsupp"] = case("PASS", "A", **A)
for name, m, text, number in (("s1", s1, "12.0", 12000), ("s2", s2, "12.2", 12020), ("s3", s3, "12.4", 12040)):
    json.dump(runtime(matrix(m, date=f"2026-01-0{name[1]}T00:00:00Z"), text, number), open(f"{d}/{name}.json", "w"))
# A fourth, made after the module-loading mode was recorded (s1-s3 lack it).
s4 = runtime(matrix(s3, date="2026-01-04T00:00:00Z"), "12.6", 12060)
s4["environment"]["settings"]["module_loading"] = "lazy"
json.dump(s4, open(f"{d}/s4.json", "w"))
# Thresholds (docs/matrix.md, `thresholds`): ta and tb differ in nothing else.  r1 flips
# Qc -> W 1 MiB lower in B; r2 has no flip in A and one in B; r3 is only in B; r4 is the
# same (its VARIES symbols in another order).
def probe(size, outcome):
    return {"bytes": size, "status": outcome.split(":")[0], "outcome": outcome, "call_us": 5.0, "asked": 1}
def flip(below, fro="PASS:Qc", to="PASS:W"):
    return {"below": probe(below, fro), "above": probe(below + 1, to), "exact": True, "steady": True}
def row(*flips):
    return {"base_case": "c.timing", "family": "memcpy", "max_bytes": 268435456, "samples": {"1MiB": "PASS:Qc"},
            "flips": list(flips), "probes": 2, "undecided": 0, "truncated": False, "from_matrix": False,
            "wall_s": 0.5, "probed": [probe(1, "PASS:Qc"), probe(268435456, "PASS:Qc")]}
def thresholds(m, rows):
    m["thresholds"] = {"run": {"max_bytes": 268435456, "repetitions": 2, "rows": len(rows), "probes": 2 * len(rows),
                               "wall_s": 1.0, "catalogue": False, "suite_revision": "abc",
                               "date": "2026-01-01T00:00:00Z"}, "rows": rows}
    return m
json.dump(thresholds(matrix(a), {"r1": row(flip(2097152)), "r2": row(), "r4": row(flip(4096, "PASS:Qc", "VARIES:A/W"))}),
          open(f"{d}/ta.json", "w"))
with gzip.open(f"{d}/tb.json.gz", "wt") as f:
    json.dump(thresholds(matrix(a), {"r1": row(flip(1048576)), "r2": row(flip(2097152)), "r3": row(),
                                     "r4": row(flip(4096, "PASS:Qc", "VARIES:W/A"))}), f)
# Bad input.
v2 = matrix(a); v2["schema_version"] = 2
json.dump(v2, open(f"{d}/v2.json", "w"))
json.dump({"not": "a matrix"}, open(f"{d}/notm.json", "w"))
raw = gzip.compress(json.dumps(matrix(a)).encode())
open(f"{d}/trunc.json.gz", "wb").write(raw[: len(raw) // 2])
EOF

# Identical matrices: nothing changed.
run 0 diff "$tmp/a.json" "$tmp/a2.json"
grep -q "^A -> B: 0 cases changed$" "$tmp/out" || fail "identical matrices: no '0 cases changed': $(cat "$tmp/out")"
[ -s "$tmp/err" ] && fail "identical matrices: stderr: $(cat "$tmp/err")"

# A against B (gzip): four changes, each in its group; times and the VARIES order are not changes.
run 1 diff "$tmp/a.json" "$tmp/b.json.gz"
t="$tmp/out"
has "$t" "A -> B: 4 cases changed"
has "$t" "  regressed 1, fixed 0, newly NOTSUPP 1, no longer NOTSUPP 0, changed 1, only in A 0, only in B 1"
for want in "regressed (1)|  c.pass_fail  W -> FAIL  (call 10.0 us -> 10.0 us)" \
    "newly NOTSUPP (1)|  c.notsupp  A -> NOTSUPP  (call 10.0 us -> 10.0 us)" \
    "changed (1)|  c.w_a  W -> A  (call 20.0 us -> 5.0 us; host: waits -> returns)" \
    "only in B (1)|  c.only_b  A  (call 10.0 us)"; do
    head=${want%%|*} line=${want#*|}
    [ "$(grep -A1 -xF "$head" "$t" | tail -n 1)" = "$line" ] ||
        fail "text: under '$head' expected '$line', got '$(grep -A1 -xF "$head" "$t" | tail -n 1)'"
done
lacks "$t" "c.timing"
lacks "$t" "c.varies"
lacks "$t" "fixed ("
# The environment side by side, differing rows marked.
grep -q '^\* GPU  *Test GPU  *Other GPU$' "$t" || fail "text: the GPU row is not marked as differing"
grep -q '^\* CUDA_LAUNCH_BLOCKING  *-  *1$' "$t" || fail "text: no CUDA_LAUNCH_BLOCKING row (- against 1)"
grep -q '^  driver API  *13.0  *13.0$' "$t" || fail "text: the driver API row is wrong or marked"
grep -q '^\* counts  *PASS 5, VARIES 1  *PASS 4, VARIES 1, FAIL 1, NOTSUPP 1$' "$t" ||
    fail "text: counts row: $(grep counts "$t")"

# Markdown: the header table, the counts, one table per non-empty group.
run 1 diff "$tmp/a.json" "$tmp/b.json.gz" --format md
m="$tmp/out"
has "$m" "| GPU | Test GPU | Other GPU | yes |"
has "$m" "| runtime | 13.0 | 13.0 |  |"
has "$m" "## A → B: 4 cases changed"
has "$m" "| regressed | 1 |"
has "$m" "| fixed | 0 |"
has "$m" "### changed (1)"
has "$m" "| \`c.w_a\` | W | A | call 20.0 us → 5.0 us; host: waits → returns |"
has "$m" "| \`c.pass_fail\` | W | FAIL | call 10.0 us → 10.0 us |"
has "$m" "| \`c.only_b\` | absent | A | call 10.0 us |"
lacks "$m" "### fixed"

run 1 diff "$tmp/a.json" "$tmp/e.json" --format md
has "$tmp/out" "| \`c.w_a\` | W | A\\|&lt;b&gt; | call 20.0 us → 5.0 us; host: waits → returns |"
has "$tmp/out" "| GPU | Test GPU | GPU \\| &lt;script&gt;x&lt;/script&gt; | yes |"
lacks "$tmp/out" "<script>"

# CSV: exactly these lines, CRLF-terminated, RFC 4180 quoting.
run 1 diff "$tmp/a.json" "$tmp/b.json.gz" --format csv
printf '%s\r\n' "group,id,status_a,status_b,symbol_a,symbol_b,conformance_a,conformance_b" \
    "regressed,c.pass_fail,PASS,FAIL,W,,," \
    "newly NOTSUPP,c.notsupp,PASS,NOTSUPP,A,,," \
    "changed,c.w_a,PASS,PASS,W,A,," \
    "only in B,c.only_b,,PASS,,A,," >"$tmp/want.csv"
cmp -s "$tmp/out" "$tmp/want.csv" || fail "csv differs: $(diff <(cat -A "$tmp/want.csv") <(cat -A "$tmp/out"))"

# Three matrices: each later one against A; CSV names the later matrix; a quoted id.
run 1 diff "$tmp/a.json" "$tmp/b.json.gz" "$tmp/c.json" --format csv
has "$tmp/out" "matrix,group,id,status_a,status_b,symbol_a,symbol_b,conformance_a,conformance_b"
has "$tmp/out" "$tmp/b.json.gz,changed,c.w_a,PASS,PASS,W,A,,"
has "$tmp/out" "$tmp/c.json,only in A,\"x,\"\"y\"\"\",PASS,,A,,,"
[ "$(wc -l <"$tmp/out")" -eq 6 ] || fail "3-matrix csv: $(wc -l <"$tmp/out") lines, expected 6"
run 1 diff "$tmp/a.json" "$tmp/a2.json" "$tmp/c.json"
has "$tmp/out" "A -> B: 0 cases changed"
has "$tmp/out" "A -> C: 1 case changed"
has "$tmp/out" "only in A (1)"

run 1 diff "$tmp/ra.json" "$tmp/rb.json"
has "$tmp/out" "A -> B: 2 cases changed"
has "$tmp/out" "  c.timing   A -> A  (call 2.0 us -> 2.0 us; rejected: cudaErrorInvalidValue -> cudaErrorNotSupported)"
has "$tmp/out" "  c.notsupp  A -> A  (call 10.0 us -> 10.0 us)"

# A verdict field one matrix records in no case (landing, before the suite observed it) is
# not compared, nor is its mark: a VARIES cell keeps each other symbol once, and a case
# VARIES on it alone is a PASS. Where both record it, it is.
run 0 diff "$tmp/la.json" "$tmp/lb.json"
has "$tmp/out" "A -> B: 0 cases changed"
run 1 diff "$tmp/lb.json" "$tmp/lc.json"
has "$tmp/out" "A -> B: 3 cases changed"
has "$tmp/out" "  c.timing     VARIES A~/A -> A  (call 2.0 us -> 2.0 us)"
has "$tmp/out" "  c.pass_fail  W~ -> W  (call 10.0 us -> 10.0 us; landed: pending -> complete)"
has "$tmp/out" "  c.varies     VARIES A/W~/W -> VARIES W/A  (call 10.0 us -> 10.0 us)"

# Conformance: CONFORMS -> DEVIATES regressed, DEVIATES -> RECORDED fixed; not compared without a spec in A.
run 1 diff "$tmp/sa.json" "$tmp/sb.json" --format csv
printf '%s\r\n' "group,id,status_a,status_b,symbol_a,symbol_b,conformance_a,conformance_b" \
    "regressed,c.notsupp,PASS,PASS,A,A,CONFORMS,DEVIATES" \
    "fixed,c.timing,PASS,PASS,A,A,DEVIATES,RECORDED" >"$tmp/want.csv"
cmp -s "$tmp/out" "$tmp/want.csv" || fail "conformance csv differs: $(diff <(cat -A "$tmp/want.csv") <(cat -A "$tmp/out"))"
run 1 diff "$tmp/sa.json" "$tmp/sb.json"
has "$tmp/out" "  c.notsupp  A [CONFORMS] -> A [DEVIATES]  (call 10.0 us -> 10.0 us)"

# Thresholds: compared where both matrices have the section; a change is exit 1.
run 1 diff "$tmp/ta.json" "$tmp/tb.json.gz"
t="$tmp/out"
has "$t" "A -> B: 0 cases changed"
[ "$(sed -n '/^thresholds A -> B/,$p' "$t")" = "thresholds A -> B: 3 changed
  r1: the flip from Qc to W moved from 2,097,153 to 1,048,577 bytes
  r2: flips changed: no flip up to 268,435,456 -> Qc up to 2,097,152 / W from 2,097,153
  r3: only in B" ] || fail "thresholds text: $(sed -n '/^thresholds/,$p' "$t")"
lacks "$t" "r4"
run 1 diff "$tmp/ta.json" "$tmp/tb.json.gz" --format md
m="$tmp/out"
has "$m" "## Thresholds A → B: 3 changed"
has "$m" "| row | A | B | change |"
has "$m" "| \`r1\` | Qc up to 2,097,152 / W from 2,097,153 | Qc up to 1,048,576 / W from 1,048,577 | the flip from Qc to W moved from 2,097,153 to 1,048,577 bytes |"
has "$m" "| \`r2\` | no flip up to 268,435,456 | Qc up to 2,097,152 / W from 2,097,153 | flips changed |"
has "$m" "| \`r3\` | absent | no flip up to 268,435,456 | only in B |"
lacks "$m" "r4"
# CSV: the cases CSV as it was (no case changed: its header alone); the threshold changes with --section thresholds.
run 1 diff "$tmp/ta.json" "$tmp/tb.json.gz" --format csv
printf '%s\r\n' "group,id,status_a,status_b,symbol_a,symbol_b,conformance_a,conformance_b" >"$tmp/want.csv"
cmp -s "$tmp/out" "$tmp/want.csv" || fail "thresholds: the cases csv changed: $(cat -A "$tmp/out")"
run 1 diff "$tmp/ta.json" "$tmp/tb.json.gz" --format csv --section cases
cmp -s "$tmp/out" "$tmp/want.csv" || fail "--section cases: not the cases csv: $(cat -A "$tmp/out")"
run 1 diff "$tmp/ta.json" "$tmp/tb.json.gz" --format csv --section thresholds
printf '%s\r\n' "row,flips_a,flips_b,change" \
    'r1,"Qc up to 2,097,152 / W from 2,097,153","Qc up to 1,048,576 / W from 1,048,577","the flip from Qc to W moved from 2,097,153 to 1,048,577 bytes"' \
    'r2,"no flip up to 268,435,456","Qc up to 2,097,152 / W from 2,097,153",flips changed' \
    'r3,,"no flip up to 268,435,456",only in B' >"$tmp/want.csv"
cmp -s "$tmp/out" "$tmp/want.csv" || fail "thresholds csv differs: $(diff <(cat -A "$tmp/want.csv") <(cat -A "$tmp/out"))"
run 1 diff "$tmp/ta.json" "$tmp/ta.json" "$tmp/tb.json.gz" --format csv --section thresholds
has "$tmp/out" "matrix,row,flips_a,flips_b,change"
has "$tmp/out" "$tmp/tb.json.gz,r3,,\"no flip up to 268,435,456\",only in B"
[ "$(wc -l <"$tmp/out")" -eq 4 ] || fail "3-matrix thresholds csv: $(wc -l <"$tmp/out") lines, expected 4"
# The same thresholds: nothing changed.
run 0 diff "$tmp/ta.json" "$tmp/ta.json"
has "$tmp/out" "thresholds A -> B: 0 changed"
run 0 diff "$tmp/ta.json" "$tmp/ta.json" --format csv --section thresholds
printf '%s\r\n' "row,flips_a,flips_b,change" >"$tmp/want.csv"
cmp -s "$tmp/out" "$tmp/want.csv" || fail "thresholds csv without change: $(cat -A "$tmp/out")"
# In one matrix only: said in a line, not a change; nothing where neither has them.
run 0 diff "$tmp/a.json" "$tmp/ta.json"
has "$tmp/out" "thresholds: only in B"
run 0 diff "$tmp/ta.json" "$tmp/a.json" --format md
has "$tmp/out" "thresholds: only in A"
lacks "$tmp/out" "## Thresholds"
run 0 diff "$tmp/a.json" "$tmp/a2.json" --format md
lacks "$tmp/out" "hresholds"
# --series leaves them out.
run 0 diff --series "$tmp/ta.json" "$tmp/tb.json.gz"
lacks "$tmp/out" "hresholds"
error "--section wants cases or thresholds, not 'all'" diff "$tmp/ta.json" "$tmp/tb.json.gz" --format csv --section all
error "option '--section' needs a value" diff "$tmp/ta.json" "$tmp/tb.json.gz" --format csv --section
error "--section applies to --format csv" diff "$tmp/ta.json" "$tmp/tb.json.gz" --section thresholds
error "--section applies to --format csv" diff "$tmp/ta.json" "$tmp/tb.json.gz" --format md --section cases
error "--section does not apply to --series" diff --series "$tmp/ta.json" "$tmp/tb.json.gz" --format csv --section thresholds

# --series: one table of the cases whose outcome changes along the series, each
# matrix named by the one setting that differs (the runtime), "changed at" where.
run 1 diff --series "$tmp/s1.json" "$tmp/s2.json" "$tmp/s3.json"
has "$tmp/out" "series runtime 12.0 -> runtime 12.2 -> runtime 12.4: 2 cases change"
has "$tmp/out" "  case         runtime 12.0  runtime 12.2  runtime 12.4  changed at"
has "$tmp/out" "  c.notsupp    NOTSUPP       NOTSUPP       A             runtime 12.4"
has "$tmp/out" "  c.pass_fail  W             FAIL          FAIL          runtime 12.2"
[ "$(grep -c '^  c\.' "$tmp/out")" -eq 2 ] || fail "series: $(grep -c '^  c\.' "$tmp/out") rows, expected 2"
grep -q "^\* runtime  *12.0  *12.2  *12.4$" "$tmp/out" || fail "series: no environment table with the runtimes"
lacks "$tmp/out" "baseline"
run 1 diff "$tmp/s1.json" "$tmp/s2.json" "$tmp/s3.json" --series --format md
has "$tmp/out" "## Series runtime 12.0 → runtime 12.2 → runtime 12.4: 2 cases change"
has "$tmp/out" "| case | runtime 12.0 | runtime 12.2 | runtime 12.4 | changed at |"
has "$tmp/out" "| \`c.pass_fail\` | W | FAIL | FAIL | runtime 12.2 |"
has "$tmp/out" "| \`c.notsupp\` | NOTSUPP | NOTSUPP | A | runtime 12.4 |"
run 1 diff --series "$tmp/s1.json" "$tmp/s2.json" "$tmp/s3.json" --format csv
printf '%s\r\n' "id,runtime 12.0,runtime 12.2,runtime 12.4,changed_at" \
    "c.notsupp,NOTSUPP,NOTSUPP,A,runtime 12.4" "c.pass_fail,W,FAIL,FAIL,runtime 12.2" >"$tmp/want.csv"
cmp -s "$tmp/out" "$tmp/want.csv" || fail "series csv differs: $(diff <(cat -A "$tmp/want.csv") <(cat -A "$tmp/out"))"
# A setting that older matrices did not record is shown so, and names nothing.
run 1 diff --series "$tmp/s1.json" "$tmp/s2.json" "$tmp/s3.json" "$tmp/s4.json"
has "$tmp/out" "series runtime 12.0 -> runtime 12.2 -> runtime 12.4 -> runtime 12.6: 2 cases change"
grep -q "^\* module loading  *(not recorded)  *(not recorded)  *(not recorded)  *lazy$" "$tmp/out" ||
    fail "series: no module-loading row marking the matrices that lack it: $(grep 'module' "$tmp/out")"
run 1 diff --series "$tmp/s1.json" "$tmp/s2.json" "$tmp/s3.json"
lacks "$tmp/out" "module loading"
# The way work was held (run --hold) is a setting of the run: shown, and marked where it differs.
python3 - "$tmp" <<'EOF' || fail "python3 could not build the held-by matrices"
import json, sys
d = sys.argv[1]
m = json.load(open(f"{d}/a.json"))
for name, hold in (("k", "kernel"), ("wv", "wait-value")):
    m["run"]["harness"] = {"hold": hold}
    json.dump(m, open(f"{d}/hold-{name}.json", "w"))
EOF
run 0 diff "$tmp/hold-k.json" "$tmp/hold-wv.json"
grep -q "^\* hold  *kernel  *wait-value$" "$tmp/out" || fail "no hold row marking the difference: $(grep hold "$tmp/out")"
run 0 diff "$tmp/a.json" "$tmp/a.json"
lacks "$tmp/out" "hold"
run 0 render "$tmp/hold-wv.json"
grep -q "^| Settings | .*; work held by wait-value |$" "$tmp/out" || fail "render: no 'work held by': $(grep Settings "$tmp/out")"
# More than 50 cases only in one matrix (the suite grew): counted by call in text and Markdown,
# every id in CSV.
python3 - "$tmp" <<'EOF' || fail "python3 could not build the grown matrix"
import json, sys
d = sys.argv[1]
m = json.load(open(f"{d}/a.json"))
proto = next(iter(m["cases"].values()))
for i in range(60):
    m["cases"][f"grown_call.n{i:02d}.op_implied.busy_same"] = proto
m["cases"]["other_call.op_implied.busy_same"] = proto
json.dump(m, open(f"{d}/grown.json", "w"))
EOF
run 1 diff "$tmp/a.json" "$tmp/grown.json"
has "$tmp/out" "only in B (61)"
has "$tmp/out" "  by call: grown_call 60, other_call 1"
lacks "$tmp/out" "grown_call.n00"
run 1 diff "$tmp/a.json" "$tmp/grown.json" --format md
has "$tmp/out" "| \`grown_call\` | 60 |"
lacks "$tmp/out" "grown_call.n00"
run 1 diff "$tmp/a.json" "$tmp/grown.json" --format csv
[ "$(grep -c '^only in B,grown_call\.' "$tmp/out")" -eq 60 ] || fail "grown csv: not every id: $(head -n 3 "$tmp/out")"
# More than 1,000 cases changed in one group (a setting that changes a whole class of calls):
# tallied by call and change, A's outcome to B's, in text and Markdown; every id in CSV.
python3 - "$tmp" <<'EOF' || fail "python3 could not build the tallied matrices"
import copy, json, sys
d = sys.argv[1]
a = json.load(open(f"{d}/a.json"))
proto = next(c for c in a["cases"].values() if c["status"] == "PASS")
a["cases"], b = {}, copy.deepcopy(a)
for i in range(1001):
    cid = f"big_call.n{i:04d}.op_implied.busy_same"
    a["cases"][cid] = dict(copy.deepcopy(proto), symbol="A", verdict=dict(proto["verdict"], host="returns"))
    b["cases"][cid] = dict(copy.deepcopy(proto), symbol="W" if i < 1000 else "Q",
                           verdict=dict(proto["verdict"], host="waits" if i < 1000 else "returns"))
for name, m in (("tally-a", a), ("tally-b", b)):
    m["run"]["counts"] = {"PASS": 1001}
    json.dump(m, open(f"{d}/{name}.json", "w"))
EOF
run 1 diff "$tmp/tally-a.json" "$tmp/tally-b.json"
contains "$tmp/out" "by call and change (every id: --format csv):"
grep -qE '^  big_call +A( \[[A-Z]+\])? -> W( \[[A-Z]+\])?  1000$' "$tmp/out" || fail "no tally of big_call A -> W: $(head -n 30 "$tmp/out")"
grep -qE '^  big_call +A( \[[A-Z]+\])? -> Q( \[[A-Z]+\])?  1$' "$tmp/out" || fail "no tally of big_call A -> Q"
lacks "$tmp/out" "big_call.n0000"
run 1 diff "$tmp/tally-a.json" "$tmp/tally-b.json" --format md
contains "$tmp/out" 'Counted by call and change (every id: `--format csv`).'
grep -qE '^\| `big_call` \| A( \[[A-Z]+\])? \| W( \[[A-Z]+\])? \| 1000 \|$' "$tmp/out" || fail "no Markdown tally row: $(grep big_call "$tmp/out" | head -n 3)"
lacks "$tmp/out" "big_call.n0000"
run 1 diff "$tmp/tally-a.json" "$tmp/tally-b.json" --format csv
[ "$(grep -c 'big_call\.n' "$tmp/out")" -eq 1001 ] || fail "tallied csv: not every id: $(head -n 3 "$tmp/out")"
# A change and its reversal: each step named; no one setting differs: letters.  A case absent from
# some matrices and the same wherever present is the suite's coverage, not a change: counted, not listed.
run 1 diff --series "$tmp/a.json" "$tmp/b.json.gz" "$tmp/a2.json" --format csv
has "$tmp/out" "id,A,B,C,changed_at"
has "$tmp/out" "c.pass_fail,W,FAIL,W,\"B, C\""
lacks "$tmp/out" "c.only_b"
run 1 diff --series "$tmp/a.json" "$tmp/b.json.gz" "$tmp/a2.json"
has "$tmp/out" "(1 more case is absent from some matrices, the same wherever present: not listed)"
lacks "$tmp/out" "c.only_b"
run 1 diff --series "$tmp/a.json" "$tmp/b.json.gz" "$tmp/a2.json" --format md
has "$tmp/out" "1 more case is absent from some matrices (the suite's coverage differs), the same wherever present: not listed."
# No change along the series: exit 0, no rows.
run 0 diff --series "$tmp/a.json" "$tmp/a2.json" "$tmp/a.json"
has "$tmp/out" "series A -> B -> C: 0 cases change"
lacks "$tmp/out" "changed at"
run 0 diff --series "$tmp/a.json" "$tmp/a2.json" --format csv
printf '%s\r\n' "id,A,B,changed_at" >"$tmp/want.csv"
cmp -s "$tmp/out" "$tmp/want.csv" || fail "series csv without change: $(cat -A "$tmp/out")"
error "diff --series wants at least two matrix files" diff --series "$tmp/a.json"

# --out: the same bytes in the file, nothing on stdout.
run 1 diff "$tmp/a.json" "$tmp/b.json.gz" --format md --out "$tmp/report.md"
[ -s "$tmp/out" ] && fail "--out: wrote to stdout too"
"$cts" diff "$tmp/a.json" "$tmp/b.json.gz" --format md >"$tmp/stdout.md"
cmp -s "$tmp/report.md" "$tmp/stdout.md" || fail "--out: the file differs from stdout"
run 1 diff "$tmp/a.json" "$tmp/b.json.gz" --format md --out -
cmp -s "$tmp/out" "$tmp/stdout.md" || fail "--out -: not the same as standard output"

# Errors: exit 2, one line naming the problem, and no output file.
error "diff wants at least two matrix files" diff --
error "diff wants at least two matrix files" diff "$tmp/a.json"
error "cannot read '$tmp/none.json'" diff "$tmp/a.json" "$tmp/none.json" --out "$tmp/o.txt"
error "'$tmp/notm.json' is not a cuda-sync-cts matrix" diff "$tmp/notm.json" "$tmp/a.json" --out "$tmp/o.txt"
error "'$tmp/v2.json' has schema version 2" diff "$tmp/a.json" "$tmp/v2.json" --out "$tmp/o.txt"
error "'$tmp/trunc.json.gz' is a truncated or damaged gzip file" diff "$tmp/a.json" "$tmp/trunc.json.gz"
error "--format wants text, md or csv, not 'html'" diff "$tmp/a.json" "$tmp/b.json.gz" --format html
error "unknown option '--bogus'" diff "$tmp/a.json" "$tmp/b.json.gz" --bogus
error "option '--format' needs a value" diff "$tmp/a.json" "$tmp/b.json.gz" --format
error "cannot write '$tmp/no/dir/o.txt'" diff "$tmp/a.json" "$tmp/b.json.gz" --out "$tmp/no/dir/o.txt"
[ -e "$tmp/o.txt" ] && fail "an error left the --out file behind"
ls "$tmp" | grep -q '\.tmp\.' && fail "an error left a temporary file: $(ls "$tmp")"

"$cts" --help | grep -q '^       sync-cts diff A.json\[.gz\] B.json\[.gz\]' || fail "--help does not list diff"

# A matrix against a copy with one case's verdict changed: exactly that case.
small_matrix "$tmp/small.json"
# Two matrices with no cases: nothing changed (at 5b7a8bd diff sorted a NULL array, undefined
# behaviour a UBSan build reports: issue 43, D14).
python3 - "$tmp/small.json" "$tmp/empty.json" <<'EOF' || fail "python3 could not empty a matrix"
import json, sys
m = json.load(open(sys.argv[1]))
m["cases"] = {}
m["run"]["counts"] = {k: 0 for k in m["run"]["counts"]}
m["run"]["cases"] = 0
json.dump(m, open(sys.argv[2], "w"))
EOF
run 0 diff "$tmp/empty.json" "$tmp/empty.json"
id=$(python3 - "$tmp/small.json" "$tmp/altered.json" <<'EOF'
import json, sys
m = json.load(open(sys.argv[1]))
promised = lambda c: any(x["about"] == "host" and x["prediction"] == "guaranteed_not"
                         for x in (c.get("spec") or {}).get("clauses", []))  # documented: returns
cid = sorted(k for k, c in m["cases"].items() if c["status"] == "PASS" and c["symbol"] == "A" and promised(c))[0]
c = m["cases"][cid]
c["symbol"] = "W"
c["verdict"].update(host="waits", op_after=None, third_blocking=None, third_nonblocking=None)
c["evidence"]["host"] = ["waits"] * len(c["evidence"]["host"])
json.dump(m, open(sys.argv[2], "w"))
print(cid)
EOF
) || fail "python3 could not alter the small matrix"
# Judged again, the altered case (a call that now waits where the
# documentation promises it does not) deviates: a regression.
"$cts" judge "$tmp/altered.json" >/dev/null || fail "judge of the altered matrix failed"
cp "$tmp/small.json" "$tmp/same.json"
run 0 diff "$tmp/small.json" "$tmp/same.json"
has "$tmp/out" "A -> B: 0 cases changed"
run 1 diff "$tmp/small.json" "$tmp/altered.json" --format csv
printf '%s\r\n' "group,id,status_a,status_b,symbol_a,symbol_b,conformance_a,conformance_b" \
    "regressed,$id,PASS,PASS,A,W,CONFORMS,DEVIATES" >"$tmp/want.csv"
cmp -s "$tmp/out" "$tmp/want.csv" || fail "altered matrix: csv is not exactly '$id': $(head -c 500 "$tmp/out")"
run 1 diff "$tmp/small.json" "$tmp/altered.json"
has "$tmp/out" "A -> B: 1 case changed"
grep -q "^  $id  A \[CONFORMS\] -> W \[DEVIATES\]  (call [0-9.]* us -> [0-9.]* us; host: returns -> waits)$" "$tmp/out" ||
    fail "altered matrix: no line for '$id': $(tail -n 3 "$tmp/out")"

# End to end: two committed matrices give the committed comparison, byte for
# byte, holding one matrix's summary at a time (peak RSS under 100 MB; a
# matrix as a jansson tree is some 200 MB).
rel=reports/nvidia-h200/driver-580.159.04/cuda-13.0
want="$root/reports/comparisons/driver-580.159.04-cuda-13.0/h200.lazy-vs-eager.md"
rss=$(cd "$root" && python3 - "$cts" "$tmp/lazy-vs-eager.md" "$rel" <<'EOF'
import resource, subprocess, sys
cts, out, rel = sys.argv[1:]
with open(out, "w") as f:
    rc = subprocess.run([cts, "diff", f"{rel}/default/matrix.json.gz", f"{rel}/module-loading-eager/matrix.json.gz",
                         "--format", "md"], stdout=f).returncode
print(rc, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
EOF
) || fail "python3 could not run the committed comparison"
[ "${rss%% *}" = 1 ] || fail "the committed comparison: diff exited ${rss%% *}, expected 1"
cmp -s "$tmp/lazy-vs-eager.md" "$want" || fail "diff of the committed matrices is not $(basename "$want"): $(diff "$want" "$tmp/lazy-vs-eager.md" | head -n 5)"
# (Under the sanitizers, whose shadow memory and redzones take their share, the bound is not held.)
if [ -n "${CTS_SANITIZED:-}" ]; then
    echo "diff of two committed matrices peaked at ${rss#* } KiB: not held to 100 MB in a sanitizer build"
else
    [ "${rss#* }" -lt 102400 ] || fail "diff of two committed matrices peaked at ${rss#* } KiB (more than 100 MB)"
fi

# The committed runtime series: the H100's matrices under every runtime give it, byte for byte.
# Under the sanitizers the comparison above is the end-to-end reading of committed matrices (the
# series reads nine more of them through the same code, 11 of this test's 19 s there): the
# normal build's unit.diff reads the series.
if [ -n "${CTS_SANITIZED:-}" ]; then
    echo "the committed runtime series: read in the normal build (a sanitizer build reads two matrices above)"
    finish "diff checks"
    exit 0
fi
rel=reports/nvidia-h100-80gb-hbm3/driver-580.159.04
want="$root/reports/comparisons/driver-580.159.04-runtimes/h100.default.md"
series=()
for d in "$root/$rel"/cuda-*/default; do series+=("$rel/${d#"$root/$rel/"}/matrix.json.gz"); done
mapfile -t series < <(printf '%s\n' "${series[@]}" | sort -V)
[ "${#series[@]}" -ge 6 ] || fail "the runtime series: ${#series[@]} committed runtimes, expected at least 6"
rc=0
(cd "$root" && "$cts" diff --series "${series[@]}" --format md) >"$tmp/series.md" || rc=$?
[ "$rc" = 1 ] || fail "the committed runtime series: diff exited $rc, expected 1"
cmp -s "$tmp/series.md" "$want" || fail "diff --series of the committed runtimes is not $(basename "$want"): $(diff "$want" "$tmp/series.md" | head -n 5)"

finish "diff checks"
