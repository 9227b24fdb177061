#!/usr/bin/env bash
# The fleet on a real one-node Slurm cluster (docs/fleet.md "On Slurm").
#
#     tests/slurm.sh path/to/sync-cts
#
# First, anywhere: tools/fleet-task.sh refuses a missing OUTDIR (2), skips
# without a GPU (77), and writes the stand-in only when asked to, saying so.
# The tasks, here and in the job, have CUDA_VISIBLE_DEVICES empty: no GPU,
# even on a GPU machine.
# Then, where Slurm's daemons are installed and we are root: starts munged,
# slurmctld and slurmd for real, every file of theirs in $tmp (their own
# munge key and socket, slurm.conf, state, spool, logs, unused ports), and
# submits tools/fleet.sbatch with three tasks.  Having no GPU, each task
# writes the stand-in (tools/fleet-standin.py), task 1's with one verdict
# changed; `sync-cts fleet` must find exactly that one: sbatch exits 1, and
# fleet.json names task 1's GPU with that one case outside its group.
# The daemons are always stopped, and every wait is bounded.  Exit 77
# (skipped), saying why, where Slurm, munge, root or python3 is missing.
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh" "$@"
need_python
case_id=memcpy.h2d.pageable.4KiB.explicit.op_implied.busy_same
host=$(hostname -s)

# --- fleet-task.sh, without Slurm -----------------------------------------
out=$(SYNC_CTS="$cts" "$root/tools/fleet-task.sh" "$tmp/missing" 2>&1)
rc=$?
[ "$rc" -eq 2 ] || fail "fleet-task.sh with a missing OUTDIR: exit $rc, expected 2 ($out)"
[ "$(printf '%s\n' "$out" | wc -l)" -eq 1 ] || fail "fleet-task.sh with a missing OUTDIR: not one line: $out"
# CUDA_VISIBLE_DEVICES= gives the tasks no GPU, here and in the job, so that
# on a GPU machine too they write the stand-in and never take a GPU.
mkdir "$tmp/host"
out=$(env -u CTS_FLEET_STANDIN CUDA_VISIBLE_DEVICES= SYNC_CTS="$cts" "$root/tools/fleet-task.sh" "$tmp/host" 2>&1)
rc=$?
[ "$rc" -eq 77 ] || fail "fleet-task.sh without a GPU: exit $rc, expected 77 ($out)"
[ "$(printf '%s\n' "$out" | wc -l)" -eq 1 ] || fail "fleet-task.sh without a GPU: not one line: $out"
[ -z "$(ls -A "$tmp/host")" ] || fail "fleet-task.sh without a GPU wrote $(ls "$tmp/host")"
out=$(CTS_FLEET_STANDIN=1 CUDA_VISIBLE_DEVICES='' SLURM_PROCID=7 SYNC_CTS="$cts" "$root/tools/fleet-task.sh" "$tmp/host" 2>&1)
rc=$?
[ "$rc" -eq 0 ] || fail "fleet-task.sh with CTS_FLEET_STANDIN=1: exit $rc ($out)"
printf '%s\n' "$out" | grep -qx "STAND-IN: no GPU; writing a committed matrix as this task's result.*" ||
    fail "fleet-task.sh with CTS_FLEET_STANDIN=1 did not say STAND-IN: $out"
[ "$(ls -A "$tmp/host")" = "$host.GPU-standin-7.json.gz" ] ||
    fail "fleet-task.sh with CTS_FLEET_STANDIN=1 wrote '$(ls -A "$tmp/host")', not $host.GPU-standin-7.json.gz"
rm -rf "$tmp/host"
[ "$failures" -eq 0 ] || finish "slurm (fleet-task.sh)"

# --- a one-node Slurm cluster ---------------------------------------------
for p in munged slurmctld slurmd sbatch srun sinfo squeue scancel; do
    command -v "$p" >/dev/null 2>&1 || {
        echo "skipped: no $p here (Debian: apt-get install slurmctld slurmd slurm-client munge); fleet-task.sh passed"
        exit 77
    }
done
[ "$(id -u)" -eq 0 ] || { echo "skipped: starting slurmd needs root; fleet-task.sh passed"; exit 77; }
# Nothing of a Slurm job this test may run in reaches the cluster it starts.
for v in $(compgen -e); do
    case $v in SLURM_* | SBATCH_* | SRUN_* | SALLOC_*) unset "$v" ;; esac
done

# munged refuses a socket in a directory not searchable by all.
chmod 755 "$tmp"
mkdir -p "$tmp/state" "$tmp/spool" "$tmp/fleet"
conf="$tmp/slurm.conf"
marker="CTS_SLURM_TEST=$tmp"  # in the environment of all that the cluster starts
pids=()  # the daemons
job=""   # sbatch, while it runs

