#!/usr/bin/env bash
# One valid run of one case: skipped (77) with its reason and no file where
# there is no GPU; a matrix, its rendering and its log where there is one.
# Apart from cli.sh because it may take the GPU: a second CUDA context beside
# the suite's would be measured with it (RESOURCE_LOCK gpu, tests/CMakeLists.txt).
. "$(dirname "$0")/lib.sh" "$@"
. "$(dirname "$0")/gpu-take.sh"

one='memcpy.d2d.device.1B.explicit.op_implied.busy_same'
"$cts" run "$one" --repeat 1 --out "$tmp/one.json" >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ "$rc" -eq 77 ]; then
    grep -q '^sync-cts: skipped: no CUDA device or driver here' "$tmp/out" ||
        fail "a skipped run gave no reason: $(cat "$tmp/out" "$tmp/err")"
    [ -z "$(ls "$tmp" | grep '^one')" ] || fail "a skipped run left files: $(ls "$tmp")"
elif [ "$rc" -eq 0 ]; then
    for f in one.json one.md one.log; do [ -s "$tmp/$f" ] || fail "a run did not write $f"; done
    rm -f "$tmp"/one.*
else
    fail "run of one case exited $rc: $(cat "$tmp/err")"
fi

finish "run-of-one-case checks"
