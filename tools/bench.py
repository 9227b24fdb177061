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

    tools/bench.py --profile TRACE... [--matrix MATRIX] [--slowest N]

--profile reads the stderr of traced runs (CTS_TRACE=1 sync-cts run ... 2> TRACE;
no GPU needed) and prints where their time went: per family, the cases, their
wall time, ms a case and the seconds in each phase; the same per phase for the
whole, with its share; and the N slowest groups so.  The phases: idle (the idle
measurement, made once for the cases that differ only in busy placement, counted
to the case that made it), control, rep (a repetition's first attempt), retry
(its further attempts: window or timeout grown, perturbed, starved), recheck,
confirm (the managed-memory confirming repetition), other (the rest of an engine
case's wall: its family's set-up and clean-up, its JSON) and own (the whole of a
case its family measures itself).  A case's family and group are the matrix's
(--matrix, the run's own); without it, the id's first dotted segment and first
two.
"""
import argparse
import gzip
import json
import os
import re
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
    ap.add_argument("--profile", nargs="+", metavar="TRACE",
                    help="the stderr of traced runs (CTS_TRACE=1): where their time went, run nothing")
    ap.add_argument("--matrix", metavar="MATRIX", help="with --profile: the run's matrix, for families and groups")
    a = ap.parse_args()
    if a.profile:
        if a.report or a.against or a.known:
            die("--profile reads traces only: not with --report, --against or --known")
        profile(a)
        return
    if a.matrix:
        die("--matrix applies to a profile (--profile)")
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
        n = next(m["run"]["groups"][g]["cases"] for m in matrices if g in m["run"].get("groups", {}))
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
    stability(matrices)
    print(f"matrices in {out}")


def stability(matrices):
    """Whether the verdicts and outcomes of the runs' cases are the same in every run."""
    runs = len(matrices)
    ids = sorted(set.intersection(*(set(m["cases"]) for m in matrices)))
    some = len(set.union(*(set(m["cases"]) for m in matrices))) - len(ids)
    if some:
        print(f"\n{some} cases are not in every run's matrix (other revisions): compared without them")
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


# ---- --profile: where a traced run's time went ------------------------------------------

PHASES = ("idle", "control", "rep", "retry", "recheck", "confirm", "other", "own")
# The trace lines a profile reads (harness/engine/trace.c, idle.c, case.c and
# harness/cli/worker.c); walls are whole microseconds.  An attempt's reason,
# after its last field, may say anything: the first "wall W phase P" is its own.
TRACE_LINE = re.compile(r"trace (\S+) (idle|control|rep \d+ \w+|latency|case): (.*)")
PHASE_WALL = {
    "idle": re.compile(r"\S+ call .* wall (\d+)$"),
    "control": re.compile(r"wall (\d+)$"),
    "rep": re.compile(r"\S+ .*? wall (\d+) phase (rep|retry|recheck|confirm) attempt \d+(?:: |$)"),
}
CASE_LINE = re.compile(r"(\S+) wall (\d+)(?: measure (engine|own))?$")
# A worker's start, part by part (trace.c), and its life as the supervisor saw it (supervisor.c).
START_PARTS = ("find", "env", "context", "memory", "warm", "probe", "selfcheck", "wake")
WORKER_START = re.compile(r"trace worker start at case \d+: " + " ".join(p + r" (\d+)" for p in START_PARTS) +
                          r" wall (\d+)$")
END_PARTS = ("first line", "last line to end", "end to exit")
WORKER_END = re.compile(r"trace worker ended at case \d+: " + " ".join(p + r" (\d+)" for p in END_PARTS) +
                        r" wall (\d+) cases \d+ (?:signal|exit)$")
# Where an attempt's wall went (harness/engine/engine_int.h: struct
# cts_trace_parts), in traces from the revision that prints it on.
PARTS = ("set_up", "start", "call", "after", "finish", "clean_up", "data_setup", "data_judge")
PARTS_FIELD = re.compile(r" parts (\d+)/(\d+)/(\d+)/(\d+)/(\d+)/(\d+) data (\d+)/(\d+) wall \d+ phase ")


class Case:
    """A traced case (or the sum of n): its wall and its phases' (us, and how
    many lines each)."""

    def __init__(self, cid=None, n=1):
        self.id, self.n, self.wall = cid, n, 0
        self.us, self.lines, self.parts = Counter(), Counter(), Counter()


def read_trace(path, cases, workers):
    """Reads one trace's cases into cases (a list of Case, each ended by its
    case line), and its workers' start and end lines into workers (a Counter:
    "started", "ended" and their parts' microseconds).  Returns the trace lines
    read, those it could not (torn by another writer, of an unknown kind) and
    the cases begun with no case line (id -> Case: a worker died in it)."""
    try:
        with open(path, "rb") as f:
            raw = f.read()
        text = (gzip.decompress(raw) if raw[:2] == b"\x1f\x8b" else raw).decode("utf-8", "replace")
    except (OSError, EOFError) as e:
        die(f"{path}: not a readable trace ({e})")
    read = unread = 0
    pending = {}
    for line in text.splitlines():
        for kind, regex, parts in (("started", WORKER_START, START_PARTS), ("ended", WORKER_END, END_PARTS)):
            w = regex.match(line)
            if w:
                read += 1
                workers[kind] += 1
                workers.update({f"{kind} {p}": int(v) for p, v in zip(parts + ("wall",), w.groups())})
                break
        if w:
            continue
        m = TRACE_LINE.match(line)
        if not m:  # sync-cts thresholds' probe lines are not a run's
            if line.startswith("trace ") and not line.startswith("trace probe "):
                unread += 1
            continue
        read += 1
        cid, kind, rest = m.groups()
        if kind == "latency":  # within its idle measurement's wall
            continue
        c = pending.setdefault(cid, Case(cid))
        if kind == "case":
            unread += not end_case(c, rest, cases)
            del pending[cid]
            continue
        w = PHASE_WALL[kind.split()[0]].match(rest)
        if not w:
            unread += 1
            continue
        phase = w.group(2) if kind.startswith("rep ") else kind
        c.us[phase] += int(w.group(1))
        c.lines[phase] += 1
        pm = PARTS_FIELD.search(rest) if kind.startswith("rep ") else None
        if pm:
            c.parts.update({p: int(v) for p, v in zip(PARTS, pm.groups())})
            c.parts["wall"] += int(w.group(1))
            c.parts["attempts"] += 1
    if not read:
        die(f"{path}: no trace lines (the stderr of a run with CTS_TRACE=1)")
    return read, unread, pending


def end_case(c, rest, cases):
    """The case line ends c: what its phases leave of its wall is other, or
    own (a self-measured case).  False where the line is not one."""
    m = CASE_LINE.match(rest)
    if not m:
        return False
    c.wall = int(m.group(2))
    own = m.group(3) == "own" if m.group(3) else not c.us
    rest_us = c.wall - sum(c.us.values())
    c.us["own" if own else "other"] += rest_us
    c.lines["own" if own else "other"] += 1
    cases.append(c)
    return True


def profile(a):
    if a.slowest < 1:
        die("--slowest wants a positive number")
    cases, pending, read, unread, workers = [], [], 0, 0, Counter()
    for path in a.profile:
        r, u, left = read_trace(path, cases, workers)
        read, unread, pending = read + r, unread + u, pending + list(left.values())
    if not cases:
        die("no case lines (trace ID case: ...) in " + ", ".join(a.profile) +
            ": a trace of an older revision, or not of sync-cts run")
    names, missing, run_wall = case_names(a.matrix, cases)
    total = sum(c.wall for c in cases)
    print(f"profile of {len(cases)} cases ({len(a.profile)} trace{'s' * (len(a.profile) > 1)}, "
          f"{read} lines): {total / 1e6:.3f} s in their case lines")
    if pending:
        us = sum(sum(c.us.values()) for c in pending)
        print(f"  {len(pending)} cases with no case line (a worker died in them?): "
              f"their {us / 1e6:.3f} s are not counted")
    if unread:
        print(f"  {unread} trace lines not read (torn, or of an unknown kind)")
    if missing:
        print(f"  {missing} cases not in {a.matrix}: counted as (not in the matrix)")
    worker_lines(workers)
    if run_wall is not None:  # what the case lines leave of the run: starts, crashes, the supervisor
        outside = run_wall - total / 1e6
        each = f", {outside / workers['started']:.3f} s a worker ({workers['started']})" if workers["started"] else ""
        print(f"  the run took {run_wall:.3f} s (the matrix's run.wall_s): {outside:.3f} s outside the case "
              f"lines{each}")
    print("\nper family (seconds):")
    table("family", sum_by(cases, [n[0] for n in names]))
    print("\nper phase:")
    whole = sum_by(cases, ["all"] * len(cases))["all"]
    for p in PHASES:
        share = 100 * whole.us[p] / total if total else 0
        print(f"  {p:8} {whole.us[p] / 1e6:10.3f} s {share:5.1f}%  {whole.lines[p]:7} {UNIT[p]}")
    print(f"  {'total':8} {total / 1e6:10.3f} s {100 if total else 0:5.1f}%  {len(cases):7} cases")
    kind = "groups" if a.matrix else "id prefixes (the first two segments; --matrix gives groups)"
    print(f"\nslowest {kind}, top {a.slowest} (seconds):")
    table("group" if a.matrix else "prefix", sum_by(cases, [n[1] for n in names]), a.slowest)
    parts_table(sum_by(cases, [n[0] for n in names]), a.slowest)


def worker_lines(w):
    """The workers' starts and ends, where the trace has them (since the
    revision that prints them): outside every case line."""
    if w["started"]:
        n = w["started"]
        print(f"  {n} workers started: {w['started wall'] / 1e6:.3f} s from their first instruction to "
              f"their first case ({w['started wall'] / n / 1e3:.0f} ms each): " +
              ", ".join(f"{p} {w['started ' + p] / 1e6:.3f}" for p in START_PARTS))
    if w["ended"]:
        n = w["ended"]
        print(f"  {n} workers ended: {w['ended wall'] / 1e6:.3f} s from their start to their exit, seen by "
              f"the supervisor: " + ", ".join(f"{p} {w['ended ' + p] / 1e6:.3f}" for p in END_PARTS))


UNIT = {"idle": "measurements", "control": "controls", "rep": "attempts", "retry": "attempts",
        "recheck": "attempts", "confirm": "attempts", "other": "cases", "own": "cases"}


def case_names(matrix, cases):
    """Each case's (family, group): the matrix's, or from its id; how many were
    not in the matrix; and the matrix's run.wall_s (None: no matrix, or none)."""
    ids = [c.id for c in cases]
    if not matrix:
        return [(i.split(".")[0], ".".join(i.split(".")[:2])) for i in ids], 0, None
    m = load(matrix)
    known = m.get("cases") if isinstance(m, dict) else None
    if not isinstance(known, dict):
        die(f"{matrix}: not a matrix (no cases)")
    names, missing = [], 0
    for i in ids:
        k = known.get(i)
        if not isinstance(k, dict) or not isinstance(k.get("family"), str) or not isinstance(k.get("group"), str):
            missing += 1
            k = {"family": "(not in the matrix)", "group": "(not in the matrix)"}
        names.append((k["family"], k["group"]))
    wall = m.get("run", {}).get("wall_s") if isinstance(m.get("run"), dict) else None
    return names, missing, wall if isinstance(wall, (int, float)) and not isinstance(wall, bool) else None


def sum_by(cases, keys):
    """key -> a Case summing those cases' walls and phases."""
    out = {}
    for c, k in zip(cases, keys):
        s = out.setdefault(k, Case(n=0))
        s.n += 1
        s.wall += c.wall
        s.us.update(c.us)
        s.lines.update(c.lines)
        s.parts.update(c.parts)
    return out


def parts_table(by_family, top):
    """Inside the attempts that say their parts: seconds per part, the
    families with the most attempt time first; `rest` is what the parts do
    not cover (the trace line itself, the loop between attempts)."""
    rows = sorted(((k, v) for k, v in by_family.items() if v.parts["attempts"]),
                  key=lambda kv: (-kv[1].parts["wall"], kv[0]))
    if not rows:
        return
    print(f"\ninside the attempts, top {top} families (seconds; data_setup is within start, "
          "data_judge within finish):")
    print(f"  {'family':24} {'attempts':>8} {'wall':>9} " + " ".join(f"{p:>10}" for p in PARTS) +
          f" {'rest':>9}")
    whole = Case(n=0)
    for _, v in rows:
        whole.parts.update(v.parts)
    for k, v in rows[:top] + [("all", whole)]:
        p = v.parts
        rest = p["wall"] - sum(p[x] for x in PARTS[:6])
        print(f"  {k:24} {p['attempts']:8} {p['wall'] / 1e6:9.3f} " +
              " ".join(f"{p[x] / 1e6:10.3f}" for x in PARTS) + f" {rest / 1e6:9.3f}")


def table(what, rows, top=None):
    """Rows, the slowest first: cases, wall, ms a case and each phase, in seconds."""
    order = sorted(rows.items(), key=lambda kv: (-kv[1].wall, kv[0]))[:top]
    w = max([24] + [len(k) for k, _ in order])
    print(f"  {what:{w}} {'cases':>6} {'wall':>9} {'ms/case':>8}" + "".join(f" {p:>8}" for p in PHASES))
    for k, s in order:
        print(f"  {k:{w}} {s.n:6} {s.wall / 1e6:9.3f} {s.wall / 1e3 / s.n:8.3f}" +
              "".join(f" {s.us[p] / 1e6:8.3f}" for p in PHASES))


if __name__ == "__main__":
    main()
