#!/usr/bin/env bash
# tools/bench.py --profile, without a GPU: a hand-written trace of five cases
# (CTS_TRACE=1's lines as harness/engine/trace.c, idle.c, case.c and
# harness/cli/worker.c and supervisor.c print them) with every phase -- idle, control, a
# repetition's first attempt and its retry, a recheck, the managed confirming
# repetition -- two self-measured cases, a case a worker died in, two workers' starts
# and ends, a torn line and lines that are not a run's; the figures it prints, exactly, with and
# without the matrix, from one trace or the same split in two; and bad input
# (exit 2, one line on stderr, nothing on stdout).  Skipped (77) without python3.
. "$(dirname "$0")/lib.sh" "$@"
command -v python3 >/dev/null 2>&1 || {
    echo "skipped: this test needs python3 to run tools/bench.py, and there is none"
    exit 77
}
bench="$root/tools/bench.py"

# The lines fed here are the formats the harness prints: a change there must come here.
for f in 'wall %.0f phase %s attempt %d%s%s\n' 'trace %s case: %s wall %.0f measure %s\n' \
         '"trace %s rep %d %s: %s timeout %.0f window %.0f call %.1f host %s tail %.1f "' \
         ' parts %.0f/%.0f/%.0f/%.0f/%.0f/%.0f data %.0f/%.0f "' '"wall %.0f phase %s'; do
    grep -qF -- "$f" "$root/harness/engine/trace.c" || fail "trace.c no longer prints '$f'"
done
grep -qF '"trace %s idle: %s call %.1f max %.1f complete %.1f max %.1f wall %.0f\n"' \
    "$root/harness/engine/idle.c" || fail "idle.c no longer prints its trace line as this test writes it"
grep -qF '"trace %s control: wall %.0f\n"' "$root/harness/engine/case.c" ||
    fail "case.c no longer prints its control's trace line as this test writes it"
for f in '"trace worker start at case %zu: find %.0f env %.0f context %.0f memory %.0f warm %.0f probe %.0f "' \
         '"selfcheck %.0f wake %.0f wall %.0f\n"'; do
    grep -qF -- "$f" "$root/harness/engine/trace.c" || fail "trace.c no longer prints a worker's start as '$f'"
done
for f in '"trace worker ended at case %zu: first line %.0f last line to end %.0f end to exit %.0f "' \
         '"wall %.0f cases %zu %s\n"'; do
    grep -qF -- "$f" "$root/harness/cli/supervisor.c" || fail "supervisor.c no longer prints a worker's end as '$f'"
done

