#!/usr/bin/env bash
# The command line: every kind of bad input gets a one-line error naming the
# problem, a non-zero exit, and leaves no file behind.  Runs with or without a GPU.
. "$(dirname "$0")/lib.sh" "$@"
export LC_ALL=C # byte order: sorting 19,017 ids in a UTF-8 locale took two seconds

expect 2 "no command given"
expect 2 "unknown command 'frobnicate'" frobnicate
# The worker's exporting process (harness/families/peer.c) wants exactly its device.
expect 2 "ipc-export wants --device N [--shared-fd FD] (it is started by a worker)" ipc-export
expect 2 "ipc-export wants --device N [--shared-fd FD] (it is started by a worker)" ipc-export --device x
expect 2 "unknown option '--bogus'" run --bogus
expect 2 "unknown option '--bogus'" list --bogus
expect 2 "unknown option '--bogus'" env --bogus
expect 2 "unknown option '-x'" list -x
expect 2 "option '--out' needs a value" render m.json --out
expect 2 "option '--repeat' needs a value" run --repeat
expect 2 "--repeat wants a whole number from 1 to 16, not '0'" run --repeat 0
expect 2 "--repeat wants a whole number from 1 to 16, not 'many'" run --repeat many
expect 2 "--device wants a device index, not '-1'" run --device -1
expect 2 "no case matches 'nothing.*'" list 'nothing.*'
expect 2 "no case matches 'memcpy.h2d.*.op_nonblocking.*'" run 'memcpy.h2d.*.op_nonblocking.*' --out "$tmp/m.json"
expect 2 "unexpected argument 'extra'" list 'memcpy.*' extra
expect 2 "no family 'nope' (families: memcpy, copy, memset, alloc, pointer, stream, managed, trigger, first_launch, device, depth, stall, pool, queues, event_timing, overlap, capture, green, peer, process)" list --family nope
expect 2 "no case of group 'nope' matches '*'" list --group nope
expect 2 "--schedule wants auto, spin, yield or blocking-sync, not 'fast'" run --schedule fast
expect 2 "--hold wants kernel or wait-value, not 'gate'" run --hold gate
expect 2 "--devices wants 1 or 2 (the devices a case needs), not '3'" run --devices 3
expect 2 "--devices wants 1 or 2 (the devices a case needs), not 'two'" list --devices two
expect 2 "no case that needs 2 devices matches the selection" list --devices 2 --family memset
expect 2 "cannot write '/nonexistent/dir/m.json.gz'" run --out /nonexistent/dir/m.json.gz
expect 2 "no case of family 'alloc' matches 'memcpy*'" run --family alloc 'memcpy*' --out "$tmp/m.json"
expect 2 "cannot write '/nonexistent/dir/m.json'" run --out /nonexistent/dir/m.json
expect 2 "cannot write '$tmp/ok.log.d/x.log'" run --out "$tmp/ok.json" --log "$tmp/ok.log.d/x.log"
expect 2 "cannot read '$tmp/none.log'" log "$tmp/none.log"
expect 2 "log wants a log file" log
expect 2 "render wants a matrix file" render
expect 2 "cannot read '$tmp/none.json'" render "$tmp/none.json"
echo '{"not": "a matrix"}' >"$tmp/bad.json"
expect 2 "'$tmp/bad.json' is not a cuda-sync-cts matrix" render "$tmp/bad.json"
rm -f "$tmp/bad.json"

# Nothing half-written: the failed runs above left no file at all.
leftover=$(find "$tmp" -mindepth 1 -not -name out -not -name err)
[ -z "$leftover" ] || fail "files left behind: $leftover"

# An unwritable directory (skipped as root, who can write anywhere).
if [ "$(id -u)" -ne 0 ]; then
    mkdir "$tmp/ro" && chmod 555 "$tmp/ro"
    expect 2 "cannot write '$tmp/ro/m.json'" run --out "$tmp/ro/m.json"
fi