# The daemons' logs (or, where one wrote none, what it printed) and the job's output.
logs() {
    local d f
    for d in munged slurmctld slurmd job; do
        f=$tmp/$d.log
        [ -s "$f" ] || f=$tmp/$d.err
        [ "$d" = job ] && f=$tmp/job.out
        [ -s "$f" ] && { echo "--- $(basename "$f") (tail)"; tail -n 25 "$f"; }
    done >&2
}

# Stops what this test started: its jobs, its daemons (each by the pid it
# was started with), then whatever they left (a slurmstepd, a task), known
# by the marker in its environment.  Every wait is bounded.
stop() {
    local pid p env alive
    [ -n "$job" ] && kill "$job" 2>/dev/null
    if [ ${#pids[@]} -gt 0 ]; then
        SLURM_CONF=$conf timeout 10 scancel --full --quiet --user=root >/dev/null 2>&1
        for _ in $(seq 50); do
            [ -z "$(SLURM_CONF=$conf timeout 5 squeue -h 2>/dev/null)" ] && break
            sleep 0.2
        done
        for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null; done
        for _ in $(seq 50); do
            alive=0
            for pid in "${pids[@]}"; do kill -0 "$pid" 2>/dev/null && alive=1; done
            [ "$alive" -eq 0 ] && break
            sleep 0.2
        done
        for pid in "${pids[@]}"; do kill -9 "$pid" 2>/dev/null; done
        wait 2>/dev/null
    fi
    for env in /proc/[0-9]*/environ; do
        p=${env#/proc/}
        p=${p%/environ}
        [ "$p" -ne $$ ] || continue
        grep -qzxF -- "$marker" "$env" 2>/dev/null && kill -9 "$p" 2>/dev/null
    done
    rm -rf "$tmp"
}
trap stop EXIT
trap 'exit 129' HUP
trap 'exit 130' INT
trap 'exit 143' TERM

# Two unused ports, so that no other Slurm here is disturbed.
read -r ctld_port slurmd_port < <(python3 -c '
import socket
s = [socket.socket() for _ in range(2)]
for x in s:
    x.bind(("127.0.0.1", 0))
print(*(x.getsockname()[1] for x in s))')

if command -v mungekey >/dev/null 2>&1; then
    mungekey --create --keyfile="$tmp/munge.key" >/dev/null 2>&1 || fail "mungekey could not make a key"
else
    dd if=/dev/urandom of="$tmp/munge.key" bs=1024 count=1 status=none
fi
chmod 600 "$tmp/munge.key"
: >"$tmp/plugstack.conf"
cat >"$conf" <<EOF
ClusterName=ctsfleet
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$tmp/munge.sock
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$tmp/state
SlurmdSpoolDir=$tmp/spool
SlurmctldPidFile=$tmp/slurmctld.pid
SlurmdPidFile=$tmp/slurmd.pid
SlurmctldLogFile=$tmp/slurmctld.log
SlurmdLogFile=$tmp/slurmd.log
PlugStackConfig=$tmp/plugstack.conf
MailProg=/bin/true
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MpiDefault=none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
ReturnToService=2
# sbatch --wait polls every 2 s only while this is under 6 (then 8 s, then 32).
MinJobAge=4
NodeName=$host NodeAddr=127.0.0.1 CPUs=$(nproc) State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF

start=$(date +%s)
env "$marker" munged --foreground --socket="$tmp/munge.sock" --key-file="$tmp/munge.key" \
    --pid-file="$tmp/munged.pid" --log-file="$tmp/munged.log" --seed-file="$tmp/munged.seed" \
    >"$tmp/munged.err" 2>&1 &
pids+=($!)
for _ in $(seq 50); do [ -S "$tmp/munge.sock" ] && break; sleep 0.2; done
[ -S "$tmp/munge.sock" ] || { fail "munged made no socket in 10 s"; logs; finish slurm; }
env "$marker" SLURM_CONF="$conf" slurmctld -D -f "$conf" >"$tmp/slurmctld.err" 2>&1 &
pids+=($!)
env "$marker" SLURM_CONF="$conf" slurmd -D -f "$conf" >"$tmp/slurmd.err" 2>&1 &
pids+=($!)
state=""
for _ in $(seq 120); do
    state=$(SLURM_CONF=$conf timeout 5 sinfo -h -o %T 2>/dev/null)
    [ "$state" = idle ] && break
    sleep 0.5
done
[ "$state" = idle ] || { fail "the node is '$state', not idle, after 60 s"; logs; finish slurm; }
echo "slurm: node $host idle after $(($(date +%s) - start)) s"

# Three tasks on one node: --overcommit, as a CI machine may have fewer CPUs.
# In the background, so that a signal to this test is not held until it ends.
(cd "$root" && exec env "$marker" SLURM_CONF="$conf" CTS_FLEET_STANDIN=1 CTS_FLEET_PERTURB=1 SYNC_CTS="$cts" CUDA_VISIBLE_DEVICES= \
    timeout 150 sbatch --wait --quiet --export=ALL --overcommit --nodes=1 --ntasks=3 --chdir="$root" \
    --output="$tmp/job.out" tools/fleet.sbatch "$tmp/fleet") &
job=$!
wait "$job"
rc=$?
job=""
echo "slurm: sbatch --wait exited $rc after $(($(date +%s) - start)) s"
[ "$rc" -ne 124 ] || fail "the job did not end in 150 s"

for n in 0 1 2; do
    [ -s "$tmp/fleet/$host.GPU-standin-$n.json.gz" ] || fail "task $n wrote no $host.GPU-standin-$n.json.gz"
done
matrices=("$tmp"/fleet/*.json.gz)
[ "${#matrices[@]}" -eq 3 ] || fail "the job wrote ${#matrices[@]} matrices, not 3: $(ls "$tmp/fleet")"
n=$(grep -c "^STAND-IN: no GPU; writing a committed matrix as this task's result" "$tmp/job.out")
[ "$n" -eq 3 ] || fail "the job's output says STAND-IN $n times, not 3"
[ -s "$tmp/fleet/fleet.md" ] || fail "the job wrote no fleet.md"
if [ ! -s "$tmp/fleet/fleet.json" ]; then
    fail "the job wrote no fleet.json"
else
    [ "$rc" -eq 1 ] || fail "sbatch --wait exited $rc, not fleet's 1 (an outlier)"
    python3 - "$tmp/fleet/fleet.json" "$tmp/fleet/$host.GPU-standin-1.json.gz" "$case_id" <<'PY' || fail "fleet.json is not what it should be (above)"
import json, sys
report, matrix, case = sys.argv[1:]
f = json.load(open(report))
bad = []
if f.get("schema") != "cuda-sync-cts/fleet":
    bad.append(f"schema {f.get('schema')!r}")
members = [m for g in f.get("groups", []) for m in g.get("members", [])]
if len(members) != 3:
    bad.append(f"{len(members)} members, not 3")
out = [m for m in members if m.get("outside")]
if len(out) != 1:
    bad.append(f"{len(out)} members outside their group, not 1: {[m.get('gpu_uuid') for m in out]}")
elif out[0].get("gpu_uuid") != "GPU-standin-1" or out[0].get("matrix") != matrix:
    bad.append(f"the member outside is {out[0].get('gpu_uuid')} ({out[0].get('matrix')}), not task 1's")
elif out[0]["outside"] != [{"case": case, "outcome": "A", "majority": "W"}]:
    bad.append(f"task 1's cases outside are {out[0]['outside']}")
if f.get("outliers") != 1:
    bad.append(f"outliers {f.get('outliers')!r}, not 1")
for b in bad:
    print("fleet.json:", b)
sys.exit(1 if bad else 0)
PY
fi
# Each matrix is the stand-in's, stamped as its task's.
python3 - "$tmp/fleet" "$host" <<'PY' || fail "a stand-in matrix is not stamped as its task's (above)"
import gzip, json, sys
d, host = sys.argv[1:]
bad = 0
for n in range(3):
    p = f"{d}/{host}.GPU-standin-{n}.json.gz"
    try:  # all but the cases, one a line
        text, inside = [], False
        for line in gzip.open(p, "rt"):
            if line.startswith('"cases": {'):
                inside = True
            elif inside and line.startswith("}"):
                inside = False
                text.append('"cases": {}' + line[1:])
            elif not inside:
                text.append(line)
        m = json.loads("".join(text))
    except (OSError, ValueError) as e:
        print(f"{p}: {e}")
        bad += 1
        continue
    e = m["environment"]
    got = (e["host"].get("name"), e["gpu"].get("uuid"), m["run"].get("standin"))
    if got != (host, f"GPU-standin-{n}", True):
        print(f"{p}: host.name, gpu.uuid, run.standin are {got}")
        bad += 1
sys.exit(bad > 0)
PY
[ "$failures" -eq 0 ] || logs
echo "slurm: done in $(($(date +%s) - start)) s"
finish slurm