# Walls in us, 100 ms in all.  A: idle 10, control 4, rep 1 6 then its retry
# 7, rep 2 5, rep 2's recheck 8 (its reason names a wall and phase of its own),
# case 42: other 2.  B (A's idle): control 2, reps 3 and 3, case 10: other 2.
# C (managed): idle 5, control 1, reps 2 and 2, the confirming rep 3 and its
# retry 3 and 4, case 19: other 2.  D and E self-measured: 20 and 9.  F: a
# worker died in it (no case line).
a=memcpy.h2d.pageable.4KiB.explicit.op_implied.busy_same
b=memcpy.h2d.pageable.4KiB.explicit.op_implied.busy_nonblocking
c=memcpy_async.h2d.managed.1MiB.op_blocking.busy_same
d=cu_stream_begin_capture.first.capture_global.op_blocking.busy_same
e=stream_query.capture_global.op_blocking.busy_same
f=memset.device.1MiB.op_implied.busy_same
at='host returns tail 0.0 run_delay 0.0 markers runs/runs/runs at 1.0/1.1/1.2'
cat >"$tmp/part1.log" <<EOF
sync-cts: a line of the run's own, not a trace
trace worker start at case 0: find 100000 env 150000 context 8000 memory 2000 warm 1000 probe 20 selfcheck 300 wake 1500 wall 300000
trace $a idle: PASS call 3.1 max 4.0 complete 5.2 max 6.3 wall 10000
trace $a latency: 1 thread 3.00/4.00, 4 3.10/4.10, 16 3.20/4.20 us (median/p99)
trace $a control: wall 4000
trace $a rep 1 window_short: PASS timeout 200 window 50 call 3.2 $at wall 6000 phase rep attempt 1
trace $a rep 1 done: PASS timeout 200 window 100 call 3.3 host returns tail 0.0 run_delay 0.0 others 12.0 (most: cuda-EvtHandlr) markers runs/runs/runs at 1.0/1.1/1.2 wall 7000 phase retry attempt 2
trace $a rep 2 done: PASS timeout 200 window 50 call 3.1 $at wall 5000 phase rep attempt 1
trace $a rep 2 done: PASS timeout 200 window 5000 call 3.0 $at wall 8000 phase recheck attempt 1: held past the window (wall 9 phase rep attempt 1)
trace $a case: PASS wall 42000 measure engine
trace $b control: wall 2000
trace $b rep 1 done: PASS timeout 200 window 50 call 3.1 $at wall 3000 phase rep attempt 1
trace $b rep 2 done: PASS timeout 200 window 50 call 3.1 $at wall 3000 phase rep attempt 1
trace $b case: PASS wall 10000 measure engine
trace probe memcpy_async.op_blocking.busy_same 1048576: PASS W idle 10 case 2000 us
trace $f idle: PASS call 3.1 max 4.0 complete 5.2 max 6.3 wall 1000
trace $f control: wall 1000
trace worker ended at case 0: first line 250000 last line to end 30000 end to exit 100000 wall 500000 cases 2 signal
EOF
cat >"$tmp/part2.log" <<EOF
trace worker start at case 3: find 140000 env 0 context 110000 memory 1000 warm 800 probe 20 selfcheck 300 wake 1400 wall 260000
trace $c idle: PASS call 20.0 max 30.0 complete 40.0 max 50.0 wall 5000
trace $c control: wall 1000
trace $c rep 1 done: PASS timeout 1000 window 500 call 900.0 host waits tail 2.0 run_delay 0.0 markers held/runs/runs at 0.0/1.0/1.0 wall 2000 phase rep attempt 1
trace $c rep 2 done: PASS timeout 1000 window 500 call 900.0 host waits tail 2.0 run_delay 0.0 markers held/runs/runs at 0.0/1.0/1.0 wall 2000 phase rep attempt 1
trace $c rep 3 timeout_short: PASS timeout 1000 window 500 call 1000.0 host waits tail 0.0 run_delay 0.0 markers held/runs/runs at 0.0/1.0/1.0 wall 3000 phase confirm attempt 1
trace $c rep 3 done: PASS timeout 1500 window 500 call 1400.0 host waits tail 2.0 run_delay 0.0 markers held/runs/runs at 0.0/1.0/1.0 wall 4000 phase confirm attempt 2
trace $c case: PASS wall 19000 measure engine
trace $d case: PASS wall 20000 measure own
trace memcpy.h2d.pagea
trace $e case: NOTSUPP wall 9000 measure own
trace worker ended at case 3: first line 240000 last line to end 0 end to exit 50000 wall 400000 cases 5 exit
EOF
cat "$tmp/part1.log" "$tmp/part2.log" >"$tmp/trace.log"
cat >"$tmp/m.json" <<EOF
{"cases": {"$a": {"family": "memcpy", "group": "memcpy.h2d"},
           "$b": {"family": "memcpy", "group": "memcpy.h2d"},
           "$c": {"family": "memcpy", "group": "memcpy_async.h2d"},
           "$d": {"family": "capture", "group": "capture_global"},
           "$e": {"family": "capture", "group": "capture_global"}}}
EOF

# ---- the figures, with the matrix's families and groups ----------------------------------
python3 "$bench" --profile "$tmp/trace.log" --matrix "$tmp/m.json" --slowest 2 >"$tmp/out" 2>"$tmp/err" ||
    fail "bench.py --profile --matrix failed: $(cat "$tmp/err")"
[ -s "$tmp/err" ] && fail "bench.py --profile wrote on stderr: $(cat "$tmp/err")"
cat >"$tmp/expected" <<'EOF'
profile of 5 cases (1 trace, 27 lines): 0.100 s in their case lines
  1 cases with no case line (a worker died in them?): their 0.002 s are not counted
  1 trace lines not read (torn, or of an unknown kind)
  2 workers started: 0.560 s from their first instruction to their first case (280 ms each): find 0.240, env 0.150, context 0.118, memory 0.003, warm 0.002, probe 0.000, selfcheck 0.001, wake 0.003
  2 workers ended: 0.900 s from their start to their exit, seen by the supervisor: first line 0.490, last line to end 0.030, end to exit 0.150

