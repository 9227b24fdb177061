#!/usr/bin/env bash
# One GPU test: judges one group's cases in the matrices the fixtures
# (gpu-suite.sh) wrote: fails when a case FAILed, has no verdict, or
# deviates without a waiver, naming each.  Where the GPUs are shared out
# (tests/gpu-tests.cmake.in), a group's cases that cross to a second device
# are in DIR/pair/groups/, the rest in DIR/groups/; it judges both.
# Skipped (77) when the fixture was skipped (no GPU here), or when every
# case of the group is NOTSUPP.
set -u
exe=${1:?usage: gpu-group.sh SYNC-CTS DIR GROUP WAIVERS}
dir=${2:?} group=${3:?} waivers=${4:?}
# No matrix from either fixture: they were skipped (the pair suite's DIR/pair
# can leave DIR behind it, so the matrices are what is looked for).
if [ ! -e "$dir/suite.json.gz" ] && [ ! -e "$dir/pair/suite.json.gz" ]; then
    echo "skipped: the suite did not run here (its fixture was skipped: no CUDA device or driver)"
    exit 77
fi
matrices=()
for m in "$dir/groups/$group.json" "$dir/pair/groups/$group.json"; do
    [ -e "$m" ] && matrices+=("$m")
done
if [ ${#matrices[@]} = 0 ]; then
    echo "gpu-group.sh: the suite's run has no case of group $group ($dir/groups/$group.json is missing)" >&2
    exit 1
fi
# A group none of whose cases can run here (the peer family's on one GPU): skipped, with the
# first case's reason.
cases=$(cat "${matrices[@]}" | grep -c '^"[a-z0-9_]*\.')
notsupp=$(cat "${matrices[@]}" | grep '^"[a-z0-9_]*\.' | grep -c '"status":"NOTSUPP"')
if [ "$cases" -gt 0 ] && [ "$cases" = "$notsupp" ]; then
    why=$(cat "${matrices[@]}" | grep -m 1 -o '"reason":"[^"]*"' | cut -d '"' -f 4)
    echo "skipped: every case of $group is NOTSUPP here: $why"
    exit 77
fi
rc=0
for m in "${matrices[@]}"; do
    "$exe" check "$m" --waivers "$waivers" || rc=1
done
exit $rc
