#!/usr/bin/env bash
# The GPU tests' fixture: runs the whole suite once with the given build of
# sync-cts into DIR (suite.json.gz, its Markdown and log, and one matrix per
# CTest group under DIR/groups/).  It passes whenever the matrix was written,
# whatever the cases found: the group tests judge it and name what failed.
# Further arguments go to run (--devices 1 or 2, where the GPUs are shared
# out: tests/gpu-tests.cmake.in).
# No GPU: skipped (77) with the reason, and nothing is written.
set -u
exe=${1:?usage: gpu-suite.sh SYNC-CTS DIR [RUN-ARGS...]}
dir=${2:?usage: gpu-suite.sh SYNC-CTS DIR [RUN-ARGS...]}
shift 2
. "$(dirname "$0")/gpu-take.sh"
rm -rf "$dir"
mkdir -p "$dir/groups" || exit 2
"$exe" run --out "$dir/suite.json.gz" --split-groups "$dir/groups" "$@"
rc=$?
case $rc in
0 | 1 | 3) [ -s "$dir/suite.json.gz" ] && exit 0 ;;
77) rm -rf "$dir"; exit 77 ;;
esac
echo "gpu-suite.sh: sync-cts run exited $rc without writing the matrix" >&2
exit 1
