#!/usr/bin/env python3
"""Time and memory of the commands that read a matrix (no GPU): render, check, diff, cite.

    tools/bench-reports.py [--runs N] [--sync-cts build/sync-cts] [MATRIX [OTHER]]

Each command runs N times (default 3) on MATRIX (default: the committed H200
default matrix) and OTHER (for diff; default: the H200 module-loading-eager
matrix); for each, the wall time and the peak resident memory (the child's
ru_maxrss), minimum / median / maximum, one line a command.  A benchmark, not
a test: the figures go to docs/running.md and the closing notes.

Exit 0 when every run exited as the command should on these inputs (render,
cite 0; check, diff 0 or 1), 1 when one did not, 2 on bad usage (a matrix or
program that is not there).
"""
import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from statistics import median

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
H200 = os.path.join(ROOT, "reports/nvidia-h200/driver-580.159.04/cuda-13.0")


def run(argv):
    """One run in its own process: (exit status, seconds, peak MB)."""
    t = time.monotonic()
    pid = os.posix_spawn(argv[0], argv, os.environ,
                         file_actions=[(os.POSIX_SPAWN_OPEN, 1, os.devnull, os.O_WRONLY, 0),
                                       (os.POSIX_SPAWN_OPEN, 2, os.devnull, os.O_WRONLY, 0)])
    _, status, usage = os.wait4(pid, 0)
    return os.waitstatus_to_exitcode(status), time.monotonic() - t, usage.ru_maxrss / 1024.0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--sync-cts", default=os.path.join(ROOT, "build/sync-cts"))
    ap.add_argument("matrix", nargs="?", default=os.path.join(H200, "default/matrix.json.gz"))
    ap.add_argument("other", nargs="?", default=os.path.join(H200, "module-loading-eager/matrix.json.gz"))
    a = ap.parse_args()
    for path, what in ((a.sync_cts, "program"), (a.matrix, "matrix"), (a.other, "matrix")):
        if not os.path.isfile(path):
            print(f"bench-reports: no {what} '{path}'", file=sys.stderr)
            return 2
    if a.runs < 1:
        print(f"bench-reports: --runs wants 1 or more, not {a.runs}", file=sys.stderr)
        return 2
    cts = os.path.abspath(a.sync_cts)
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "out")
        case = "memcpy.h2d.pageable.1MiB.explicit.op_implied.busy_same"
        commands = [
            ("render md", [cts, "render", a.matrix, "--format", "md", "--out", out], (0,)),
            ("render html", [cts, "render", a.matrix, "--format", "html", "--out", out], (0,)),
            ("render csv", [cts, "render", a.matrix, "--format", "csv", "--out", out], (0,)),
            ("check", [cts, "check", a.matrix], (0, 1)),
            ("diff", [cts, "diff", a.matrix, a.other], (0, 1)),
            ("cite", [cts, "cite", case, a.matrix], (0,)),
        ]
        print(f"{a.runs} runs each, {os.path.relpath(a.matrix, ROOT)}; min / median / max")
        bad = 0
        for name, argv, ok in commands:
            runs = [run(argv) for _ in range(a.runs)]
            wrong = [rc for rc, _, _ in runs if rc not in ok]
            bad += len(wrong)
            s = sorted(t for _, t, _ in runs)
            m = sorted(mb for _, _, mb in runs)
            print(f"  {name:12} {s[0]:6.2f} / {median(s):6.2f} / {s[-1]:6.2f} s   "
                  f"{m[0]:6.0f} / {median(m):6.0f} / {m[-1]:6.0f} MB" + (f"   exited {wrong}" if wrong else ""))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