per family (seconds):
  family                    cases      wall  ms/case     idle  control      rep    retry  recheck  confirm    other      own
  memcpy                        3     0.071   23.667    0.015    0.007    0.021    0.007    0.008    0.007    0.006    0.000
  capture                       2     0.029   14.500    0.000    0.000    0.000    0.000    0.000    0.000    0.000    0.029

per phase:
  idle          0.015 s  15.0%        2 measurements
  control       0.007 s   7.0%        3 controls
  rep           0.021 s  21.0%        6 attempts
  retry         0.007 s   7.0%        1 attempts
  recheck       0.008 s   8.0%        1 attempts
  confirm       0.007 s   7.0%        2 attempts
  other         0.006 s   6.0%        3 cases
  own           0.029 s  29.0%        2 cases
  total         0.100 s 100.0%        5 cases

slowest groups, top 2 (seconds):
  group                     cases      wall  ms/case     idle  control      rep    retry  recheck  confirm    other      own
  memcpy.h2d                    2     0.052   26.000    0.010    0.006    0.017    0.007    0.008    0.000    0.004    0.000
  capture_global                2     0.029   14.500    0.000    0.000    0.000    0.000    0.000    0.000    0.000    0.029
EOF
diff -u "$tmp/expected" "$tmp/out" >"$tmp/diff" || fail "bench.py --profile --matrix printed otherwise: $(cat "$tmp/diff")"

# A matrix that says its run's wall: what the case lines leave of it, a worker's share.
sed 's/^{"cases": {/{"run": {"wall_s": 1.5}, "cases": {/' "$tmp/m.json" >"$tmp/m-run.json"
python3 "$bench" --profile "$tmp/trace.log" --matrix "$tmp/m-run.json" >"$tmp/out" 2>&1 ||
    fail "bench.py --profile with a run's wall failed: $(cat "$tmp/out")"
has "$tmp/out" "  the run took 1.500 s (the matrix's run.wall_s): 1.400 s outside the case lines, 0.700 s a worker (2)"

# The same trace in two files: the same figures (a case F began in the first and never ended).
python3 "$bench" --profile "$tmp/part1.log" "$tmp/part2.log" --matrix "$tmp/m.json" --slowest 2 \
    >"$tmp/out2" 2>&1 || fail "bench.py --profile of two traces failed: $(cat "$tmp/out2")"
sed 1d "$tmp/expected" >"$tmp/expected2"
head -n 1 "$tmp/out2" | grep -qxF "profile of 5 cases (2 traces, 27 lines): 0.100 s in their case lines" ||
    fail "two traces: $(head -n 1 "$tmp/out2")"
sed 1d "$tmp/out2" | diff -u "$tmp/expected2" - >"$tmp/diff" || fail "two traces printed otherwise: $(cat "$tmp/diff")"

# ---- without the matrix: the id's first segment and first two --------------------------
python3 "$bench" --profile "$tmp/trace.log" >"$tmp/out" 2>&1 || fail "bench.py --profile failed: $(cat "$tmp/out")"
has "$tmp/out" "  memcpy                        2     0.052   26.000    0.010    0.006    0.017    0.007    0.008    0.000    0.004    0.000"
has "$tmp/out" "  cu_stream_begin_capture       1     0.020   20.000    0.000    0.000    0.000    0.000    0.000    0.000    0.000    0.020"
has "$tmp/out" "  memcpy_async                  1     0.019   19.000    0.005    0.001    0.004    0.000    0.000    0.007    0.002    0.000"
has "$tmp/out" "  stream_query                  1     0.009    9.000    0.000    0.000    0.000    0.000    0.000    0.000    0.000    0.009"
has "$tmp/out" "slowest id prefixes (the first two segments; --matrix gives groups), top 8 (seconds):"
has "$tmp/out" "  cu_stream_begin_capture.first      1     0.020   20.000    0.000    0.000    0.000    0.000    0.000    0.000    0.000    0.020"
has "$tmp/out" "  total         0.100 s 100.0%        5 cases"
# A matrix that lacks a traced case: counted apart, said so.
grep -vF "\"$e\"" "$tmp/m.json" | sed "/\"$d\"/s/},\$/}}}/" >"$tmp/m4.json"
python3 "$bench" --profile "$tmp/trace.log" --matrix "$tmp/m4.json" >"$tmp/out" 2>&1 ||
    fail "bench.py --profile with a matrix lacking a case failed: $(cat "$tmp/out")"
has "$tmp/out" "  1 cases not in $tmp/m4.json: counted as (not in the matrix)"
has "$tmp/out" "  (not in the matrix)           1     0.009    9.000    0.000    0.000    0.000    0.000    0.000    0.000    0.000    0.009"

