#!/usr/bin/env bash
# sync-cts fleet: matrices grouped by configuration, each GPU outside its
# group's majority named with its cases, known variability aside; split cases;
# the four formats; exit 0 / 1 / 2, one-line errors and nothing written on bad
# input.  The GPUs are copies of a small matrix cut from the committed H200 one
# (python3 stamps each with a host, a UUID and a date, and alters some); one end
# to end check on the whole committed matrix.
. "$(dirname "$0")/lib.sh" "$@"
need_python

lacks() { grep -qF -- "$2" "$1" && fail "$(basename "$1") mentions '$2'"; }

small_matrix "$tmp/small.json"
mkdir -p "$tmp/node1" "$tmp/node2" "$tmp/other" "$tmp/empty"
# node1: gpu0 gpu1; node2: gpu2 gpu3 (gpu3 waits where the rest return: the
# outlier; gpu2 raced a landing, known noise); other: one GPU of another
# configuration (CUDA_LAUNCH_BLOCKING=1).
python3 - "$tmp" <<'EOF' || fail "python3 could not build the fleet"
import copy, json, sys
d = sys.argv[1]
m = json.load(open(f"{d}/small.json"))
cases = m["cases"]
a = sorted(k for k, c in cases.items() if c["status"] == "PASS" and c["symbol"] == "A")
w = sorted(k for k, c in cases.items() if c["status"] == "PASS" and c["symbol"] == "W"
           and c["verdict"].get("landed") == "complete")
held, landing = a[0], w[0]
open(f"{d}/ids", "w").write(f"{held}\n{landing}\n")
def gpu(path, host, n, edits=(), lb=None):
    v = copy.deepcopy(m)
    v["environment"]["host"]["name"] = host
    v["environment"]["gpu"]["uuid"] = f"GPU-test-{n}"
    v["environment"]["settings"]["environment_variables"]["CUDA_VISIBLE_DEVICES"] = str(n)
    v["run"]["date"] = f"2026-11-28T0{n}:00:00Z"
    if lb:
        v["environment"]["settings"]["environment_variables"]["CUDA_LAUNCH_BLOCKING"] = lb
    for cid, symbol, verdict in edits:
        v["cases"][cid]["symbol"] = symbol
        v["cases"][cid]["verdict"].update(verdict)
    json.dump(v, open(f"{d}/{path}", "w"), sort_keys=True)
gpu("node1/gpu0.json", "node1", 0)
gpu("node1/gpu1.json", "node1", 1)
gpu("node2/gpu2.json", "node2", 2, [(landing, "W~", {"landed": "pending"})])
gpu("node2/gpu3.json", "node2", 3, [(held, "W", {"host": "waits"})])
gpu("other/gpu4.json", "node3", 4, lb="1")
# Known variability of the group: the landing race.
gpu("k1.json", "node9", 5)
gpu("k2.json", "node9", 6, [(landing, "W~", {"landed": "pending"})])
EOF
{ read -r held; read -r landing; } <"$tmp/ids"
run 0 variability "$tmp/k1.json" "$tmp/k2.json" --out "$tmp/known.json"

# The outlier named, with its case, and no other GPU; the landing race too without known variability.
run 1 fleet "$tmp/node1" "$tmp/node2" "$tmp/other"
contains "$tmp/out" "fleet: 5 matrices in 2 groups"
contains "$tmp/out" "OUTLIER node2/GPU-test-3 ($tmp/node2/gpu3.json): 1 case outside its group's majority"
contains "$tmp/out" "    $held: W (majority A)"
contains "$tmp/out" "OUTLIER node2/GPU-test-2"
contains "$tmp/out" "    $landing: W~ (majority W)"
contains "$tmp/out" "ok node1/GPU-test-0"
contains "$tmp/out" "1 GPU (nothing to compare)"
contains "$tmp/out" "fleet: 2 GPUs outside their group's majority, 0 cases split"
# With the group's known variability: only the outlier.
run 1 fleet "$tmp/node1" "$tmp/node2" "$tmp/other" --known "$tmp/known.json"
contains "$tmp/out" "known variability: $tmp/known.json"
contains "$tmp/out" "ok node2/GPU-test-2"
contains "$tmp/out" "fleet: 1 GPU outside its group's majority, 0 cases split"
run 1 fleet "$tmp/node1" "$tmp/node2" --known "$tmp/known.json" --format json --out "$tmp/fleet.json"
python3 - "$tmp/fleet.json" "$held" <<'EOF' || fail "fleet's JSON does not name exactly the outlier"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["schema"] == "cuda-sync-cts/fleet" and r["outliers"] == 1 and r["split"] == 0, r
(g,) = r["groups"]
out = [m for m in g["members"] if m["outside"]]
assert [m["gpu_uuid"] for m in out] == ["GPU-test-3"] and out[0]["host"] == "node2", out
assert out[0]["outside"] == [{"case": sys.argv[2], "outcome": "W", "majority": "A"}], out[0]["outside"]
assert len(g["members"]) == 4 and g["configuration"]["visible_devices"] == 1, g["configuration"]
EOF
# Without the outlier: exit 0, nothing named.
run 0 fleet "$tmp/node1" "$tmp/node2/gpu2.json" --known "$tmp/known.json"
contains "$tmp/out" "fleet: 0 GPUs outside their group's majority, 0 cases split"
lacks "$tmp/out" "OUTLIER"
# Two GPUs that disagree: no majority, the case split (both named), exit 1.
run 1 fleet "$tmp/node1/gpu0.json" "$tmp/node2/gpu3.json"
contains "$tmp/out" "SPLIT $held: node1/GPU-test-0 A; node2/GPU-test-3 W;"
contains "$tmp/out" "0 GPUs outside their group's majority, 1 case split"
# Markdown and HTML say the same.
run 1 fleet "$tmp/node1" "$tmp/node2" --known "$tmp/known.json" --format md
contains "$tmp/out" "# Fleet: 4 matrices, 1 GPU outside its group's majority, 0 cases split"
contains "$tmp/out" "| \`$held\` | W | A |"
run 1 fleet "$tmp/node1" "$tmp/node2" --known "$tmp/known.json" --format html --out "$tmp/fleet.html"
contains "$tmp/fleet.html" "<td>$held</td><td>W</td><td>A</td>"
contains "$tmp/fleet.html" "</html>"

