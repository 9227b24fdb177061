#!/usr/bin/env bash
# The thresholds group (ctest --preset thresholds, or -L thresholds): the
# rows of the suite's matrix whose outcome differs between sample sizes, and
# the catalogue's, each searched to the byte (sync-cts thresholds) into
# DIR/thresholds.json.gz.  It passes when every row's search finished with
# every flip exact (both sides decided, one byte apart); it fails naming each
# row left with an undecided size.  No GPU (the fixture skipped, no matrix):
# skipped (77) with the reason.
set -u
. "$(dirname "$0")/gpu-take.sh"
exe=${1:?usage: gpu-thresholds.sh SYNC-CTS DIR}
dir=${2:?usage: gpu-thresholds.sh SYNC-CTS DIR}
# No matrix: the gpu.suite fixture was skipped (no GPU here), as gpu-group.sh takes it.
if [ ! -e "$dir/suite.json.gz" ]; then
    echo "skipped: the suite did not run here (its fixture was skipped: no CUDA device or driver)"
    exit 77
fi
"$exe" thresholds --matrix "$dir/suite.json.gz" --catalogue --out "$dir/thresholds.json.gz"
rc=$?
[ $rc = 0 ] || exit $rc
python3 - "$dir/thresholds.json.gz" <<'PY'
import gzip, json, sys
rows = json.load(gzip.open(sys.argv[1]))["thresholds"]["rows"]
bad = [k for k, r in sorted(rows.items()) if r["undecided"] or any(not f["exact"] for f in r["flips"])]
for k in bad:
    print(f"gpu-thresholds.sh: {k}: a flip not found to the byte ({rows[k]['undecided']} undecided probes)")
print(f"{len(rows)} rows searched, {len(bad)} left inexact")
sys.exit(1 if bad else 0)
PY
