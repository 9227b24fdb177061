#!/usr/bin/env python3
"""The fuzz targets' seed corpora, cut from committed files (tests/fuzz.sh runs this):

    seeds.py MATRIX.json.gz WAIVERS.json OUTDIR

OUTDIR/matrix/   small valid matrices (a few cases of different families each, a threshold
                 row with its base case, one gzip-compressed), a few KiB each
OUTDIR/log/      logs of a run of those cases (one that crashed, one torn at the end)
OUTDIR/waivers/  the waivers file, whole and cut down
OUTDIR/known/    known variability of the check matrix's configuration, and cut down
OUTDIR/model/    the committed race-detector models (reports/models/*.json)
OUTDIR/options/  command lines for `list`, one argument a line
OUTDIR/check-matrix.json  what fuzz_waivers checks its waivers against: the deviations
"""
import gzip
import json
import os
import sys

src, waivers_path, out = sys.argv[1:4]
m = json.load(gzip.open(src, "rt"))
cases = m["cases"]


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


def matrix(ids, rows=()):
    """The committed matrix cut down to cases ids (and threshold rows), its run and clause
    table cut to match."""
    keep = {i: cases[i] for i in ids}
    named = {c["id"] for k in keep.values() for c in (k.get("spec") or {}).get("clauses", [])}
    small = {k: v for k, v in m.items() if k not in ("cases", "thresholds")}
    small["cases"] = keep
    small["run"] = {k: v for k, v in m["run"].items() if k not in ("groups", "selfcheck")}
    small["run"]["cases"] = len(keep)
    small["run"]["counts"] = {s: sum(c["status"] == s for c in keep.values()) for s in m["run"]["counts"]}
    small["spec"] = dict(m["spec"], clauses={k: v for k, v in m["spec"]["clauses"].items() if k in named})
    if rows:
        th = m["thresholds"]
        small["thresholds"] = {"run": th["run"], "rows": {r: th["rows"][r] for r in rows}}
        small["thresholds"]["run"]["rows"] = len(rows)
    return json.dumps(small, sort_keys=True, separators=(",", ":")) + "\n"


# A few cases of different families a seed (the first of each family, then the next).
by_family = {}
for cid, c in cases.items():
    by_family.setdefault(c["family"], []).append(cid)
