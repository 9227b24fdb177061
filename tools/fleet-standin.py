#!/usr/bin/env python3
"""The stand-in for one GPU's run in a fleet, where the task has no GPU.

    tools/fleet-standin.py OUTDIR [--task N] [--perturb N] [--matrix MATRIX]

Not a measurement.  It copies a committed matrix (default: the H200's
default matrix) and stamps this task's identity into it, so that a fleet
of tasks on machines without GPUs (CI's one-node Slurm cluster,
tests/slurm.sh) writes matrices that `sync-cts fleet` can group:

- environment.host.name: this machine's short host name;
- environment.gpu.uuid: "GPU-standin-N", N the task (--task, else
  SLURM_PROCID, else JOB_COMPLETION_INDEX);
- environment.settings.environment_variables.CUDA_VISIBLE_DEVICES: the
  task's value, or null where it has none;
- run.date: now, so that no two runs are the same; run.standin: true, so
  that nobody takes the matrix for a measurement.

When the task is the one named by --perturb (else CTS_FLEET_PERTURB), one
held-call verdict changes: PERTURBED_CASE, which waits (W) in the committed
matrix, returns (A) in this one; its status stays PASS, so run.counts still
match.  That gives `sync-cts fleet` exactly one outlier to find.

Writes OUTDIR/HOST.GPU-standin-N.json.gz, atomically (a temporary file in
OUTDIR, then a rename), in the suite's own layout: sorted keys, one case a
line.  Exit: 0 written, 2 bad input (one line on stderr).
"""
import argparse
import datetime
import gzip
import json
import os
import socket
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MATRIX = os.path.join(ROOT, "reports/nvidia-h200/driver-580.159.04/cuda-13.0/default/matrix.json.gz")
PERTURBED_CASE = "memcpy.h2d.pageable.4KiB.explicit.op_implied.busy_same"


def die(msg):
    print(f"fleet-standin: {msg}", file=sys.stderr)
    sys.exit(2)


def dump(value, indent):
    """One piece as the suite writes it (jansson, sorted keys): compact for
    a case, indented by one space for the sections around the cases."""
    if indent:
        return json.dumps(value, sort_keys=True, indent=1, ensure_ascii=False)
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def number(name, text):
    try:
        n = int(text)
    except (TypeError, ValueError):
        die(f"{name} is '{text}', not a task number")
    if n < 0:
        die(f"{name} is '{text}', not a task number")
    return n


def perturb(case):
    """The held call that waited returns instead: its symbol, its verdict,
    and the per-repetition evidence of that verdict."""
    if case.get("symbol") != "W" or case.get("verdict", {}).get("host") != "waits":
        die(f"{PERTURBED_CASE} does not wait (W) in the matrix read; there is nothing to perturb")
    case["symbol"] = "A"
    case["verdict"]["host"] = "returns"
    ev = case.get("evidence", {})
    if isinstance(ev.get("host"), list):
        ev["host"] = ["returns" for _ in ev["host"]]
    # The clauses about the host thread that held now fail and those that
    # failed now hold (it deviates either way: from PG-CONC-64KB, which
    # says it returns, before; from RT-SYNC-MEMCPY-PAGEABLE-H2D, after).
    spec = case.get("spec", {})
    for clause in spec.get("clauses", []):
        if clause.get("about") == "host" and isinstance(clause.get("holds"), bool):
            clause["holds"] = not clause["holds"]
    if any(c.get("holds") is False for c in spec.get("clauses", [])):
        spec["conformance"] = "DEVIATES"


