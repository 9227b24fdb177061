#!/usr/bin/env bash
# What one task of a fleet runs (tools/fleet.sbatch starts one a GPU; docs/fleet.md):
#
#     tools/fleet-task.sh OUTDIR
#
# With a GPU (the task is given one: Slurm's --gpus-per-task=1, or
# CUDA_VISIBLE_DEVICES=N), it runs the suite on it into
# OUTDIR/HOST.UUID.json.gz (its Markdown and log beside it), HOST the short
# host name and UUID the GPU's (nvidia-smi's, where it lists exactly one
# GPU; else the one `sync-cts env` reports, the GPU the run measures).
# The run's exit status (0 verdicts, 1 FAIL, 3 no verdict) is a result, not
# the task's failure: it is printed, and the task exits 0.  A run that
# exits otherwise (2 bad input, 77 no GPU, a crash) is the task's exit.
#
# Without a GPU (none found, or CUDA_VISIBLE_DEVICES empty) it exits 77,
# saying why; unless CTS_FLEET_STANDIN=1, where
# tools/fleet-standin.py writes a copy of a committed matrix in its place
# (CI's Slurm test, tests/slurm.sh), and says so first.
#
# SYNC_CTS: the sync-cts to run (default build/sync-cts).  Any further
# arguments go to `sync-cts run` (e.g. --repeat 3).
# Exit: 0 a matrix written, 2 bad input (OUTDIR missing or unwritable),
# 77 no GPU; otherwise the run's own.
set -u
here="$(cd "$(dirname "$0")" && pwd)"
outdir=${1:-}
[ -n "$outdir" ] || { echo "usage: fleet-task.sh OUTDIR [sync-cts run options]" >&2; exit 2; }
shift
if [ ! -d "$outdir" ] || [ ! -w "$outdir" ] || [ ! -x "$outdir" ]; then
    echo "fleet-task: '$outdir' is not a writable directory (make it first, on a file system every node shares)" >&2
    exit 2
fi
SYNC_CTS=${SYNC_CTS:-build/sync-cts}
host=$(hostname -s)
task="task ${SLURM_PROCID:-${JOB_COMPLETION_INDEX:-?}} on $host"

# The GPU's UUID: nvidia-smi's where it lists exactly one GPU (the step
# gave the task one, its cgroup hiding the others).  Where it lists several
# (CUDA_VISIBLE_DEVICES alone narrows CUDA, not nvidia-smi) or none, the
# GPU the run will measure, as sync-cts itself sees it.
# An empty CUDA_VISIBLE_DEVICES (or Slurm's NoDevFiles) gives CUDA no GPU,
# whatever nvidia-smi lists.
uuid="" listed=0 why=""
case ${CUDA_VISIBLE_DEVICES-unset} in
"" | NoDevFiles) why="CUDA_VISIBLE_DEVICES is '${CUDA_VISIBLE_DEVICES}'" ;;
esac
if [ -z "$why" ] && command -v nvidia-smi >/dev/null 2>&1; then
    uuids=$(nvidia-smi --query-gpu=uuid --format=csv,noheader 2>/dev/null | tr -d ' \r')
    [ -n "$uuids" ] && listed=$(printf '%s\n' "$uuids" | wc -l)
    [ "$listed" -eq 1 ] && uuid=$uuids
fi
if [ -z "$why" ] && [ -z "$uuid" ] && [ -x "$SYNC_CTS" ]; then
    # The environment's "gpu" object (sync-cts env: sorted keys, indented by two).
    uuid=$("$SYNC_CTS" env 2>/dev/null |
        if command -v python3 >/dev/null 2>&1; then
            python3 -c 'import json, sys; print(json.load(sys.stdin)["gpu"]["uuid"])' 2>/dev/null
        else
            awk '/^  "gpu": \{/ { g = 1 } g && /^    "uuid": "/ { split($0, q, "\""); print q[4]; exit } g && /^  }/ { g = 0 }'
        fi)
fi
case $uuid in
*[!A-Za-z0-9_.-]*) echo "fleet-task: $task: the GPU's UUID '$uuid' is not a file name" >&2; exit 2 ;;
esac

if [ -z "$uuid" ]; then
    if [ "${CTS_FLEET_STANDIN:-}" = 1 ]; then
        echo "STAND-IN: no GPU; writing a committed matrix as this task's result ($task)"
        exec python3 "$here/fleet-standin.py" "$outdir"
    fi
    if [ -z "$why" ] && [ ! -x "$SYNC_CTS" ]; then
        echo "fleet-task: $task: no sync-cts at '$SYNC_CTS' (build it, or set SYNC_CTS)" >&2
        exit 2
    fi
    echo "fleet-task: skipped: $task has no GPU (${why:-$SYNC_CTS env finds none; nvidia-smi lists $listed}; CTS_FLEET_STANDIN=1 writes a stand-in)" >&2
    exit 77
fi
if [ ! -x "$SYNC_CTS" ]; then
    echo "fleet-task: $task: no sync-cts at '$SYNC_CTS' (build it, or set SYNC_CTS)" >&2
    exit 2
fi

base="$outdir/$host.$uuid"
echo "fleet-task: $task: $uuid -> $base.json.gz"
"$SYNC_CTS" run --out "$base.json.gz" --log "$base.log" "$@"
rc=$?
case $rc in
0) what="verdicts" ;;
1) what="a FAIL" ;;
3) what="no verdict for some cases" ;;
*) echo "fleet-task: $task: sync-cts run on $uuid exited $rc; no result" >&2
   exit "$rc" ;;
esac
echo "fleet-task: $task: sync-cts run on $uuid exited $rc ($what): $base.json.gz"
exit 0
