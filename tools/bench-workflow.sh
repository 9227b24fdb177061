#!/usr/bin/env bash
# Benchmark (not a timed test) of the README's test command,
# `cmake --workflow --preset test`, from nothing: on a fresh clone of the
# current commit (default), or with --tree in this working tree after removing
# its build/ (for a copied tree whose .git is not its own, as on a lent GPU
# machine).  Writes the command's whole output to OUT-DIR/ctest.txt with a
# last line "workflow wall S s" (the committed ctest.txt files are such logs;
# tools/readme.py reads them), and prints configure, build and test times and
# the slowest tests.
#
#     tools/bench-workflow.sh [--tree] [OUT-DIR]
set -u
cd "$(dirname "$0")/.." || exit 2
tree=0
if [ "${1-}" = --tree ]; then
    tree=1
    shift
fi
out=${1:-$(mktemp -d)}
mkdir -p "$out" || exit 2
out=$(cd "$out" && pwd)
if [ $tree = 1 ]; then
    rm -rf build
else
    [ -z "$(git status --porcelain --untracked-files=no)" ] ||
        echo "bench-workflow.sh: the working tree has uncommitted changes; the clone has the last commit" >&2
    src=$(mktemp -d)
    trap 'rm -rf "$src"' EXIT
    git clone --quiet . "$src/clone" || exit 2
    cd "$src/clone" || exit 2
fi
t0=$(date +%s.%N)
cmake --workflow --preset test >"$out/ctest.txt" 2>&1
rc=$?
t1=$(date +%s.%N)
awk -v a="$t0" -v b="$t1" 'BEGIN { printf "workflow wall %.2f s\n", b - a }' >>"$out/ctest.txt"
# The revision the run built, as `sync-cts --version` says it (readme.py reads it from here).
build/sync-cts --version 2>/dev/null | awk '{ print "suite revision " $2 }' >>"$out/ctest.txt"
configure=$(sed -n 's/^-- Configuring done (\([0-9.]*\)s)$/\1/p' "$out/ctest.txt")
tests=$(sed -n 's/^Total Test time (real) = *\([0-9.]*\) sec$/\1/p' "$out/ctest.txt")
awk -v a="$t0" -v b="$t1" -v c="$configure" -v t="${tests:-0}" -v rc="$rc" 'BEGIN {
    if (c == "") # CMake before 3.26 does not print its configure time
        printf "workflow %.1f s: configure and build %.1f s, tests %.1f s (exit %d)\n", b - a, b - a - t, t, rc
    else
        printf "workflow %.1f s: configure %.1f s, build %.1f s, tests %.1f s (exit %d)\n",
               b - a, c, b - a - c - t, t, rc }'
grep -E "tests passed|tests failed" "$out/ctest.txt"
echo "slowest tests:"
grep -E "^ *[0-9]+/[0-9]+ Test +#" "$out/ctest.txt" | awk '{for (i = 1; i <= NF; i++) if ($i == "sec") print $(i-1), $4}' |
    sort -rn | head -5 | awk '{printf "  %6.1f s  %s\n", $1, $2}'
echo "ctest output: $out/ctest.txt"
exit $rc
