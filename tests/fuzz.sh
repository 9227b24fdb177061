#!/usr/bin/env bash
# Runs each fuzz target (tests/fuzz) for a bounded time, under AddressSanitizer (leaks found
# too) and UndefinedBehaviorSanitizer:
#
#     tests/fuzz.sh BUILD [SECONDS]
#
# BUILD is a build with -DCTS_FUZZ=ON (cmake --preset sanitize: build-sanitize); SECONDS each
# target's time, default 30 (or CTS_FUZZ_SECONDS).  The corpora are seeded from committed
# files (tests/fuzz/seeds.py; without python3 the targets start from nothing, saying so) and
# grow in BUILD/fuzz/corpus/TARGET.  A finding -- a crash, a sanitizer's report, a leak, a
# broken invariant, an input slower than 10 s or one that needs more than 2 GiB -- has its
# input saved under the findings directory (BUILD/fuzz/findings/TARGET/, or
# $CTS_FUZZ_FINDINGS/TARGET/), its report printed with the input's path, and makes the exit
# status 1.  Exit 2: bad usage, or a target not built.
#
# The targets run side by side, one a processor (CTS_FUZZ_JOBS=N: N at once).
#
# To run one input again: BUILD/tests/fuzz/fuzz_TARGET FILE (the same environment as below).
set -u
root="$(cd "$(dirname "$0")/.." && pwd)"
usage() { echo "usage: tests/fuzz.sh BUILD [SECONDS] (BUILD configured with -DCTS_FUZZ=ON)" >&2; exit 2; }
if [ $# -lt 1 ] || [ $# -gt 2 ]; then usage; fi
build="$(cd "$1" 2>/dev/null && pwd)" || { echo "fuzz: no build directory '$1'" >&2; exit 2; }
secs=${2:-${CTS_FUZZ_SECONDS:-30}}
[[ "$secs" =~ ^[1-9][0-9]*$ ]] || { echo "fuzz: SECONDS must be a whole number of seconds, not '$secs'" >&2; exit 2; }
targets=(matrix log waivers known model options)
for t in "${targets[@]}"; do
    [ -x "$build/tests/fuzz/fuzz_$t" ] ||
        { echo "fuzz: $build/tests/fuzz/fuzz_$t is not built (configure with -DCTS_FUZZ=ON)" >&2; exit 2; }
done
work="$build/fuzz"
findings="${CTS_FUZZ_FINDINGS:-$work/findings}"
mkdir -p "$work/logs" "$findings" || { echo "fuzz: cannot create '$work' and '$findings'" >&2; exit 2; }
findings="$(cd "$findings" && pwd)"

# The seeds, cut from the committed H200 matrix and waivers.json (not committed themselves).
rm -rf "$work/seeds"
mkdir -p "${targets[@]/#/$work/seeds/}" || exit 2
if command -v python3 >/dev/null 2>&1; then
    python3 "$root/tests/fuzz/seeds.py" \
        "$root/reports/nvidia-h200/driver-580.159.04/cuda-13.0/default/matrix.json.gz" \
        "$root/waivers.json" "$work/seeds" || { echo "fuzz: tests/fuzz/seeds.py failed" >&2; exit 2; }
    export CTS_FUZZ_MATRIX="$work/seeds/check-matrix.json"
else
    echo "fuzz: no python3 to cut the seeds from committed files: the targets start from nothing"
fi

# Sanitizers: any report ends the target (a finding); the CUDA runtime, linked and never called
# here, may map the shadow gap on a GPU machine.  Leaks are findings, but fuzz_matrix's: it runs
# jansson on malloc rather than on the loader's arena (fuzz_matrix.c says why), so what the
# arena keeps by design would be leaks, and the matrix reader's leaks are the sanitizer unit
# tests' to find (docs/running.md).
export ASAN_OPTIONS="protect_shadow_gap=0:${ASAN_OPTIONS:-}"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:${UBSAN_OPTIONS:-}"

# fuzz TARGET: runs it for $secs; 0, or 1 with its report and inputs printed.
fuzz() {
    local t=$1 log="$work/logs/$1.log" out="$findings/$1"
    local args=(-max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -close_fd_mask=3
                -print_final_stats=1 -artifact_prefix="$out/")
    [ -f "$work/seeds/$t.dict" ] && args+=(-dict="$work/seeds/$t.dict")
    local leaks=1
    [ "$t" = matrix ] && leaks=0
    mkdir -p "$work/corpus/$t" "$out" || return 1
    touch "$work/logs/$t.start" || return 1 # what the findings directory gains after it is this run's
    ASAN_OPTIONS="detect_leaks=$leaks:$ASAN_OPTIONS" "$build/tests/fuzz/fuzz_$t" "${args[@]}" \
        "$work/corpus/$t" "$work/seeds/$t" >"$log" 2>&1
    local rc=$?
    local runs cov
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
    cov=$(grep -o 'cov: [0-9]* ft: [0-9]*' "$log" | tail -n 1)
    if [ "$rc" -eq 0 ]; then
        local corpus
        corpus=$(find "$work/corpus/$t" -type f | wc -l)
        echo "fuzz_$t: ${runs:-?} inputs in $secs s, ${cov:-no coverage reported}, corpus $corpus: no finding"
        return 0
    fi
    echo "fuzz_$t: FINDING (exit $rc) after ${runs:-?} inputs; its report (all of it: $log):" >&2
    grep -v '^#[0-9]\|^INFO:\|^MERGE\|^stat::' "$log" | tail -n 80 >&2
    echo "fuzz_$t: the input that found it:" >&2
    local saved
    saved=$(find "$out" -type f -newer "$work/logs/$t.start")
    echo "${saved:-  (none saved: see $log)}" >&2
    return 1
}

# The targets side by side, as many at once as there are processors (CTS_FUZZ_JOBS): each its
# own process, log, corpus and findings; a target's status is read from its own file.
jobs=${CTS_FUZZ_JOBS:-$(nproc 2>/dev/null || echo 1)}
[[ "$jobs" =~ ^[1-9][0-9]*$ ]] || { echo "fuzz: CTS_FUZZ_JOBS must be a whole number, not '$jobs'" >&2; exit 2; }
for t in "${targets[@]}"; do
    rm -f "$work/logs/$t.rc" "$work/logs/$t.said"
    while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n; done
    (fuzz "$t" >"$work/logs/$t.said" 2>&1; echo $? >"$work/logs/$t.rc") &
done
wait
failed=() # what each said, in the targets' order: a finding's report whole, on standard error
for t in "${targets[@]}"; do
    if [ "$(cat "$work/logs/$t.rc" 2>/dev/null)" = 0 ]; then
        cat "$work/logs/$t.said"
    else
        cat "$work/logs/$t.said" >&2
        failed+=("fuzz_$t")
    fi
done
if [ ${#failed[@]} -gt 0 ]; then
    echo "fuzz: FAILED: ${failed[*]}; inputs saved under $findings" >&2
    exit 1
fi
echo "fuzz: no finding in ${#targets[@]} targets, $secs s each"