def main():
    ap = argparse.ArgumentParser(description="Writes a committed matrix, stamped as this task's, as a fleet task's result (no GPU).")
    ap.add_argument("outdir")
    ap.add_argument("--task", help="the task number (default: SLURM_PROCID, else JOB_COMPLETION_INDEX)")
    ap.add_argument("--perturb", help="the task whose matrix changes one verdict (default: CTS_FLEET_PERTURB)")
    ap.add_argument("--matrix", default=MATRIX, help="the matrix to copy (default: the committed H200 default matrix)")
    a = ap.parse_args()

    task = a.task if a.task is not None else os.environ.get("SLURM_PROCID", os.environ.get("JOB_COMPLETION_INDEX"))
    if task is None:
        die("no task number: give --task N, or run it as a Slurm task (SLURM_PROCID) or an Indexed Job's pod (JOB_COMPLETION_INDEX)")
    task = number("the task", task)
    target = a.perturb if a.perturb is not None else os.environ.get("CTS_FLEET_PERTURB")
    target = number("the task to perturb", target) if target not in (None, "") else None
    if not os.path.isdir(a.outdir) or not os.access(a.outdir, os.W_OK | os.X_OK):
        die(f"'{a.outdir}' is not a writable directory")

    host = socket.gethostname().split(".")[0]
    uuid = f"GPU-standin-{task}"
    out = os.path.join(a.outdir, f"{host}.{uuid}.json.gz")

    # The cases, one a line, are kept as they are but the one perturbed;
    # the sections around them are decoded, stamped and written again.
    head, cases, tail, where, found = [], [], [], 0, False
    try:
        with gzip.open(a.matrix, "rt", encoding="utf-8") as f:
            for line in f:
                if where == 0:
                    if line.startswith('"cases": {'):
                        where = 1
                        if line.rstrip("\n").endswith("}") or line.rstrip("\n").endswith("},"):
                            die(f"'{a.matrix}' has no cases")
                    else:
                        head.append(line)
                elif where == 1:
                    if line.startswith("}"):
                        where = 2
                        tail.append(line[1:])
                    else:
                        cases.append(line)
                        if line.startswith(f'"{PERTURBED_CASE}": ') and task == target:
                            comma = line.rstrip("\n").endswith(",")
                            body = line[len(PERTURBED_CASE) + 4:].rstrip("\n").rstrip(",")
                            case = json.loads(body)
                            perturb(case)
                            cases[-1] = f'"{PERTURBED_CASE}": {dump(case, False)}' + (",\n" if comma else "\n")
                            found = True
                else:
                    tail.append(line)
    except (OSError, EOFError, ValueError) as e:
        die(f"cannot read the matrix '{a.matrix}': {e}")
    if where != 2 or "".join(head).strip() != "{":
        die(f"'{a.matrix}' is not a matrix in the suite's layout (one case a line, the cases first)")
    if task == target and not found:
        die(f"'{a.matrix}' has no case {PERTURBED_CASE} to perturb")

    # The rest: ',\n"environment": {...},\n"run": {...},...\n}\n'.
    rest = "".join(tail).lstrip().lstrip(",")
    try:
        sections = json.loads("{" + rest)
    except ValueError as e:
        die(f"cannot decode '{a.matrix}' around its cases: {e}")
    env = sections.get("environment")
    run = sections.get("run")
    if not isinstance(env, dict) or not isinstance(run, dict):
        die(f"'{a.matrix}' lacks its environment or run section")
    env.setdefault("host", {})["name"] = host
    env.setdefault("gpu", {})["uuid"] = uuid
    variables = env.setdefault("settings", {}).setdefault("environment_variables", {})
    variables["CUDA_VISIBLE_DEVICES"] = os.environ.get("CUDA_VISIBLE_DEVICES")
    run["date"] = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    run["standin"] = True

    fd, tmp = tempfile.mkstemp(prefix=f".{host}.{uuid}.", suffix=".tmp", dir=a.outdir)
    try:
        with os.fdopen(fd, "wb") as raw:
            # No name and no time in the gzip header, as the suite writes it.
            with gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0, compresslevel=6) as z:
                z.write(b'{\n"cases": {\n')
                z.write("".join(cases).encode("utf-8"))
                z.write(b"}")
                for key in sorted(sections):
                    z.write(f',\n{json.dumps(key)}: {dump(sections[key], True)}'.encode("utf-8"))
                z.write(b"\n}\n")
        os.chmod(tmp, 0o644)
        os.replace(tmp, out)
    except BaseException as e:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        if isinstance(e, OSError):
            die(f"cannot write '{out}': {e}")
        raise
    what = f"; {PERTURBED_CASE} perturbed (W -> A)" if task == target else ""
    print(f"fleet-standin: wrote {out} (a copy of {os.path.relpath(a.matrix, ROOT)}, not a measurement{what})")


if __name__ == "__main__":
    main()
