#!/usr/bin/env python3
"""Benchmark the suite: run `sync-cts run` N times in a row (not a timed test).

Prints, for each run, the wall time, cases per second and status counts; then
the slowest groups (from the matrices' run.groups); how many INCONCLUSIVE
(undecided) and VARIES (intermittent) cases each run had and which; whether
the verdicts of cases that passed in every run are identical across runs; and
how many cases had the same outcome (status and symbol) in every run.  With
--load N, N busy processes of its own keep the host's processors loaded during
the runs (verdicts must not depend on the host being idle).  Needs a GPU.
Exit 0 if the runs were made (whatever they found), 2 on bad input or if a run
could not complete.

    tools/bench.py [--runs 5] [--glob GLOB] [--sync-cts build/sync-cts] [--out DIR] [--load N]
                   [--deadline S]
    tools/bench.py --report MATRIX...     # the same report over matrices already made
    tools/bench.py ... --against QUIET    # and each run against a quiet host's matrix
    tools/bench.py ... --against QUIET --known FILE   # its noise from sync-cts variability, apart

--deadline S starts no run that would likely end more than S seconds after the
first began (a lease of limited time); --report joins runs made in several
sessions (20 runs made as 10 and 10) into one report.
"""
import argparse
import gzip
import json
import os
import subprocess
import sys
import tempfile
import time
from collections import Counter


def die(msg):
    print(f"bench.py: {msg}", file=sys.stderr)
    sys.exit(2)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--glob", default=None, help="case selection (default: every case)")
    ap.add_argument("--sync-cts", default="build/sync-cts")
    ap.add_argument("--out", default=None, help="keep the matrices here (default: a temp dir)")
    ap.add_argument("--slowest", type=int, default=8)
    ap.add_argument("--load", type=int, default=0, help="busy processes during the runs")
    ap.add_argument("--deadline", type=float, default=0, help="seconds; start no run that would end later")
    ap.add_argument("--report", nargs="+", metavar="MATRIX", help="report on these matrices, run nothing")
    ap.add_argument("--against", metavar="QUIET",
                    help="a matrix of the same build made on a quiet host: the cases each run changed")
    ap.add_argument("--known", metavar="FILE",
                    help="with --against: known variability (sync-cts variability) of the quiet matrix's "
                         "configuration; a change within it is not counted as one")
    a = ap.parse_args()
    quiet = load(a.against) if a.against else None
    if a.known and not a.against:
        die("--known applies to a comparison with --against")
    known = load_known(a.known) if a.known else None
    if a.report:
        matrices = [load(p) for p in a.report]
        for i, m in enumerate(matrices, 1):
            print(run_line(i, m, f"({m['environment']['suite_revision']})"))
        report(a, "(given)", matrices)
        against(a.against, quiet, matrices, known)
        return
    if a.runs < 1:
        die("--runs wants a positive number")
    if a.load < 0:
        die("--load wants a number of processes, 0 or more")
    if not os.access(a.sync_cts, os.X_OK):
        die(f"{a.sync_cts} is not an executable sync-cts (build it first)")
    out = a.out or tempfile.mkdtemp(prefix="sync-cts-bench-")
    os.makedirs(out, exist_ok=True)

    busy = [subprocess.Popen(["sh", "-c", "while :; do :; done"]) for _ in range(a.load)]
    if busy:
        print(f"host load: {a.load} busy processes on {os.cpu_count()} processors")
    try:
        matrices = run_all(a, out)
    finally:
        for p in busy:
            p.kill()
            p.wait()
    report(a, out, matrices)
    against(a.against, quiet, matrices, known)


def load_known(path):
    """A known-variability file's cases: id -> the set of its outcomes (symbols)."""
    try:
        k = json.load(open(path))
        if k.get("schema") != "cuda-sync-cts/variability":
            raise ValueError("its schema is not cuda-sync-cts/variability")
        return {i: set(v) for i, v in k["cases"].items()}
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as e:
        die(f"{path}: not readable known variability ({e})")


def within(known, cid, a, b):
    """Both outcomes have a verdict and every symbol of each (a VARIES one's
    parts) is one the case took: the rule of sync-cts diff --known."""
    s = known.get(cid) if known else None
    if not s:
        return False
    for c in (a, b):
        if c["status"] not in ("PASS", "VARIES") or not c["symbol"] or not set(c["symbol"].split("/")) <= s:
            return False
    return True


def load(path):
    try:
        with open(path, "rb") as f:
            raw = f.read()
        return json.loads(gzip.decompress(raw) if raw[:2] == b"\x1f\x8b" else raw)
    except (OSError, ValueError, EOFError) as e:
        die(f"{path}: not a readable matrix ({e})")


def run_all(a, out):
    matrices = []
    start = time.monotonic()
    longest = 0.0
    for i in range(1, a.runs + 1):
        if a.deadline and time.monotonic() - start + longest > a.deadline:
            print(f"--deadline {a.deadline:g} s: stopped after {i - 1} runs", flush=True)
            break
        path = os.path.join(out, f"run{i}.json.gz")
        cmd = [a.sync_cts, "run"] + ([a.glob] if a.glob else []) + ["--out", path]
        t0 = time.monotonic()
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        wall = time.monotonic() - t0
        longest = max(longest, wall)
        if p.returncode not in (0, 1, 3):
            print(p.stdout, file=sys.stderr)
            die(f"run {i} exited {p.returncode}")
        m = load(path)
        matrices.append(m)
        print(run_line(i, m, f"({wall:.1f} s with start-up)"), flush=True)
    return matrices


