#!/usr/bin/env bash
# Where output goes and what is read: judge's in-place rewrite (atomic,
# through a symbolic link, keeping the mode), standard output ("-"),
# devices and directories as --out, a malformed matrix refused with the
# file, case and member named, and a hostile GPU name escaped.  On a small
# matrix cut from a committed one by python3 (skipped, 77, without it).
. "$(dirname "$0")/lib.sh" "$@"
need_python

small_matrix "$tmp/small.json"
python3 - "$tmp" <<'EOF' || fail "python3 could not build the variants"
import copy, json, sys
d = sys.argv[1]
m = json.load(open(f"{d}/small.json"))
one = "memcpy.h2d.pageable.4KiB.explicit.op_implied.busy_same"
def write(name, x):
    json.dump(x, open(f"{d}/{name}.json", "w"), sort_keys=True)
x = copy.deepcopy(m); del x["spec"]; [c.pop("spec") for c in x["cases"].values()]; write("unjudged", x)
x = copy.deepcopy(m); del x["cases"][one]["evidence"]["call_us"]; write("nocall", x)
x = copy.deepcopy(m); e = x["cases"][one]["evidence"]; e["release_to_return_us"].append(1.0); write("longarray", x)
open(f"{d}/longarray.want", "w").write(f'{len(e["release_to_return_us"])} {e["repetitions"]}\n')
x = copy.deepcopy(m); x["cases"][one]["verdict"]["host"] = "sometimes"; write("badname", x)
x = copy.deepcopy(m); x["environment"]["gpu"]["name"] = 7; write("gpunumber", x)
x = copy.deepcopy(m); x["environment"]["gpu"]["name"] = "<script>alert(1)</script>"; write("script", x)
EOF
one=memcpy.h2d.pageable.4KiB.explicit.op_implied.busy_same

