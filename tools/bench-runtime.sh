#!/usr/bin/env bash
# Benchmark (not a timed test) of measuring one more CUDA runtime (issue 12:
# fetch, build and run in at most 3 minutes on the H100):
#
#     tools/bench-runtime.sh VERSION OUT-DIR [--per-thread]
#
# 1. fetch: tools/fetch-runtime.sh VERSION into .runtimes/VERSION (a prefix
#    already there counts 0 s and says so: a GPU host without a network gets
#    it carried in);
# 2. build: configure and build build-rt-VERSION against it
#    (-DCTS_CUDA_RUNTIME), for the architectures of the GPUs present;
# 3. run: `sync-cts run --out OUT-DIR/matrix.json.gz` (and, with
#    --per-thread, `sync-cts-ptds run --out OUT-DIR/matrix-ptds.json.gz`).
# Prints each step's wall time and the total, and writes them to
# OUT-DIR/bench-runtime.txt.  Exit 0 when every step succeeded, else the
# failed step's status, after a line naming it.
set -u
cd "$(dirname "$0")/.." || exit 2
die() { echo "bench-runtime: $*" >&2; exit 2; }
[ $# -ge 2 ] && [ $# -le 3 ] || die "usage: $0 VERSION OUT-DIR [--per-thread]"
version=$1 out=$2 ptds=0
if [ $# -eq 3 ]; then
    [ "$3" = --per-thread ] || die "unknown option '$3' (only --per-thread)"
    ptds=1
fi
mkdir -p "$out" || die "cannot create $out"
prefix=.runtimes/$version build=build-rt-$version
report=$out/bench-runtime.txt
: >"$report" || die "cannot write $report"

now() { date +%s.%N; }
say() { echo "$*" | tee -a "$report"; }
t_all=$(now)
# step NAME COMMAND...: runs it, says its wall time; stops the benchmark on failure.
step() {
    local name=$1 t0 rc
    shift
    t0=$(now)
    "$@"
    rc=$?
    say "$(awk -v a="$t0" -v b="$(now)" -v n="$name" 'BEGIN { printf "%-6s %7.1f s", n, b - a }')"
    if [ $rc -ne 0 ]; then
        say "bench-runtime: the $name step failed (exit $rc)"
        exit $rc
    fi
}

if [ -e "$prefix/lib/libcudart.so" ]; then
    say "fetch  (already in $prefix: not timed)"
else
    step fetch tools/fetch-runtime.sh "$version" "$prefix"
fi
build_rt() {
    cmake -S . -B "$build" -DCTS_CUDA_RUNTIME="$PWD/$prefix" >"$out/configure.log" 2>&1 &&
        cmake --build "$build" -j"$(nproc)" >"$out/build.log" 2>&1
}
step build build_rt
step run "$build/sync-cts" run --out "$out/matrix.json.gz"
[ $ptds = 1 ] && step run-ptds "$build/sync-cts-ptds" run --out "$out/matrix-ptds.json.gz"
say "$(awk -v a="$t_all" -v b="$(now)" -v v="$version" 'BEGIN { printf "total  %7.1f s (CUDA runtime %s)", b - a, v }')"
