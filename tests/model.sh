#!/usr/bin/env bash
# sync-cts model: a race detector's synchronization model held against
# matrices -- the format checked, the first matching rule deciding, each host
# prediction (nothing, stream, device, legacy_stream, unspecified) judged,
# disagreements classed missed race / false report with their case ids; exit
# 0 / 1 / 2, one-line errors and nothing written on bad input.  On a small
# matrix cut from the committed H200 one (python3; skipped, 77, without it),
# and the committed documentation model end to end.
. "$(dirname "$0")/lib.sh" "$@"
need_python

lacks() { grep -qF -- "$2" "$1" && fail "$(basename "$1") mentions '$2'"; }

small_matrix "$tmp/small.json"
# model WRITES FILE RULES-JSON: a model file with those rules.
model() {
    python3 -c '
import json, sys
json.dump({"schema": "cuda-sync-cts/model", "schema_version": 1, "tool": "Test tool", "version": "1.0",
           "source": "https://example.invalid/tool", "rules": json.loads(sys.argv[2])}, open(sys.argv[1], "w"))' "$1" "$2" ||
        fail "python3 could not write the model $1"
}
# The small matrix's judged cases, by what the test needs: a synchronous
# device-to-host cudaMemcpy that waits behind work in its stream and returns
# beside work in a non-blocking one; a device-to-device cudaMemcpyAsync on a
# non-blocking stream that returns.
python3 - "$tmp/small.json" >"$tmp/ids" <<'EOF' || fail "python3 could not pick the cases"
import json, sys
cases = json.load(open(sys.argv[1]))["cases"]
def pick(**kw):
    for k, c in sorted(cases.items()):
        if c["status"] == "PASS" and all(c.get(f) == v for f, v in kw.items() if f != "host") and c["verdict"]["host"] == kw["host"]:
            return k
    raise SystemExit(f"no case {kw}")
print(pick(function="cudaMemcpyAsync", direction="d2d", host="returns"))
print(sum(1 for c in cases.values() if c["function"] == "cudaMemcpyAsync"))
EOF
{ read -r async_d2d; read -r n_async; } <"$tmp/ids"

# A model that is right: cudaMemcpyAsync d2d returns.  Exit 0, the rule agrees.
model "$tmp/right.json" '[{"id": "async-d2d", "calls": ["cudaMemcpyAsync"], "direction": ["d2d"],
    "host_waits_for": "nothing", "source": "x.c:1"}]'
run 0 model "$tmp/right.json" "$tmp/small.json"
contains "$tmp/out" "agrees async-d2d (host waits for nothing; x.c:1)"
contains "$tmp/out" "0 of 1 rules disagree with the matrices"
# A rule that must disagree: cudaMemcpyAsync d2d waits for the device.  The
# call returned while the work was held: the tool assumes more
# synchronization than there is (a missed race), named with the case.
model "$tmp/wrong.json" '[{"id": "async-d2d-device", "calls": ["cudaMemcpy*Async"], "direction": ["d2d"],
    "host_waits_for": "device", "source": "x.c:2", "note": "wrong on purpose"}]'
run 1 model "$tmp/wrong.json" "$tmp/small.json"
contains "$tmp/out" "DISAGREES async-d2d-device (host waits for device; x.c:2)"
contains "$tmp/out" "assume more synchronization than measured (missed race)"
contains "$tmp/out" "    $async_d2d: missed race, measured returns ("
lacks "$tmp/out" "false report"
# Its reverse: cudaMemcpy d2h waits for nothing; where it waited behind its
# stream's work, the tool would report a race that cannot happen.
model "$tmp/less.json" '[{"id": "sync-d2h-nothing", "calls": ["cudaMemcpy"], "direction": ["d2h"],
    "host_waits_for": "nothing", "source": "x.c:3"}]'
run 1 model "$tmp/less.json" "$tmp/small.json" --format json --out "$tmp/less.out.json"
python3 - "$tmp/less.out.json" "$tmp/small.json" <<'EOF' || fail "the false reports are not the waits"
import json, sys
r = json.load(open(sys.argv[1]))
cases = json.load(open(sys.argv[2]))["cases"]
assert r["schema"] == "cuda-sync-cts/model-report" and r["disagreeing_rules"] == 1, r
(rule,) = r["rules"]
ids = {c["case"] for c in rule["cases"]}
assert ids and all(c["class"] == "false report" and c["measured"] == "waits" for c in rule["cases"]), rule["cases"]
assert ids == {k for k, c in cases.items() if c["function"] == "cudaMemcpy" and c["direction"] == "d2h"
               and c["status"] == "PASS" and c["verdict"]["host"] == "waits"
               and not c["busy"].startswith(("peer", "other_process", "thread_peer"))}, ids
