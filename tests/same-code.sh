#!/usr/bin/env bash
# tools/same-code.py: a program against itself differs nowhere (exit 0); padding
# after a function does not count, a nop inside it does; the
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
# The padding after a function's last instruction is the layout's, not the function's; a nop inside it is not.
python3 - "$tool" <<'EOF' || fail "padding: a function's trailing alignment counted, or a nop inside it not"
import importlib.util, sys
spec = importlib.util.spec_from_file_location("same_code", sys.argv[1])
m = importlib.util.module_from_spec(spec)
spec.loader.exec_module(m)
body = ["push   %rbp", "mov    $0x0,%eax", "leave", "ret"]
assert m.digest(body) == m.digest(body + ["cs nopw 0x0(%rax,%rax,1)", "nop"])
assert m.digest(body) == m.digest(body + ["xchg   %ax,%ax", "data16 cs nopw 0x0(%rax,%rax,1)"])
assert m.digest(body) != m.digest(body[:2] + ["nop"] + body[2:])
assert m.digest(body) != m.digest(body[:3])
EOF
printf 'not a program' >"$tmp/text"
python3 "$tool" "$cts" "$tmp/text" >"$tmp/out" 2>"$tmp/err"
[ $? = 2 ] && [ "$(wc -l <"$tmp/err")" = 1 ] && grep -q "objdump cannot read '$tmp/text'" "$tmp/err" ||
    fail "a file that is not a program: $(cat "$tmp/err")"
finish "same-code checks"
