# Shared by the shell tests, sourced first thing: . "$(dirname "$0")/lib.sh" "$@"
# Gives $cts (the sync-cts under test, absolute), $root (the source tree), a
# $tmp removed on exit, and the checks below; `finish NAME` ends the script.
set -u
cts=${1:?usage: $(basename "$0") path/to/sync-cts}
cts="$(cd "$(dirname "$cts")" && pwd)/$(basename "$cts")"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0

fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }
# contains FILE TEXT: FILE has TEXT somewhere (a fixed string).
contains() { grep -qF -- "$2" "$1" || fail "$(basename "$1") lacks '$2'"; }
# has FILE LINE: FILE holds LINE whole (carriage returns aside).
has() { tr -d '\r' <"$1" | grep -qxF -- "$2" || fail "$(basename "$1") lacks the line '$2'"; }

# run CODE ARGS...: sync-cts ARGS exits CODE; stdout in $tmp/out, stderr in $tmp/err.
run() {
    local code=$1
    shift
    "$cts" "$@" >"$tmp/out" 2>"$tmp/err"
    local rc=$?
    [ "$rc" -eq "$code" ] || fail "sync-cts $*: exit $rc, expected $code ($(head -c 300 "$tmp/err"))"
}

# expect CODE MESSAGE ARGS...: exit CODE, one stderr line containing MESSAGE,
# nothing on stdout.
expect() {
    local code=$1 msg=$2
    shift 2
    run "$code" "$@"
    [ "$(wc -l <"$tmp/err")" -eq 1 ] || fail "sync-cts $*: stderr is not one line: $(cat "$tmp/err")"
    grep -qF -- "$msg" "$tmp/err" || fail "sync-cts $*: stderr '$(cat "$tmp/err")' lacks '$msg'"
    [ -s "$tmp/out" ] && fail "sync-cts $*: wrote to stdout on an error"
}

# error MESSAGE ARGS...: bad input: exit 2, as expect.
error() {
    local msg=$1
    shift
    expect 2 "$msg" "$@"
}

# need_python: python3 builds and alters this test's matrices; without it the
# test is skipped (exit 77, registered with SKIP_RETURN_CODE 77), saying why.
need_python() {
    command -v python3 >/dev/null 2>&1 && python3 -c 'import gzip, json' 2>/dev/null && return 0
    echo "skipped: this test needs python3 (with its json and gzip modules) to build its matrices, and there is none"
    exit 77
}

# The committed matrices the tests read (never write).
h200="$root/reports/nvidia-h200/driver-580.159.04/cuda-13.0/default/matrix.json.gz"

# small_matrix OUT [MATRIX [IDS [thresholds]]]: a valid matrix of a few hundred cases --
# every 60th case of MATRIX (default: the committed H200 one) by id, plus the
# cases the tests name and the cudaMemcpyBatchAsync deviations; or, given a
# file of IDS (one a line), exactly those -- with run.counts to match, written
# as plain JSON.  Its thresholds section is dropped, unless the fourth argument
# is `thresholds`: then kept, with the base case of each of its rows.  Most checks run on it; each test keeps one end-to-end check
# on a whole committed matrix where that is the point.
small_matrix() {
    python3 - "${2:-$h200}" "$1" "${3:-}" "${4:-}" <<'PY' || fail "python3 could not build a small matrix from ${2:-$h200}"
import gzip, json, sys
ids = set(open(sys.argv[3]).read().split()) if sys.argv[3] else None
named = {"memcpy.h2d.pageable.4KiB.explicit.op_implied.busy_same",
         "memcpy.h2d.pageable.1B.explicit.op_implied.busy_same",
         "memcpy_batch_async.during_call.h2d.pageable.1MiB.op_blocking.busy_same",
         "cu_module_get_function.op_implied.busy_nonblocking"}
# A matrix holds one case a line, sorted by id: only the lines kept are decoded.
head, keep, raw, inside, n = [], {}, {}, False, 0
for line in gzip.open(sys.argv[1], "rt"):
    if line.startswith('"cases": {'):
        inside = True
    elif inside and line.startswith("}"):
        inside = False
        head.append('"cases": {}' + line[1:])
    elif inside:
        cid = line[1:line.index('"', 1)]
        if sys.argv[4] == "thresholds":
            raw[cid] = line
        batch = cid.startswith("memcpy_batch_async.") and '"conformance":"DEVIATES"' in line
        # The sample leaves out the driver's crashes (check.sh tests their waiver on the whole matrix).
        crash = ids is None and '"status":"CRASH"' in line
        if (cid in ids) if ids is not None else ((n % 60 == 0 or cid in named or batch) and not crash):
            keep[cid] = json.loads(line[line.index(":") + 1:].rstrip().rstrip(","))
        n += 1
    else:
        head.append(line)
m = json.loads("".join(head))
if sys.argv[4] == "thresholds" and "thresholds" in m:  # each row's base case with it
    for cid in {r["base_case"] for r in m["thresholds"]["rows"].values()} - keep.keys():
        keep[cid] = json.loads(raw[cid][raw[cid].index(":") + 1:].rstrip().rstrip(","))
else:
    m.pop("thresholds", None)  # its rows name cases a small matrix may not keep
m["cases"] = keep
counts = {k: 0 for k in m["run"]["counts"]}
for c in keep.values():
    counts[c["status"]] = counts.get(c["status"], 0) + 1
m["run"]["counts"] = counts
m["run"]["cases"] = len(keep)
json.dump(m, open(sys.argv[2], "w"), sort_keys=True)
PY
}

# finish WHAT: the summary line, and the exit status.
finish() {
    if [ "$failures" -ne 0 ]; then
        echo "$failures $1 failed" >&2
        exit 1
    fi
    echo "$1 passed"
}
