#!/usr/bin/env bash
# One GPU test: judges one group's cases in the matrix the fixture
# (gpu-suite.sh) wrote: fails when a case FAILed, has no verdict, or
# deviates without a waiver, naming each.  Skipped (77) when the fixture
# was skipped (no GPU here).
set -u
exe=${1:?usage: gpu-group.sh SYNC-CTS DIR GROUP WAIVERS}
dir=${2:?} group=${3:?} waivers=${4:?}
if [ ! -d "$dir" ]; then
    echo "skipped: the suite did not run here (its fixture was skipped: no CUDA device or driver)"
    exit 77
fi
matrix="$dir/groups/$group.json"
if [ ! -e "$matrix" ]; then
    echo "gpu-group.sh: the suite's run has no case of group $group ($matrix is missing)" >&2
    exit 1
fi
exec "$exe" check "$matrix" --waivers "$waivers"
