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

# finish WHAT: the summary line, and the exit status.
finish() {
    if [ "$failures" -ne 0 ]; then
        echo "$failures $1 failed" >&2
        exit 1
    fi
    echo "$1 passed"
}
