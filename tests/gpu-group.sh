#!/usr/bin/env bash
# One GPU test: judges one group's cases in the matrix the fixture
# (gpu-suite.sh) wrote: fails when a case FAILed, has no verdict, or
# deviates without a waiver, naming each.  Skipped (77) when the fixture
# was skipped (no GPU here), or when every case of the group is NOTSUPP.
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
# A group none of whose cases can run here (the peer family's on one GPU): skipped, with the
# first case's reason.
cases=$(grep -c '^"[a-z0-9_]*\.' "$matrix")
notsupp=$(grep '^"[a-z0-9_]*\.' "$matrix" | grep -c '"status":"NOTSUPP"')
if [ "$cases" -gt 0 ] && [ "$cases" = "$notsupp" ]; then
    why=$(grep -m 1 -o '"reason":"[^"]*"' "$matrix" | cut -d '"' -f 4)
    echo "skipped: every case of $group is NOTSUPP here: $why"
    exit 77
fi
exec "$exe" check "$matrix" --waivers "$waivers"
