#!/usr/bin/env bash
# tools/readme.py: every figure the pages quote about the committed reports (and the findings
# block) is what it makes of them (--check); and a family of the committed default matrix that
# the pages give no figure (no row of method.md's family table) is named, exit 1.  The families
# are the matrix's, not a list kept in readme.py.  Skipped (77) without python3.
. "$(dirname "$0")/lib.sh" "$@"
need_python
cd "$root" || exit 2
python3 tools/readme.py --check >"$tmp/out" 2>&1 || fail "readme.py --check: $(cat "$tmp/out")"
# The pages again, method.md without the green family's row.
pages=(README.md docs/matrix.md docs/conformance.md docs/running.md docs/questions.md reports/FINDINGS.md)
grep -v '^| green |' docs/method.md >"$tmp/method.md"
[ "$(grep -c '^| green |' docs/method.md)" = 1 ] || fail "method.md's family table has no one row for green"
python3 tools/readme.py --check "${pages[@]}" "$tmp/method.md" >"$tmp/out" 2>&1
[ $? = 1 ] || fail "readme.py --check of pages lacking a family's figure did not exit 1"
grep -qF "the committed default matrix's family 'green' has no figure family_green in the pages" "$tmp/out" ||
    fail "readme.py did not name the family without a figure: $(tail -n 3 "$tmp/out")"
finish "readme checks"