assert rule["judged"] == rule["agree"] + rule["false_report"] + rule["missed_race"], rule
EOF
# "stream": waits exactly where the case's control holds its stream's later
# work behind the held work -- agrees on every synchronous d2h copy here.
model "$tmp/stream.json" '[{"id": "sync-d2h-stream", "calls": ["cudaMemcpy"], "direction": ["d2h"],
    "host_waits_for": "stream", "source": "x.c:4"}]'
run 0 model "$tmp/stream.json" "$tmp/small.json"
contains "$tmp/out" "agrees sync-d2h-stream"
# "legacy_stream": the waits it predicts are where the held work is in the legacy
# stream or a stream it waits for; a d2d cudaMemcpyAsync never waits, so exactly
# those are missed races, and only on the streams the rule names.
model "$tmp/legacy.json" '[{"id": "async-legacy", "calls": ["cudaMemcpyAsync"], "direction": ["d2d"],
    "stream": ["non_blocking", "blocking"], "host_waits_for": "legacy_stream", "source": "x.c:7"}]'
run 1 model "$tmp/legacy.json" "$tmp/small.json" --format json --out "$tmp/legacy.out.json"
python3 - "$tmp/legacy.out.json" "$tmp/small.json" <<'EOF2' || fail "legacy_stream's predictions are not where the legacy stream waits"
import json, sys
(rule,) = json.load(open(sys.argv[1]))["rules"]
cases = json.load(open(sys.argv[2]))["cases"]
missed = {c["case"] for c in rule["cases"]}
assert missed and all(c["class"] == "missed race" for c in rule["cases"]), rule
for k in missed:
    c = cases[k]
    assert c["op_stream"] in ("nonblocking", "blocking"), k
    assert c["busy"] in ("legacy", "thread_legacy", "blocking", "both", "perthread", "thread_perthread") or (
        c["busy"] in ("same", "thread_same", "same_hostfn") and c["op_stream"] == "blocking"), k
assert rule["covered"] == sum(1 for c in cases.values() if c["function"] == "cudaMemcpyAsync"
                              and c["direction"] == "d2d" and c["op_stream"] in ("nonblocking", "blocking")), rule
EOF2
# orders_later_work_in: where an async copy that returned is behind the held
# work, a third stream's later work is held exactly where the copy orders it;
# "stream" says it orders none, so each third stream found held is a false
# report, and "every_stream" says it orders all, so each found running is a
# missed race (columns held in the control too say nothing).
for o in stream every_stream; do
    model "$tmp/order-$o.json" '[{"id": "async-order", "calls": ["cudaMemcpyAsync"], "host_waits_for": "nothing",
        "orders_later_work_in": "'"$o"'", "source": "x.c:8"}]'
    "$cts" model "$tmp/order-$o.json" "$tmp/small.json" --format json --out "$tmp/order-$o.out.json" ||
        [ $? -eq 1 ] || fail "model with orders_later_work_in $o exited $?"
    python3 - "$tmp/order-$o.out.json" "$tmp/small.json" "$o" <<'EOF2' || fail "orders_later_work_in $o is not judged by the third streams"
import json, sys
(rule,) = json.load(open(sys.argv[1]))["rules"]
cases, o = json.load(open(sys.argv[2]))["cases"], sys.argv[3]
want = {"third_blocking": o == "every_stream", "third_nonblocking": o == "every_stream"}
expect, judged = set(), 0
for k, c in cases.items():
    if c["function"] != "cudaMemcpyAsync" or c["status"] != "PASS" or c["verdict"]["host"] != "returns":
        continue
    if c["busy"].startswith(("peer", "other_process", "thread_peer")) or c["busy"] == "hostfn":
        continue
    if (c["evidence"].get("control") or {}).get("op_after") != "held":
        continue
    for col, w in want.items():
        got = c["verdict"][col]
        if got in ("runs", "held"):
            judged += 1
            if (got == "held") != w:
                expect.add((k, col, "missed race" if w else "false report"))
