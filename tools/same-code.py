#!/usr/bin/env python3
"""Which functions of a program assemble differently in another build of it.

    tools/same-code.py OLD NEW        # two builds of one program (build/sync-cts, say)

A restructuring that moves code between files and folders should leave every
function's instructions as they were: then no verdict can have changed, on
any GPU.  This disassembles both programs (objdump -d), takes each function's
instructions with what only the layout decides left out (addresses of code and
data reached through %rip, call and jump targets' addresses, and the padding
after a function's last instruction; their names are kept, and every
immediate constant), and compares them function by
function, by name (a name defined in several files counts once each).

Prints each function that differs, is new, or is gone, then one line: how many
functions, how many differ.  Exit 0 when none differs, 1 when some do, 2 on bad
input (a file objdump cannot read).  A function that differs is not wrong: an
inlining decision moves with the code around it; read it in both (objdump
--disassemble=NAME) before believing it changed.
"""
import hashlib
import re
import subprocess
import sys
from collections import Counter


HEAD = re.compile(r"^[0-9a-f]+ <(.+)>:$")
# An instruction less its address, comment, RIP-relative offsets and call/jump targets' addresses.
NOISE = re.compile(r"^ *[0-9a-f]+:\t|#.*$|\b[0-9a-f]+ (?=<)")
RIP = re.compile(r"-?0x[0-9a-f]+\(%rip\)")
# Alignment padding: the nops (with prefixes) and the two-byte xchg a linker or assembler fills with.
PAD = re.compile(r"^(?:(?:data16|cs|ds)\s+)*(?:nop[wl]?(?:\s.*)?|xchg\s+%ax,%ax)$")


def disassemble(path):
    """objdump started (both programs' run side by side)."""
    return subprocess.Popen(["objdump", "-d", "--no-show-raw-insn", path], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def functions(path, p):
    stdout, stderr = p.communicate()
    if p.returncode != 0:
        print(f"same-code.py: objdump cannot read '{path}': {stderr.strip()}", file=sys.stderr)
        sys.exit(2)
    out, name, body = Counter(), None, []
    for line in stdout.split("\n"):
        if not line.startswith(" "):
            m = HEAD.match(line)
            if m or not line.strip():
                if name:
                    out[(name, digest(body))] += 1
                name, body = (m.group(1), []) if m else (None, [])
            continue
        if name:
            ins = NOISE.sub("", line)
            body.append((RIP.sub("X(%rip)", ins) if "%rip" in ins else ins).strip())
    if name:
        out[(name, digest(body))] += 1
    return out


def digest(body):
    """A function's instructions as one hash, less the padding after its last one (the next
    function's alignment, which the layout decides)."""
    end = len(body)
    while end and PAD.match(body[end - 1]):
        end -= 1
    return hashlib.md5("\n".join(body[:end]).encode()).hexdigest()


def main():
    if len(sys.argv) != 3:
        print("usage: tools/same-code.py OLD NEW", file=sys.stderr)
        sys.exit(2)
    same = sys.argv[1] == sys.argv[2]
    p_old = disassemble(sys.argv[1])
    p_new = None if same else disassemble(sys.argv[2])
    old = functions(sys.argv[1], p_old)
    new = old if same else functions(sys.argv[2], p_new)
    gone, added = old - new, new - old
    names_gone, names_added = Counter(n for n, _ in gone.elements()), Counter(n for n, _ in added.elements())
    differ = sorted(set(names_gone) & set(names_added))
    for n in differ:
        print(f"differs: {n}")
    for n in sorted(set(names_gone) - set(names_added)):
        print(f"gone:    {n}")
    for n in sorted(set(names_added) - set(names_gone)):
        print(f"new:     {n}")
    total = sum(new.values())
    changed = len(differ) + len(set(names_gone) ^ set(names_added))
    print(f"{total} functions in {sys.argv[2]}; {changed} differ, are new or are gone")
    sys.exit(1 if changed else 0)


if __name__ == "__main__":
    main()