# Bad input: one line, exit 2, nothing written.
error "no matrix in" fleet "$tmp/empty" --out "$tmp/x.txt"
error "cannot read" fleet "$tmp/missing" --out "$tmp/x.txt"
error "fleet wants matrices or directories of them" fleet --out "$tmp/x.txt"
error "are one run (the same GPU and date)" fleet "$tmp/node1" "$tmp/node1/gpu0.json" --out "$tmp/x.txt"
cp "$tmp/known.json" "$tmp/node1/notes.json"
error "notes.json" fleet "$tmp/node1" --out "$tmp/x.txt"
rm "$tmp/node1/notes.json"
error "is known variability of a configuration no matrix given has" fleet "$tmp/other" --known "$tmp/known.json" --out "$tmp/x.txt"
error "--format wants text, md, html or json" fleet "$tmp/node1" --format pdf --out "$tmp/x.txt"
error "is the input matrix" fleet "$tmp/node1" --out "$tmp/node1/gpu0.json"
[ -e "$tmp/x.txt" ] && fail "a refused fleet wrote its output"
# What fleet and variability write beside the matrices is not read as one.
cp "$tmp/known.json" "$tmp/node1/variability.json"
cp "$tmp/fleet.json" "$tmp/node1/fleet.json"
run 0 fleet "$tmp/node1"
rm "$tmp/node1/variability.json" "$tmp/node1/fleet.json"

# End to end: the committed H200 matrix and two copies stamped as other GPUs of
# its configuration, one with a held-call verdict changed: that one is named,
# with that case and no other.
python3 - "$h200" "$tmp" <<'EOF' || fail "python3 could not copy the committed matrix"
import gzip, sys
src, d = sys.argv[1:3]
text = gzip.open(src, "rt").read()
uuid = text.split('"uuid": "', 1)[1].split('"', 1)[0]
for n, perturb in ((1, False), (2, True)):
    t = text.replace(uuid, f"GPU-copy-{n}").replace('"date": "', f'"date": "copy{n}-', 1)
    if perturb:
        cid = "memcpy.h2d.pageable.4KiB.explicit.op_implied.busy_same"
        i = t.index(f'"{cid}": ')
        j = t.index("\n", i)
        line = t[i:j]
        assert '"symbol":"W"' in line and '"host":"waits"' in line, line[:200]
        t = t[:i] + line.replace('"symbol":"W"', '"symbol":"A"').replace('"host":"waits"', '"host":"returns"') + t[j:]
    with gzip.open(f"{d}/copy{n}.json.gz", "wt") as f:
        f.write(t)
EOF
run 1 fleet "$h200" "$tmp/copy1.json.gz" "$tmp/copy2.json.gz"
contains "$tmp/out" "fleet: 3 matrices in 1 group"
contains "$tmp/out" "/GPU-copy-2 ($tmp/copy2.json.gz): 1 case outside its group's majority"
contains "$tmp/out" "    memcpy.h2d.pageable.4KiB.explicit.op_implied.busy_same: A (majority W)"
contains "$tmp/out" "fleet: 1 GPU outside its group's majority, 0 cases split"

finish "fleet tests"