got = {(c["case"], c["about"], c["class"]) for c in rule["cases"] if c["about"] != "host"}
assert got == expect, (sorted(got - expect)[:3], sorted(expect - got)[:3])
assert rule["later_work"]["judged"] == judged and judged > 0, rule["later_work"]
assert rule["orders_later_work_in"] == o
EOF2
done
# The first matching rule decides: an unspecified rule first leaves the wrong one nothing to judge.
model "$tmp/first.json" '[{"id": "async-any", "calls": ["cudaMemcpyAsync"], "host_waits_for": "unspecified", "source": "x.c:5"},
    {"id": "async-d2d-device", "calls": ["cudaMemcpyAsync"], "direction": ["d2d"], "host_waits_for": "device", "source": "x.c:6"}]'
run 0 model "$tmp/first.json" "$tmp/small.json" --format md
contains "$tmp/out" "| \`async-any\` | unspecified | x.c:5 | $n_async | 0 | 0 | 0 | 0 |"
contains "$tmp/out" "| \`async-d2d-device\` | device | x.c:6 | 0 | 0 | 0 | 0 | 0 | 0 | - |"

run 1 model "$tmp/wrong.json" "$tmp/small.json" --format html --out "$tmp/wrong.html"
contains "$tmp/wrong.html" "<td>$async_d2d</td><td>host</td><td>missed race</td><td>returns</td>"
contains "$tmp/wrong.html" "</html>"

# Bad input: one line, exit 2, nothing written.
error "model wants a model file and at least one matrix" model "$tmp/right.json" --out "$tmp/x.txt"
error "cannot read model" model "$tmp/missing.json" "$tmp/small.json" --out "$tmp/x.txt"
error "is not a model: its schema is not" model "$tmp/small.json" "$tmp/small.json" --out "$tmp/x.txt"
model "$tmp/bad1.json" '[{"id": "a", "calls": ["cudaMemcpy"], "host_waits_for": "sometimes", "source": "x"}]'
error "host_waits_for is not nothing, stream, own_stream, device, legacy_stream or" model "$tmp/bad1.json" "$tmp/small.json" --out "$tmp/x.txt"
model "$tmp/bad2.json" '[{"id": "a", "calls": ["cudaMemcpy"], "host_waits_for": "nothing"}]'
error "has no \"source\"" model "$tmp/bad2.json" "$tmp/small.json" --out "$tmp/x.txt"
model "$tmp/bad3.json" '[{"id": "a", "calls": [], "host_waits_for": "nothing", "source": "x"}]'
error "\"calls\" is not a list of function names" model "$tmp/bad3.json" "$tmp/small.json" --out "$tmp/x.txt"
model "$tmp/bad4.json" '[{"id": "a", "calls": ["x"], "host_waits_for": "nothing", "source": "x"},
    {"id": "a", "calls": ["y"], "host_waits_for": "nothing", "source": "y"}]'
error "two rules are a" model "$tmp/bad4.json" "$tmp/small.json" --out "$tmp/x.txt"
model "$tmp/bad5.json" '[{"id": "a", "calls": ["x"], "host_waits_for": "nothing", "source": "x", "size": {"min": "big"}}]'
error "\"size\" is not" model "$tmp/bad5.json" "$tmp/small.json" --out "$tmp/x.txt"
error "cannot read" model "$tmp/right.json" "$tmp/missing.json" --out "$tmp/x.txt"
error "--format wants text, md, html or json" model "$tmp/right.json" "$tmp/small.json" --format pdf
error "is the input matrix" model "$tmp/right.json" "$tmp/small.json" --out "$tmp/small.json"
[ -e "$tmp/x.txt" ] && fail "a refused model wrote its output"

# End to end: the committed documentation model on the committed H200 matrix.
run 1 model "$root/reports/models/cuda-docs.json" "$h200"
contains "$tmp/out" "agrees memcpy-pageable-h2d (host waits for stream;"
contains "$tmp/out" "DISAGREES launch (host waits for nothing;"
contains "$tmp/out" "    launch.queue_full_thread.op_legacy.busy_nonblocking: false report, measured waits (W)"

finish "model tests"