# ---- inside the attempts: the parts of each attempt's wall ---------------------------------
# A: two attempts (set-up 1, start 2 of which data 1, call 3, after 1, finish 2 of which data 1,
# clean-up 0; walls 10 and 12 ms: rest 1 and 3); B: one (call 5, wall 6: rest 1); B's idle has none.
p='markers runs/runs/runs at 1.0/1.1/1.2'
cat >"$tmp/parts.log" <<EOF
trace $a rep 1 done: PASS timeout 200 window 50 call 3.2 host returns tail 0.0 run_delay 0.0 $p parts 1000/2000/3000/1000/2000/0 data 1000/1000 wall 10000 phase rep attempt 1
trace $a rep 2 done: PASS timeout 200 window 50 call 3.2 host returns tail 0.0 run_delay 0.0 $p parts 1000/2000/3000/1000/2000/0 data 1000/1000 wall 12000 phase rep attempt 1
trace $a case: PASS wall 23000 measure engine
trace $b idle: PASS call 3.1 max 4.0 complete 5.2 max 6.3 wall 1000
trace $b rep 1 done: PASS timeout 200 window 50 call 3.2 host returns tail 0.0 run_delay 0.0 $p parts 0/0/5000/0/0/0 data 0/0 wall 6000 phase retry attempt 2
trace $b case: PASS wall 8000 measure engine
EOF
python3 "$bench" --profile "$tmp/parts.log" --matrix "$tmp/m.json" >"$tmp/out" 2>&1 ||
    fail "bench.py --profile of attempts with parts failed: $(cat "$tmp/out")"
sed -n '/^inside the attempts/,$p' "$tmp/out" >"$tmp/got"
cat >"$tmp/expected" <<'EOF'
inside the attempts, top 8 families (seconds; data_setup is within start, data_judge within finish):
  family                   attempts      wall     set_up      start       call      after     finish   clean_up data_setup data_judge      rest
  memcpy                          3     0.028      0.002      0.004      0.011      0.002      0.004      0.000      0.002      0.002     0.005
  all                             3     0.028      0.002      0.004      0.011      0.002      0.004      0.000      0.002      0.002     0.005
EOF
diff -u "$tmp/expected" "$tmp/got" >"$tmp/diff" || fail "the parts table printed otherwise: $(cat "$tmp/diff")"
# A trace of a revision before the parts: no such table (the first trace above).
python3 "$bench" --profile "$tmp/trace.log" >"$tmp/out" 2>&1
grep -q '^inside the attempts' "$tmp/out" && fail "a trace without parts printed a parts table"

# ---- bad input: exit 2, one line, nothing on stdout -------------------------------------
# bad MESSAGE ARGS...: bench.py ARGS is bad input saying MESSAGE.
bad() {
    local msg=$1
    shift
    python3 "$bench" "$@" >"$tmp/out" 2>"$tmp/err"
    local rc=$?
    [ "$rc" -eq 2 ] || fail "bench.py $*: exit $rc, expected 2"
    [ "$(wc -l <"$tmp/err")" -eq 1 ] || fail "bench.py $*: stderr is not one line: $(cat "$tmp/err")"
    grep -qF -- "$msg" "$tmp/err" || fail "bench.py $*: stderr '$(cat "$tmp/err")' lacks '$msg'"
    [ -s "$tmp/out" ] && fail "bench.py $*: wrote to stdout on an error"
}
bad "$tmp/none.log: not a readable trace" --profile "$tmp/none.log"
printf 'sync-cts: no trace here\n' >"$tmp/plain.log"
bad "$tmp/plain.log: no trace lines" --profile "$tmp/trace.log" "$tmp/plain.log"
grep -v ' case: ' "$tmp/trace.log" >"$tmp/nocase.log"
bad "no case lines" --profile "$tmp/nocase.log"
bad "$tmp/none.json: not a readable matrix" --profile "$tmp/trace.log" --matrix "$tmp/none.json"
echo '[]' >"$tmp/list.json"
bad "$tmp/list.json: not a matrix" --profile "$tmp/trace.log" --matrix "$tmp/list.json"
bad "--matrix applies to a profile" --matrix "$tmp/m.json"
bad "--profile reads traces only" --profile "$tmp/trace.log" --report "$tmp/m.json"
bad "--slowest wants a positive number" --profile "$tmp/trace.log" --slowest 0

finish "profile checks"