# list: one id a line, from the one declaration; --groups, one CTest group a line.
# The ids are stable: exactly those of the committed H200 default matrix (one
# case a line there), no literal count; a family and a group likewise.
"$cts" list >"$tmp/ids" || fail "list exited $?"
gzip -dc "$h200" >"$tmp/h200.json" || fail "cannot read $h200"
committed() { grep "$1" "$tmp/h200.json" | grep '^"[a-z0-9_]*\.' | cut -d '"' -f 2 | sort; }
committed '' >"$tmp/committed.ids"
[ -s "$tmp/committed.ids" ] || fail "no case id read from $h200"
sort "$tmp/ids" | cmp -s - "$tmp/committed.ids" ||
    fail "list differs from the committed matrix's ids: $(sort "$tmp/ids" | diff - "$tmp/committed.ids" | head -n 4)"
[ -z "$(sort "$tmp/ids" | uniq -d)" ] || fail "list printed duplicate ids"
"$cts" list --family memcpy 'memcpy*' | sort | cmp -s - <(committed '"family":"memcpy"' | grep '^memcpy') ||
    fail "list --family memcpy 'memcpy*' is not the committed matrix's memcpy-family ids"
"$cts" list --group launch | sort | cmp -s - <(committed '"group":"launch"') ||
    fail "list --group launch is not exactly the committed matrix's launch group"
rm -f "$tmp/h200.json"
grep -qx 'memcpy_async.h2d.pageable.4KiB.explicit.op_nonblocking.busy_legacy' "$tmp/ids" ||
    fail "list lacks a known id"
[ "$("$cts" list 'memcpy.d2d.*' | wc -l)" -eq 149 ] || fail "list 'memcpy.d2d.*' is not 149 ids"
[ "$("$cts" list --family alloc | wc -l)" -eq 646 ] || fail "list --family alloc is not 646 ids"
[ "$("$cts" list --family memset 'cu_*' | wc -l)" -eq 3424 ] || fail "list --family memset 'cu_*' is not 3424 ids"
"$cts" list --groups >"$tmp/groups" || fail "list --groups exited $?"
[ "$(wc -l <"$tmp/groups")" -eq 492 ] || fail "list --groups printed $(wc -l <"$tmp/groups") groups"
grep -qx 'device_set_limit.stack_size trigger' "$tmp/groups" || fail "list --groups lacks a variant group"
grep -qx 'free_null alloc' "$tmp/groups" || fail "list --groups lacks 'free_null alloc'"
# --devices: the cases that cross to a second device (what a test of two GPUs runs) and the rest
# (a test of one), which together are every case, once.
"$cts" list --devices 2 >"$tmp/two" && "$cts" list --devices 1 >"$tmp/one" || fail "list --devices exited non-zero"
[ "$(cat "$tmp/one" "$tmp/two" | sort | uniq -d | wc -l)" -eq 0 ] || fail "a case is in both --devices 1 and 2"
[ "$(cat "$tmp/one" "$tmp/two" | wc -l)" -eq "$(wc -l <"$tmp/ids")" ] || fail "--devices 1 and 2 are not every case"
[ "$("$cts" list --family peer | wc -l)" -eq "$("$cts" list --family peer --devices 2 | wc -l)" ] ||
    fail "a peer-family case is not one of two devices"
grep -qx 'set_device.other.op_implied.busy_same' "$tmp/two" || fail "cudaSetDevice to the other device is not of two"
grep -qx 'memcpy.ipc_read.d2h.pinned.4KiB.explicit.op_implied.busy_other_process_peer' "$tmp/two" ||
    fail "a case busy in another process on the peer is not of two devices"
grep -q 'peer' "$tmp/one" && fail "--devices 1 lists a case that names a peer: $(grep -m 1 peer "$tmp/one")"
# tests/gpu-take.sh: the GPUs of a CTest resource group become the test's CUDA_VISIBLE_DEVICES,
# indices taken within one already set; a GPU id that is not an index, or past those, exit 2.
take() { (export CTEST_RESOURCE_GROUP_COUNT=$1 CTEST_RESOURCE_GROUP_0_GPUS=$2 CTEST_RESOURCE_GROUP_1_GPUS=${3:-}
          . "$root/tests/gpu-take.sh" >/dev/null && echo "$CUDA_VISIBLE_DEVICES"); }