def run_line(i, m, note):
    r = m["run"]
    counts = ", ".join(f"{v} {k}" for k, v in sorted(r["counts"].items()) if v)
    return (f"run {i}: {r['cases']} cases, {r['wall_s']:.1f} s in the run {note}, "
            f"{r['cases_per_second']:.0f} cases/s: {counts}")


def report(a, out, matrices):
    if not matrices:
        die("no run was made")
    runs = len(matrices)
    env = matrices[0]["environment"]
    revisions = sorted({m["environment"]["suite_revision"] for m in matrices})
    print(f"\n{env['gpu']['name']}, driver {env['versions']['driver']}, "
          f"suite {', '.join(revisions)}")
    print(f"\nslowest groups (mean over {runs} runs):")
    groups = {}
    for m in matrices:
        for g, v in m["run"].get("groups", {}).items():
            groups.setdefault(g, []).append(v["wall_s"])
    for g, ts in sorted(groups.items(), key=lambda kv: -sum(kv[1]) / len(kv[1]))[:a.slowest]:
        n = matrices[0]["run"]["groups"][g]["cases"]
        mean = sum(ts) / len(ts)
        print(f"  {g:24} {mean:6.2f} s  {n:5} cases  {1000 * mean / n:6.2f} ms/case")

    for status in ("INCONCLUSIVE", "VARIES"):
        per_run = [sorted(k for k, c in m["cases"].items() if c["status"] == status)
                   for m in matrices]
        print(f"\n{status} per run:", ", ".join(str(len(x)) for x in per_run))
        for i, ids in enumerate(per_run, 1):
            for k in ids[:5]:
                print(f"  run {i}: {k}: {matrices[i - 1]['cases'][k]['reason']}")
            if len(ids) > 5:
                print(f"  run {i}: ... and {len(ids) - 5} more")

    ids = matrices[0]["cases"].keys()
    always = [k for k in ids if all(m["cases"][k]["status"] == "PASS" for m in matrices)]
    differ = [k for k in always if any(m["cases"][k]["verdict"] != matrices[0]["cases"][k]["verdict"]
                                       for m in matrices[1:])]
    print(f"\nverdicts: {len(always)} cases PASS in all {runs} runs; "
          f"{len(differ)} of them differ between runs")
    for k in differ[:10]:
        print(f"  {k}: " + " | ".join(m["cases"][k]["symbol"] for m in matrices))
    outcome = lambda m, k: (m["cases"][k]["status"], m["cases"][k]["symbol"])
    same = [k for k in ids if all(outcome(m, k) == outcome(matrices[0], k) for m in matrices[1:])]
    print(f"outcomes: {len(same)} of {len(ids)} cases had the same status and symbol in every run")
    flips = [k for k in ids if k not in same]
    for k in flips[:10]:
        print(f"  {k}: " + " | ".join(f"{m['cases'][k]['status']} {m['cases'][k]['symbol']}"
                                      for m in matrices))
    inconclusive = sum(c["status"] == "INCONCLUSIVE" for m in matrices for c in m["cases"].values())
    print(f"stability over {runs} runs: {len(flips)} cases whose outcome differs between runs, "
          f"{inconclusive} INCONCLUSIVE results")
    print(f"matrices in {out}")


def against(path, quiet, matrices, known=None):
    """Each run against a quiet host's matrix: the held-call cases whose host
    verdict moved (a call that returns said to wait, or the reverse: the
    proofs under load must not move), every other changed outcome, and which
    of those are known variability (with --known, within the file's outcomes;
    without, VARIES in either matrix)."""
    if quiet is None:
        return
    q = quiet["cases"]
    print(f"\nagainst the quiet matrix {path}:")
    for i, m in enumerate(matrices, 1):
        host, other, varies, missing = [], [], [], 0
        for k, c in m["cases"].items():
            qc = q.get(k)
            if qc is None:
                missing += 1
                continue
            if (c["status"], c["symbol"]) == (qc["status"], qc["symbol"]):
                continue
            if within(known, k, qc, c) if known else "VARIES" in (c["status"], qc["status"]):
                varies.append(k)
            elif c["status"] == qc["status"] == "PASS" and \
                    c["verdict"].get("host") != qc["verdict"].get("host"):
                host.append(k)
            else:
                other.append(k)
        print(f"  run {i}: {len(host)} held-call host verdicts moved, {len(other)} other outcomes changed, "
              + (f"{len(varies)} within known variability" if known else
                 f"{len(varies)} changed as VARIES on either side (known variability)")
              + (f", {missing} cases not in the quiet matrix" if missing else ""))
        if other:
            fams = Counter(m["cases"][k].get("family", "?") for k in other)
            print("    other outcomes changed, by family: " +
                  ", ".join(f"{f} {n}" for f, n in sorted(fams.items(), key=lambda kv: (-kv[1], kv[0]))))
        for k in host[:10]:
            print(f"    host moved: {k}: {q[k]['symbol']} -> {m['cases'][k]['symbol']}")
        for k in other[:10]:
            print(f"    changed: {k}: {q[k]['status']} {q[k]['symbol']} -> "
                  f"{m['cases'][k]['status']} {m['cases'][k]['symbol']}")


if __name__ == "__main__":
    main()
