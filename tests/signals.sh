#!/usr/bin/env bash
# A write interrupted by SIGTERM, SIGHUP, SIGINT, SIGQUIT, SIGUSR1 or SIGPIPE leaves no temporary file
# and no output, and the process dies of the signal; an input rewritten in
# place (judge) is untouched.  A signal ignored when sync-cts starts (nohup)
# stays ignored.  SYNC_CTS_TEST_PAUSE_AFTER_OPEN=SECONDS makes a command stop
# once its temporary file exists, so that the signal always comes mid-write.
. "$(dirname "$0")/lib.sh" "$@"
set -m # background jobs get their own process group, with SIGINT not ignored

need_python
small_matrix "$tmp/m.json"
cp "$tmp/m.json" "$tmp/copy.json"

# interrupted SIGNAL OUTPUT ARGS...: sync-cts ARGS, paused after opening
# OUTPUT's temporary file, is sent SIGNAL there.
interrupted() {
    local sig=$1 output=$2
    shift 2
    rm -f "$tmp"/*.tmp.*
    SYNC_CTS_TEST_PAUSE_AFTER_OPEN=10 "$cts" "$@" >"$tmp/out" 2>"$tmp/err" &
    local pid=$! i
    for ((i = 0; i < 200; i++)); do # up to 10 s for the temporary file to appear
        compgen -G "$output.tmp.*" >/dev/null && break
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.05
    done
    if ! compgen -G "$output.tmp.*" >/dev/null; then
        fail "sync-cts $*: no temporary file for $output appeared (not paused?)"
        kill -KILL "$pid" 2>/dev/null
        wait "$pid" 2>/dev/null
        return
    fi
    kill -"$sig" "$pid"
    wait "$pid" 2>/dev/null # (job control's "Terminated" notice)
    local rc=$? want=$((128 + $(kill -l "$sig")))
    [ "$rc" -eq "$want" ] || fail "sync-cts $* sent SIG$sig: exit $rc, expected $want (died of the signal)"
    local left
    left=$(compgen -G "$tmp/*.tmp.*")
    [ -z "$left" ] || fail "sync-cts $* sent SIG$sig left a temporary file: $left"
}

interrupted TERM "$tmp/r.md" render "$tmp/m.json" --out "$tmp/r.md"
[ -e "$tmp/r.md" ] && fail "an interrupted render left its output"
interrupted HUP "$tmp/r.html" render "$tmp/m.json" --format html --out "$tmp/r.html"
[ -e "$tmp/r.html" ] && fail "an interrupted render left its output"
interrupted INT "$tmp/d.txt" diff "$tmp/m.json" "$tmp/copy.json" --out "$tmp/d.txt"
[ -e "$tmp/d.txt" ] && fail "an interrupted diff left its output"
# Every signal that ends the process, not only those three (at 5b7a8bd SIGQUIT
# left OUT.tmp.XXXXXX behind: issue 43, D10); no core file for SIGQUIT.
ulimit -c 0
interrupted QUIT "$tmp/q.md" render "$tmp/m.json" --out "$tmp/q.md"
[ -e "$tmp/q.md" ] && fail "a render ended by SIGQUIT left its output"
interrupted USR1 "$tmp/u.txt" diff "$tmp/m.json" "$tmp/copy.json" --out "$tmp/u.txt"
[ -e "$tmp/u.txt" ] && fail "a diff ended by SIGUSR1 left its output"
interrupted PIPE "$tmp/p.json" judge "$tmp/m.json" --out "$tmp/p.json"
[ -e "$tmp/p.json" ] && fail "a judge ended by SIGPIPE left its output"
# judge in place: the input is byte-identical afterwards.
interrupted TERM "$tmp/m.json" judge "$tmp/m.json"
cmp -s "$tmp/m.json" "$tmp/copy.json" || fail "an interrupted judge changed its input"

# Ignored at the start, SIGHUP stays ignored: the render completes.
rm -f "$tmp/r.md"
(trap '' HUP; SYNC_CTS_TEST_PAUSE_AFTER_OPEN=1 exec "$cts" render "$tmp/m.json" --out "$tmp/r.md") &
pid=$!
for ((i = 0; i < 200; i++)); do
    compgen -G "$tmp/r.md.tmp.*" >/dev/null && break
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.05
done
kill -HUP "$pid" 2>/dev/null
wait "$pid" 2>/dev/null
rc=$?
[ "$rc" -eq 0 ] || fail "a render with SIGHUP ignored exited $rc when sent SIGHUP"
[ -s "$tmp/r.md" ] || fail "a render with SIGHUP ignored wrote nothing"
[ -z "$(compgen -G "$tmp/*.tmp.*")" ] || fail "a render with SIGHUP ignored left a temporary file"

finish "signal checks"