[ "$(CUDA_VISIBLE_DEVICES= take 2 id:1,slots:1 id:0,slots:1)" = "1,0" ] || fail "gpu-take.sh: two GPUs are not 1,0"
[ "$(CUDA_VISIBLE_DEVICES=4,6 take 1 id:1,slots:1)" = "6" ] || fail "gpu-take.sh: GPU 1 of 4,6 is not 6"
[ "$(env -u CTEST_RESOURCE_GROUP_COUNT CUDA_VISIBLE_DEVICES=3 bash -c ". '$root/tests/gpu-take.sh'; echo \$CUDA_VISIBLE_DEVICES")" = "3" ] ||
    fail "gpu-take.sh changed CUDA_VISIBLE_DEVICES without resource groups"
# With a resource spec CTest gives a test without groups a count of 0 (the unit tests on a GPU host).
[ "$(CUDA_VISIBLE_DEVICES=3 take 0 '')" = "3" ] || fail "gpu-take.sh changed CUDA_VISIBLE_DEVICES for a count of 0 groups"
CUDA_VISIBLE_DEVICES=4,6 take 1 id:2,slots:1 2>"$tmp/err" >/dev/null
[ $? = 2 ] && grep -q "GPU 2 of the resource spec is not in CUDA_VISIBLE_DEVICES=4,6" "$tmp/err" ||
    fail "gpu-take.sh: a GPU past CUDA_VISIBLE_DEVICES: $(cat "$tmp/err")"
take 1 gpu0 2>"$tmp/err" >/dev/null
[ $? = 2 ] && grep -q "resource group 0 has no GPU id ('gpu0')" "$tmp/err" ||
    fail "gpu-take.sh: an id that is not an index: $(cat "$tmp/err")"