# judge rewrites its input in place, atomically: through a symbolic link the
# file it names is replaced (the link stays a link), with its mode kept.
cp "$tmp/unjudged.json" "$tmp/target.json"
chmod 640 "$tmp/target.json"
ln -s target.json "$tmp/link.json"
run 0 judge "$tmp/link.json"
[ -L "$tmp/link.json" ] || fail "judge through a symbolic link replaced the link"
[ "$(stat -c %a "$tmp/target.json")" = 640 ] || fail "judge in place changed the mode to $(stat -c %a "$tmp/target.json")"
grep -q '"spec": {' "$tmp/target.json" || fail "judge through a symbolic link did not judge the file it names"
[ -z "$(compgen -G "$tmp/*.tmp.*")" ] || fail "judge left a temporary file"
# --out - : the matrix on standard output, the counts on standard error, the input untouched.
cp "$tmp/unjudged.json" "$tmp/before.json"
run 0 judge "$tmp/unjudged.json" --out -
cmp -s "$tmp/unjudged.json" "$tmp/before.json" || fail "judge --out - changed its input"
cmp -s "$tmp/out" "$tmp/target.json" || fail "judge --out - did not write the judged matrix to standard output"
grep -qE '^standard output: [0-9]+ CONFORMS, [0-9]+ DEVIATES' "$tmp/err" || fail "judge --out -: $(cat "$tmp/err")"

# render: standard output by default and with "-"; a device is written, never replaced; a directory is refused.
run 0 render "$tmp/small.json" --format csv
cp "$tmp/out" "$tmp/default.csv"
run 0 render "$tmp/small.json" --format csv --out -
cmp -s "$tmp/out" "$tmp/default.csv" || fail "render --out - differs from render's default"
mkfifo "$tmp/fifo" # (as /dev/null would be, which a test must not risk)
cat "$tmp/fifo" >"$tmp/through.csv" &
reader=$!
run 0 render "$tmp/small.json" --format csv --out "$tmp/fifo"
if [ -p "$tmp/fifo" ]; then
    wait "$reader"
    cmp -s "$tmp/through.csv" "$tmp/default.csv" || fail "render --out a FIFO did not write through it"
else
    fail "render --out a FIFO replaced the FIFO"
    kill "$reader"
fi
if [ -c /dev/full ]; then # a standard output that cannot be written: exit 2, said so
    for cmd in "render $tmp/small.json" "check $tmp/small.json --waivers $root/waivers.json" "diff $tmp/small.json $tmp/small.json"; do
        $cts $cmd >/dev/full 2>"$tmp/err"
        rc=$?
        [ "$rc" -eq 2 ] && grep -q "cannot write to standard output" "$tmp/err" ||
            fail "$cmd into a full standard output: exit $rc, $(cat "$tmp/err")"
    done
fi
mkdir "$tmp/dir"
error "cannot write '$tmp/dir': it is a directory" render "$tmp/small.json" --out "$tmp/dir"
[ -z "$(ls "$tmp/dir")" ] || fail "render into a directory wrote $(ls "$tmp/dir")"

# A matrix that parses but is wrong is refused: the file, the case and the member named, nothing written.
error "'$tmp/nocall.json': case '$one': evidence.call_us has no time, but the case has a verdict (PASS)" cite "$one" "$tmp/nocall.json"
read -r values reps <"$tmp/longarray.want"
error "'$tmp/longarray.json': case '$one': evidence.release_to_return_us has $values values, but evidence.repetitions is $reps" \
    render "$tmp/longarray.json" --out "$tmp/r.md"
error "'$tmp/badname.json': case '$one': verdict.host is \"sometimes\", not returns or waits (or null)" \
    diff "$tmp/small.json" "$tmp/badname.json"
error "'$tmp/gpunumber.json': environment.gpu.name is an integer, not a string" check "$tmp/gpunumber.json"
[ -e "$tmp/r.md" ] && fail "a refused matrix was rendered"

# cite: an unknown id sharing no prefix with any is offered none.
error "no case 'zzz' in '$tmp/small.json' (no case id begins like it)" cite zzz "$tmp/small.json"

# A hostile GPU name reaches the Markdown and the HTML escaped.
run 0 render "$tmp/script.json"
grep -q '<script>' "$tmp/out" && fail "the Markdown holds the GPU name raw"
grep -qF '# cuda-sync-cts matrix: &lt;script&gt;alert(1)&lt;/script&gt;, driver 580.159.04' "$tmp/out" ||
    fail "the Markdown title: $(head -n 1 "$tmp/out")"
run 0 render "$tmp/script.json" --format html
grep -q '<script>alert' "$tmp/out" && fail "the HTML holds the GPU name raw"

# A matrix's `thresholds` member (docs/matrix.md), in every rendering: two rows
# of the committed H200 matrix, one with an exact, steady flip and one with none.
flip=memcpy_async.h2d.pageable.explicit.op_blocking.busy_same
none=memcpy.h2d.pageable.explicit.op_implied.busy_same
for size in 1B 4KiB 64KiB-1 64KiB 64KiB+1 1MiB 16MiB; do
    echo "memcpy_async.h2d.pageable.$size.explicit.op_blocking.busy_same"
    echo "memcpy.h2d.pageable.$size.explicit.op_implied.busy_same"
done >"$tmp/th.ids"
small_matrix "$tmp/th-none.json" "$h200" "$tmp/th.ids"
python3 - "$tmp" "$flip" "$none" <<'EOF' || fail "python3 could not add a thresholds member"
import json, sys
d, flip, none = sys.argv[1:]
m = json.load(open(f"{d}/th-none.json"))
def probe(n, outcome):
    return {"bytes": n, "status": outcome.split(":")[0], "outcome": outcome, "call_us": 5.0, "asked": 1}
def row(rid, probed, flips):
    of_row = {c["size_label"]: f'{c["status"]}:{c["symbol"] or ""}' for i, c in m["cases"].items()
              if i.replace("." + c["size_label"] + ".", ".", 1) == rid}
    return {"base_case": rid.replace(".explicit.", ".4KiB.explicit.", 1), "family": "memcpy",
            "max_bytes": 268435456, "samples": of_row, "flips": flips, "probes": len(probed),
            "undecided": 0, "truncated": False, "from_matrix": len(set(of_row.values())) > 1,
            "wall_s": 0.5, "probed": probed}
lo, hi = probe(2097152, "PASS:Qc"), probe(2097153, "PASS:W")
rows = {flip: row(flip, [probe(1, "PASS:Qc"), lo, hi, probe(268435456, "PASS:W")],
                  [{"below": lo, "above": hi, "exact": True, "steady": True}]),
        none: row(none, [probe(1, "PASS:W"), probe(268435456, "PASS:W")], [])}
m["thresholds"] = {"run": {"max_bytes": 268435456, "repetitions": 2, "rows": 2, "probes": 6, "wall_s": 1.0,
                           "catalogue": False, "suite_revision": m["environment"].get("suite_revision", ""),
                           "date": m["run"]["date"]},
                   "rows": rows}
json.dump(m, open(f"{d}/th.json", "w"), sort_keys=True)
EOF
run 0 render "$tmp/th.json"
grep -qx '## Thresholds' "$tmp/out" || fail "the Markdown of a matrix with thresholds has no Thresholds section"
grep -qxF "| \`$flip\` | \`Qc\` up to 2,097,152 B → \`W\` from 2,097,153 B | 4 |" "$tmp/out" ||
    fail "the Markdown's row with a flip: $(grep -F "| \`$flip\`" "$tmp/out")"
grep -qxF "| \`$none\` | no flip up to 256 MiB | 2 |" "$tmp/out" ||
    fail "the Markdown's row without a flip: $(grep -F "| \`$none\`" "$tmp/out")"
[ "$(grep -F -e "| \`$none\` |" -e "| \`$flip\` |" "$tmp/out" | cut -c4-10)" = "$(printf 'memcpy.\nmemcpy_')" ] ||
    fail "the Markdown's threshold rows are not sorted by id"
run 0 render "$tmp/th.json" --format html
grep -qF '<h2>Thresholds</h2>' "$tmp/out" || fail "the HTML of a matrix with thresholds has no Thresholds section"
grep -qF "<tr id=\"th-$flip\">" "$tmp/out" || fail "the HTML's threshold row has no anchor th-$flip"
run 0 render "$tmp/th.json" --format csv --section thresholds
printf '%s\r\n' "row,max_bytes,below_bytes,below_outcome,above_bytes,above_outcome,exact,steady,probes,undecided" \
    "$none,268435456,,,,,,,2,0" "$flip,268435456,2097152,PASS:Qc,2097153,PASS:W,true,true,4,0" >"$tmp/th.csv"
cmp -s "$tmp/out" "$tmp/th.csv" || fail "render --section thresholds: $(cat -A "$tmp/out")"
run 0 render "$tmp/th.json" --format csv --section cases
cp "$tmp/out" "$tmp/cases.csv"
run 0 render "$tmp/th-none.json" --format csv
cmp -s "$tmp/out" "$tmp/cases.csv" || fail "render --section cases differs from the default CSV (or the member changed it)"
error "--section wants cases or thresholds, not 'flips'" render "$tmp/th.json" --format csv --section flips
error "--section applies to --format csv" render "$tmp/th.json" --section thresholds
error "--section applies to --format csv" render "$tmp/th.json" --format html --section cases
error "'$tmp/th-none.json' has no thresholds" render "$tmp/th-none.json" --format csv --section thresholds \
    --out "$tmp/none.csv"
[ -e "$tmp/none.csv" ] && fail "render --section thresholds of a matrix without them wrote $tmp/none.csv"
# A matrix without the member renders as it did: no Thresholds anywhere (a
# matrix cut from the committed per-thread one, which has none); with it, the section.
ptds="$root/reports/nvidia-h200/driver-580.159.04/cuda-13.0/per-thread-default-stream/matrix.json.gz"
run 0 render "$tmp/th.json"
has "$tmp/out" "## Thresholds"
small_matrix "$tmp/ptds.json" "$ptds"
for format in md html; do
    run 0 render "$tmp/ptds.json" --format "$format"
    grep -q Thresholds "$tmp/out" && fail "the $format of a matrix cut from the committed per-thread one has a Thresholds section"
done

# Hostile input and outputs (issue 43).
# D11: --out through a dangling symbolic link writes the file it names and the
# link stays a link; a loop of links is refused, one line, exit 2.
rm -f "$tmp/dangle.md" "$tmp/dangle-target.md"
ln -s dangle-target.md "$tmp/dangle.md"
run 0 render "$tmp/small.json" --out "$tmp/dangle.md"
[ -L "$tmp/dangle.md" ] || fail "render --out through a dangling link replaced the link"
[ -s "$tmp/dangle-target.md" ] || fail "render --out through a dangling link did not write the file it names"
ln -s loop-b "$tmp/loop-a"
ln -s loop-a "$tmp/loop-b"
error "cannot write '$tmp/loop-a': Too many levels of symbolic links" render "$tmp/small.json" --out "$tmp/loop-a"
[ -L "$tmp/loop-a" ] || fail "render --out into a loop of links replaced the link"
# D5: an output that cannot be written is exit 2, one line, for every command.
if [ -w /dev/full ]; then
    error "cannot write '/dev/full': No space left on device" judge "$tmp/small.json" --out /dev/full
    "$cts" cite "$one" "$tmp/small.json" >/dev/full 2>"$tmp/err"
    rc=$?
    [ "$rc" -eq 2 ] || fail "cite into /dev/full: exit $rc, expected 2 ($(cat "$tmp/err"))"
    grep -qF "cannot write to standard output" "$tmp/err" || fail "cite into /dev/full: $(cat "$tmp/err")"
    [ "$(wc -l <"$tmp/err")" -eq 1 ] || fail "cite into /dev/full: not one line: $(cat "$tmp/err")"
fi
# D8: a file name holding a newline or a control byte is named on one line, escaped.
nl_name="$tmp/two
lines.json"
run 2 render "$nl_name"
[ "$(wc -l <"$tmp/err")" -eq 1 ] || fail "an error naming a file with a newline is not one line: $(cat "$tmp/err")"
grep -qF 'two\nlines.json' "$tmp/err" || fail "the newline in the file name is not escaped: $(cat "$tmp/err")"
run 2 render "$tmp/esc$(printf '\033')[31m.json"
grep -qF 'esc\x1b[31m.json' "$tmp/err" || fail "a control byte in the file name is not escaped: $(cat -A "$tmp/err")"
# D7: the CSV is linear in a case's clauses: 400,000 of them render in seconds
# (joined by repeated strcat they took over a minute: 320,000 took 63 s).
python3 - "$tmp" "$one" <<'PY' || fail "python3 could not build the many-clause matrix"
import json, sys
d, one = sys.argv[1:]
m = json.load(open(f"{d}/small.json"))
c = m["cases"][one]["spec"]
own = c["clauses"]
c["clauses"] = "@CLAUSES@"  # its own clauses, over and over, written as text (json.dump of them took seconds)
text = json.dumps(m, sort_keys=True)
each = json.dumps(own)[1:-1]
open(f"{d}/clauses.json", "w").write(text.replace('"@CLAUSES@"', "[" + ",".join([each] * (400000 // len(own) + 1)) + "]"))
PY
timeout 60 "$cts" render "$tmp/clauses.json" --format csv --out "$tmp/clauses.csv" 2>"$tmp/err"
rc=$?
[ "$rc" -eq 0 ] || fail "render --format csv of a case with 400,000 clauses: exit $rc (124: over 60 s) $(head -c 300 "$tmp/err")"
[ "$(grep -F "$one" "$tmp/clauses.csv" | tr ';' '\n' | wc -l)" -ge 400000 ] ||
    fail "the CSV field of the 400,000 clauses is not whole"

finish "output checks"
