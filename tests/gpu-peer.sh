#!/usr/bin/env bash
# The peer family under CUDA_LAUNCH_BLOCKING=1, held by the wait-value method
# (a gate kernel's own launch would wait there): every case must have a
# verdict that `check` passes with the committed waivers, the matrix must say
# how it was measured, and a launch beside held work of its own device must
# wait (launch blocking makes it wait for the device: 2 x H200, 580.159.04).
# One device: skipped (77), every case NOTSUPP; no GPU: skipped with the reason.
set -u
. "$(dirname "$0")/gpu-take.sh"
exe=${1:?usage: gpu-peer.sh SYNC-CTS DIR WAIVERS}
dir=${2:?} waivers=${3:?}
rm -rf "$dir" && mkdir -p "$dir" || exit 2
CUDA_LAUNCH_BLOCKING=1 "$exe" run --family peer --hold wait-value --out "$dir/peer-lb.json" >"$dir/peer-lb.txt" 2>&1
rc=$?
[ $rc = 77 ] && { cat "$dir/peer-lb.txt"; exit 77; }
[ $rc = 0 ] || { echo "gpu-peer.sh: the launch-blocking run exited $rc:"; tail -n 5 "$dir/peer-lb.txt"; exit 1; }
line=$(grep -E '^[0-9]+ cases in ' "$dir/peer-lb.txt" | tail -n 1)
echo "launch-blocking, wait-value: $line"
total=${line%% cases in*}
notsupp=$(echo "$line" | grep -oE '[0-9]+ NOTSUPP' | cut -d' ' -f1)
if [ -n "$total" ] && [ "${notsupp:-0}" = "$total" ]; then
    echo "skipped: every case of the peer family is NOTSUPP here: $(grep -m 1 -o '"reason":"[^"]*"' "$dir/peer-lb.json" | cut -d '"' -f 4)"
    exit 77
fi
grep -q '"hold": *"wait-value"' "$dir/peer-lb.json" || { echo "gpu-peer.sh: the matrix does not record the hold"; exit 1; }
grep -q '"CUDA_LAUNCH_BLOCKING": *"1"' "$dir/peer-lb.json" || { echo "gpu-peer.sh: the matrix does not record CUDA_LAUNCH_BLOCKING=1"; exit 1; }
grep '^"launch.this_device.op_nonblocking.busy_nonblocking"' "$dir/peer-lb.json" | grep -q '"symbol":"W"' ||
    { echo "gpu-peer.sh: under CUDA_LAUNCH_BLOCKING=1 a launch beside held work of its device did not wait"; exit 1; }
"$exe" check "$dir/peer-lb.json" --waivers "$waivers"
