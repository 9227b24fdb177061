#!/usr/bin/env bash
# Benchmark (not a timed test) of the README's test command on a fresh clone:
# clones the current commit into a temporary directory, then times each step
# of `cmake --workflow --preset test` (configure, build, test) and the whole,
# and the slowest tests.  The clone holds only what is committed.
#
#     tools/bench-workflow.sh [OUT-DIR]     # OUT-DIR keeps ctest's output
set -u
cd "$(dirname "$0")/.."
out=${1:-$(mktemp -d)}
mkdir -p "$out" || exit 2
[ -z "$(git status --porcelain --untracked-files=no)" ] ||
    echo "bench-workflow.sh: the working tree has uncommitted changes; the clone has the last commit" >&2
src=$(mktemp -d)
trap 'rm -rf "$src"' EXIT
git clone --quiet . "$src/clone" || exit 2
cd "$src/clone"
now() { date +%s.%N; }
t0=$(now)
cmake --preset default >"$out/configure.txt" 2>&1 || { echo "configure failed: $out/configure.txt"; exit 1; }
t1=$(now)
cmake --build --preset default >"$out/build.txt" 2>&1 || { echo "build failed: $out/build.txt"; exit 1; }
t2=$(now)
ctest --preset test >"$out/ctest.txt" 2>&1
rc=$?
t3=$(now)
# The same three steps as `cmake --workflow --preset test`, timed one by one.
awk -v a="$t0" -v b="$t1" -v c="$t2" -v d="$t3" -v rc="$rc" 'BEGIN {
    printf "configure %.1f s, build %.1f s, test %.1f s: workflow %.1f s (ctest exit %d)\n",
           b - a, c - b, d - c, d - a, rc }'
grep -E "tests passed|tests failed" "$out/ctest.txt"
echo "slowest tests:"
grep -E "^ *[0-9]+/[0-9]+ Test +#" "$out/ctest.txt" | awk '{for (i = 1; i <= NF; i++) if ($i == "sec") print $(i-1), $4}' |
    sort -rn | head -5 | awk '{printf "  %6.1f s  %s\n", $1, $2}'
echo "ctest output: $out/ctest.txt"