grep -qx 'memcpy_async.h2h memcpy' "$tmp/groups" || fail "list --groups lacks 'memcpy_async.h2h memcpy'"
grep -qx 'cu_memset_d2d8_async memset' "$tmp/groups" || fail "list --groups lacks 'cu_memset_d2d8_async memset'"
"$cts" --help | grep -q '^usage: sync-cts list' || fail "--help prints no usage"
# Standard output that cannot be written is "cannot write" (exit 2, one line), as --out is
# (at 5b7a8bd `list > /dev/full` exited 0: issue 43, D6).
if [ -w /dev/full ]; then
    for args in "list" "list --groups" "--help" "list --family nope"; do
        # shellcheck disable=SC2086
        "$cts" $args >/dev/full 2>"$tmp/err"
        rc=$?
        [ "$args" = "list --family nope" ] && { [ $rc -eq 2 ] || fail "list --family nope >/dev/full exited $rc"; continue; }
        [ $rc -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q "cannot write standard output" "$tmp/err" ||
            fail "sync-cts $args >/dev/full exited $rc: $(cat "$tmp/err")"
    done
fi



# The log reader finds a crash.
printf '%s\n' '{"event":"begin","id":"a.b"}' '{"event":"result","id":"a.b","status":"PASS"}' \
    '{"event":"end","id":"a.b"}' '{"event":"begin","id":"c.d"}' >"$tmp/crash.log"
"$cts" log "$tmp/crash.log" >"$tmp/out" 2>&1
[ $? -eq 3 ] || fail "log of a crashed run did not exit 3"
grep -q '^CRASH c.d' "$tmp/out" || fail "log did not name the crashed case: $(cat "$tmp/out")"

# run: no output may be an input, and a matrix needs a file name.
cp "$root/reports/nvidia-h200/driver-580.159.04/cuda-13.0/launch-blocking/matrix.json.gz" "$tmp/base.json.gz"
error "--out '$tmp/base.json.gz' is the input matrix '$tmp/base.json.gz' (the same file)" \
    run 'memcpy.d2d.*' --baseline "$tmp/base.json.gz" --out "$tmp/base.json.gz"
cmp -s "$tmp/base.json.gz" "$root/reports/nvidia-h200/driver-580.159.04/cuda-13.0/launch-blocking/matrix.json.gz" ||
    fail "run --out naming its baseline changed the baseline"
error "--out - : run writes a matrix, its Markdown and a log beside it" run 'memcpy.d2d.*' --out -
error "--split-groups: '$tmp/nodir' is not a directory" run 'memcpy.d2d.*' --out "$tmp/m.json" --split-groups "$tmp/nodir"
rm -f "$tmp/base.json.gz"

# thresholds: its bad input, and its rows (--list runs nothing: no GPU needed).
M="$root/reports/nvidia-h100-80gb-hbm3/driver-580.159.04/cuda-13.0/default/matrix.json.gz"
error "thresholds wants --matrix FILE" thresholds --list
error "--out wants FILE.json or FILE.json.gz, not '$tmp/t.txt'" thresholds --matrix "$M" --out "$tmp/t.txt"
error "--max wants MiB from 1 to 4096, not '0'" thresholds --matrix "$M" --max 0 --list
error "--repeat wants 1 to 16, not 'x'" thresholds --matrix "$M" --repeat x --list
error "cannot read '$tmp/none.json'" thresholds --matrix "$tmp/none.json" --list
error "no row to search matches 'nothing.*'" thresholds --matrix "$M" 'nothing.*' --list
error "unexpected argument 'b'" thresholds --matrix "$M" a b --list
# A per-thread matrix is searched with the per-thread build, as it is judged (issue 43, D13); an
# unwritable --out is said before any search (D4: at 5b7a8bd, after it).
P="$root/reports/nvidia-h200/driver-580.159.04/cuda-13.0/per-thread-default-stream/matrix.json.gz"
error "'$P' was measured with the per-thread default stream: search it with sync-cts-ptds" thresholds --matrix "$P" --list
error "cannot write '/nonexistent/dir/t.json'" thresholds --matrix "$M" --out /nonexistent/dir/t.json
run 0 thresholds --matrix "$M" --list
# How many rows differ moves by one or two from run to run (the landing race of the synchronous
# pageable copies: 130 at e00522949547, 129 at 07e310e29f81); the rows named below do not.
rows=$(wc -l <"$tmp/out")
[ "$rows" -ge 125 ] && [ "$rows" -le 135 ] || fail "thresholds --list: $rows rows differ in the H100 matrix, expected 125 to 135"
grep -q '^memcpy_async.h2d.pageable.explicit.op_blocking.busy_same  \[differs in the matrix\]$' "$tmp/out" ||
    fail "thresholds --list lacks the pageable row"
grep -q '^memcpy_async.written.h2d.pageable.explicit.op_null.busy_same_hostfn  \[differs in the matrix\]$' "$tmp/out" ||
    fail "thresholds --list lacks the data-order row (stale to partial)"
run 0 thresholds --matrix "$M" --catalogue --list 'memset*'
[ "$(wc -l <"$tmp/out")" -eq 10 ] || fail "thresholds --catalogue --list 'memset*': $(wc -l <"$tmp/out") rows, expected 10"

# A matrix with a thresholds section: cite a row; a wrong section is refused on reading.
python3 - "$M" "$tmp" <<'PY' || fail "python3 could not write the thresholds matrices"
import copy, gzip, json, sys
m = json.load(gzip.open(sys.argv[1]))
def probe(n, outcome, us):
    return {"bytes": n, "status": outcome.split(":")[0], "outcome": outcome, "call_us": us, "asked": 1}
row = "memcpy_async.h2d.pageable.explicit.op_blocking.busy_same"
m["thresholds"] = {"run": {"max_bytes": 268435456, "repetitions": 2, "rows": 1, "probes": 85, "wall_s": 4.3,
                           "catalogue": True, "suite_revision": "abc", "date": "2026-11-24T08:43:00Z"},
                   "rows": {row: {"base_case": "memcpy_async.h2d.pageable.1B.explicit.op_blocking.busy_same",
                                  "family": "memcpy", "max_bytes": 268435456, "samples": {"1MiB": "PASS:Qc", "16MiB": "PASS:W"},
                                  "flips": [{"below": probe(2097152, "PASS:Qc", 173.1), "above": probe(2097153, "PASS:W", 1581.2),
                                             "exact": True, "steady": True}],
                                  "probes": 85, "undecided": 0, "truncated": False, "from_matrix": True, "wall_s": 4.3,
                                  "probed": [probe(2097152, "PASS:Qc", 173.1), probe(2097153, "PASS:W", 1581.2)]}}}
rows = m["thresholds"]["rows"]
r2 = copy.deepcopy(rows[row])
r2.update(base_case="memcpy2d_async.h2d.pageable.1MiB.explicit.op_blocking.busy_same", family="copy",
          max_bytes=262144, axis={"name": "rows", "fixed": 1024}, samples={"1MiB": "PASS:Qc"},
          flips=[{"below": probe(2048, "PASS:Qc", 150.0), "above": probe(2049, "PASS:W", 1500.0),
                  "exact": True, "steady": True}],
          probed=[probe(2048, "PASS:Qc", 150.0), probe(2049, "PASS:W", 1500.0)])
rows["memcpy2d_async.h2d.pageable.explicit.op_blocking.busy_same.by_rows"] = r2
# The rows' base cases alone: the rest of the matrix adds nothing but time to every read.
m["cases"] = {r["base_case"]: m["cases"][r["base_case"]] for r in rows.values()}
json.dump(m, open(sys.argv[2] + "/th.json", "w"))
bad = copy.deepcopy(m)
bad["thresholds"]["rows"]["memcpy2d_async.h2d.pageable.explicit.op_blocking.busy_same.by_rows"]["axis"]["name"] = "depth"
json.dump(bad, open(sys.argv[2] + "/th-axis.json", "w"))
bad = copy.deepcopy(m)
bad["thresholds"]["rows"][row]["flips"][0]["above"]["bytes"] = 2
json.dump(bad, open(sys.argv[2] + "/th-order.json", "w"))
bad = copy.deepcopy(m)
bad["thresholds"]["rows"][row]["probed"][1]["status"] = "GREAT"
json.dump(bad, open(sys.argv[2] + "/th-status.json", "w"))
PY
run 0 cite memcpy_async.h2d.pageable.explicit.op_blocking.busy_same "$tmp/th.json"
contains "$tmp/out" "searched from 1 to 268435456 bytes in 85 probes, each a full case run of 2 repetitions, it returns while the work is held"
contains "$tmp/out" "its source taken at the call (\`Qc\`) up to 2097152 bytes (173.1 us in the call), and waits for the held work (\`W\`) from 2097153 bytes (1581.2 us in the call) (exact; two sizes on each side agree)."
contains "$tmp/out" "At the matrix's sample sizes: 1MiB PASS:Qc, 16MiB PASS:W."
contains "$tmp/out" "Threshold search by cuda-sync-cts abc on 2026-11-24T08:43:00Z"
[ "$(wc -l <"$tmp/out")" -eq 1 ] || fail "cite of a threshold: not one line"
error "thresholds.rows.memcpy_async.h2d.pageable.explicit.op_blocking.busy_same.flips[0]: below is not a smaller size than above" \
    cite memcpy_async.h2d.pageable.explicit.op_blocking.busy_same "$tmp/th-order.json"
error "probed[1].status 'GREAT' is not a status" render "$tmp/th-status.json"
# A 2D copy searched by its rows: sizes in rows, in the citation and the Markdown.
run 0 cite memcpy2d_async.h2d.pageable.explicit.op_blocking.busy_same.by_rows "$tmp/th.json"
contains "$tmp/out" "searched from 1 to 262144 rows (of 1024 bytes) in 85 probes"
contains "$tmp/out" "up to 2048 rows (of 1024 bytes) (150.0 us in the call), and waits for the held work (\`W\`) from 2049 rows (of 1024 bytes)"
run 0 render "$tmp/th.json"
contains "$tmp/out" "| \`memcpy2d_async.h2d.pageable.explicit.op_blocking.busy_same.by_rows\` | \`Qc\` up to 2,048 rows → \`W\` from 2,049 rows | 85 |"
error "axis.name 'depth' is not width or rows" render "$tmp/th-axis.json"
rm -f "$tmp"/th*.json

finish "CLI checks"
