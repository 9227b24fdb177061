#!/usr/bin/env bash
# tools/same-code.py: a program against itself differs nowhere (exit 0); the
# legacy and per-thread builds differ where the default stream does (exit 1,
# naming cts_build_per_thread, the one function written to differ); a file
# objdump cannot read is bad input (exit 2, one line).
. "$(dirname "$0")/lib.sh" "$@"
command -v objdump >/dev/null || { echo "skipped: no objdump here (binutils)"; exit 77; }
tool="$root/tools/same-code.py"
ptds="$(dirname "$cts")/sync-cts-ptds"
python3 "$tool" "$cts" "$cts" >"$tmp/out" 2>&1 || fail "a program against itself: exit $?: $(tail -n 1 "$tmp/out")"
grep -qE '^[0-9]+ functions in .*; 0 differ, are new or are gone$' "$tmp/out" || fail "against itself: $(tail -n 1 "$tmp/out")"
python3 "$tool" "$cts" "$ptds" >"$tmp/out" 2>&1
[ $? = 1 ] || fail "the legacy and per-thread builds did not differ"
grep -qx 'differs: cts_build_per_thread' "$tmp/out" || fail "cts_build_per_thread is not named: $(head -n 5 "$tmp/out")"
printf 'not a program' >"$tmp/text"
python3 "$tool" "$cts" "$tmp/text" >"$tmp/out" 2>"$tmp/err"
[ $? = 2 ] && [ "$(wc -l <"$tmp/err")" = 1 ] && grep -q "objdump cannot read '$tmp/text'" "$tmp/err" ||
    fail "a file that is not a program: $(cat "$tmp/err")"
finish "same-code checks"