families = sorted(by_family)
for n in range(0, len(families), 3):
    fam = families[n:n + 3]
    write(f"{out}/matrix/families-{n // 3}.json", matrix([by_family[f][len(by_family[f]) // 2] for f in fam]))
# Cases that are not a plain PASS, and that deviate.
odd = [i for i, c in cases.items() if c["status"] != "PASS"][:3]
deviates = [i for i, c in cases.items() if (c.get("spec") or {}).get("conformance") == "DEVIATES"]
write(f"{out}/matrix/odd.json", matrix(odd + deviates[:2]))
# A threshold row, with its base case (its probes cut to the first few).
row_id, row = next(iter(m["thresholds"]["rows"].items()))
row["probed"] = row["probed"][:4]
write(f"{out}/matrix/threshold.json", matrix([row["base_case"]], [row_id]))
with gzip.open(f"{out}/matrix/families-0.json.gz", "wt") as f:
    f.write(matrix([by_family[f][0] for f in families[:2]]))
# The deviations of one case of each clause waivers.json names, for fuzz_waivers.
by_clause = {}
for i in deviates:
    for c in cases[i]["spec"]["clauses"]:
        if c.get("holds") is False:
            by_clause.setdefault(c["id"], i)
write(f"{out}/check-matrix.json", matrix(sorted(set(by_clause.values()))[:12] + odd[:2]))

# Logs: each case begun, its result and its end; the last one crashed, then a torn line.
ids = [by_family[f][0] for f in families[:4]]
lines = [{"event": "run", "t_us": 0.0}]
for k, i in enumerate(ids):
    lines.append({"event": "begin", "id": i, "t_us": 10.0 * k + 1})
    if k < len(ids) - 1:
        lines.append({"event": "result", "id": i, "status": cases[i]["status"], "reason": None, "t_us": 10.0 * k + 2})
        lines.append({"event": "end", "id": i, "t_us": 10.0 * k + 3})
log = "".join(json.dumps(l, sort_keys=True, separators=(",", ":")) + "\n" for l in lines)
write(f"{out}/log/crashed.log", log)
write(f"{out}/log/torn.log", log + '{"event":"result","id":"' + ids[-1][:20])
write(f"{out}/log/done.log", log + json.dumps({"event": "result", "id": ids[-1], "status": "CRASH",
                                               "reason": "killed by signal 11"}) + "\n" +
      json.dumps({"event": "end", "id": ids[-1]}) + "\n" + json.dumps({"event": "done"}) + "\n")

# Waivers: the committed file, and its first three waivers.
w = json.load(open(waivers_path))
write(f"{out}/waivers/waivers.json", json.dumps(w, indent=1) + "\n")
write(f"{out}/waivers/three.json", json.dumps(dict(w, waivers=w["waivers"][:3]), indent=1) + "\n")

# Known variability (sync-cts variability's format) of the check matrix's configuration: a few
# of its cases, each with two outcomes.
env = m["environment"]
settings = env["settings"]
conf = {"gpu": env["gpu"]["name"], "driver": env["versions"]["driver"], "runtime": env["versions"]["runtime"],
        "hold": m["run"].get("harness", {}).get("hold"), "visible_devices": len(env.get("devices", [])),
        "environment_variables": {k: v for k, v in settings["environment_variables"].items()
                                  if v is not None and k != "CUDA_VISIBLE_DEVICES"}}
for k in ("default_stream", "device_schedule", "context_schedule", "module_loading", "mps_enabled"):
    conf[k] = settings.get(k)
known = {"schema": "cuda-sync-cts/variability", "schema_version": 1, "configuration": conf,
         "runs": [{"matrix": "a.json.gz", "date": m["run"]["date"], "gpu_uuid": env["gpu"]["uuid"],
                   "suite_revision": env.get("suite_revision"), "cases": len(cases)}],
         "cases": {i: sorted({cases[i]["symbol"] or "W", "W~", "A:S"}) for i in sorted(by_clause.values())[:6]}}
write(f"{out}/known/known.json", json.dumps(known, indent=1, sort_keys=True) + "\n")
write(f"{out}/known/empty.json", json.dumps(dict(known, cases={}), sort_keys=True) + "\n")

# The committed models, whole.
models = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "reports", "models")
for name in sorted(os.listdir(models)):
    if name.endswith(".json"):
        write(f"{out}/model/{name}", open(os.path.join(models, name)).read())

# Dictionaries: the matrix's member names and names of values (statuses, verdicts, ...), and
# list's options.
def names(v, found):
    if isinstance(v, dict):
        for k, x in v.items():
            found.add(k)
            names(x, found)
    elif isinstance(v, list):
        for x in v:
            names(x, found)
    elif isinstance(v, str) and len(v) < 40 and v.replace("_", "").isalnum():
        found.add(v)
    return found


found = names([cases[i] for i in odd + deviates[:4] + ids], {"thresholds", "rows", "base_case"})
write(f"{out}/matrix.dict", "".join(json.dumps(json.dumps(k)) + "\n" for k in sorted(found)))
write(f"{out}/options.dict", "".join(json.dumps(o) + "\n" for o in ["--groups", "--family", "--group", "--family=",
                                                                     "--group=", "--", "-", "*", "?", "["]))

# Command lines for list (no trailing newline: that would be an empty argument).
group = cases[ids[0]]["group"]
for n, argv in enumerate([[], ["--groups"], ["--family", families[0]], ["--group", group, "--groups"],
                          [ids[0][:12] + "*"], ["--family=" + families[1], "*.busy_same"], ["-x"],
                          ["--family"], ["a", "b"], ["--", "--groups"]]):
    write(f"{out}/options/{n}.txt", "\n".join(argv))
