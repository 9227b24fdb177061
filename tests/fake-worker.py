#!/usr/bin/env python3
"""A scripted stand-in for `sync-cts run --worker-from K` (tests/run.sh).

Speaks the worker's protocol on descriptor 3 (env where K is 0, start, then
begin and result for each case from K on, then done) with the case records of a
committed matrix, and misbehaves as CTS_TEST_SCENARIO says, once, at the case
CTS_TEST_CASE (later workers behave):
  crash  dies by SIGSEGV after that case's begin
  stage  reports two stages of that case (cts_case_stage) and where it faulted, then dies by SIGSEGV
  lost   reports that case as CRASH (its context lost) and exits 4
  torn   writes half of that case's result line and exits 1
  hang   sleeps after that case's begin (the supervisor must kill it)
  early  exits 1 before its first case (every time)
  skip   says there is no device and exits 77 (every time)
Each start appends a line to $CTS_TEST_STATE.  Needs CTS_TEST_MATRIX (a
committed matrix.json.gz) and CTS_TEST_IDS (the selected ids, one a line).
"""
import gzip
import json
import os
import signal
import sys
import time

args = sys.argv[1:]
start = int(args[args.index("--worker-from") + 1])
fd = int(args[args.index("--worker-fd") + 1])
scenario = os.environ.get("CTS_TEST_SCENARIO", "")
target = os.environ.get("CTS_TEST_CASE", "")
state = os.environ["CTS_TEST_STATE"]
with open(state, "a") as f:
    f.write(f"start {start}\n")
first_time = sum(1 for _ in open(state)) == 1

if scenario == "skip":
    print("sync-cts: skipped: no CUDA device or driver here (a scripted worker)")
    sys.exit(77)
out = os.fdopen(fd, "w")
path = os.environ["CTS_TEST_MATRIX"]
m = json.load(gzip.open(path) if path.endswith(".gz") else open(path))
ids = open(os.environ["CTS_TEST_IDS"]).read().split()


def emit(obj):
    out.write(json.dumps(obj) + "\n")
    out.flush()


if start == 0:  # a worker started after a crash says no environment (harness/cli/worker.c)
    emit({"event": "env", "environment": m["environment"]})
emit({"event": "start", "selfcheck": m["run"]["selfcheck"], "harness": m["run"]["harness"]})
if scenario == "early":
    sys.exit(1)
for cid in ids[start:]:
    emit({"event": "begin", "id": cid})
    case = m["cases"][cid]
    if cid == target and first_time:
        if scenario == "stage":
            emit({"event": "stage", "id": cid, "stage": "the body's capture begun"})
            emit({"event": "stage", "id": cid, "stage": "the parent's cudaStreamEndCapture"})
            emit({"event": "fault", "id": cid, "in": "libcuda.so.1+0x1f00"})
        if scenario in ("crash", "stage"):
            os.kill(os.getpid(), signal.SIGSEGV)
        if scenario == "hang":
            time.sleep(3600)
        if scenario == "lost":
            case = dict(case, status="CRASH", reason="the CUDA context was lost in this case (scripted)")
            emit({"event": "result", "id": cid, "case": case})
            sys.exit(4)
        if scenario == "torn":
            out.write(json.dumps({"event": "result", "id": cid, "case": case})[:40])
            out.flush()
            sys.exit(1)
    emit({"event": "result", "id": cid, "case": case})
emit({"event": "done"})
