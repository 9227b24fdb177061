#!/usr/bin/env bash
# Opens a rendered matrix page (sync-cts's HTML rendering) in headless
# Chromium: a screenshot, the DOM as loaded (the first group's heading and
# the filter box must be in it), and the DOM opened with ?q=<a case id> (the
# inline filter script must hide the other groups and mark that cell).
# usage: html-chromium.sh PAGE.html OUT.png
# Exit 0 pass, 1 fail, 77 skipped (no Chromium here).
set -u

if [ $# -ne 2 ]; then
    echo "usage: $0 PAGE.html OUT.png" >&2
    exit 2
fi
page=$1
png=$2

browser=
for b in chromium chromium-browser google-chrome google-chrome-stable; do
    if command -v "$b" >/dev/null 2>&1; then
        browser=$(command -v "$b")
        break
    fi
done
if [ -z "$browser" ]; then
    echo "skipped: no headless Chromium here"
    exit 77
fi

fail() {
    echo "FAIL: $*" >&2
    exit 1
}

[ -s "$page" ] || fail "no page at $page"
url="file://$(realpath "$page")"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
flags=(--headless --disable-gpu --no-sandbox --no-first-run --disable-extensions
       --user-data-dir="$tmp/profile" --window-size=1400,1000)

# What the page must show, read from the page itself.
heading=$(grep -o -m1 '<h2>[^<]*</h2>' "$page" | sed "s/&quot;/\"/g; s/&#39;/'/g")
[ -n "$heading" ] || fail "$page has no group heading"
groups=$(grep -c '<section class="g" id="' "$page")
case_id=$(grep -o '<td id="[^"]*"' "$page" | tail -n 1 | sed 's/^<td id="//; s/"$//')
[ -n "$case_id" ] || fail "$page has no case cell"

rm -f "$png"
timeout 120 "$browser" "${flags[@]}" --screenshot="$png" "$url" >"$tmp/shot.log" 2>&1 ||
    { cat "$tmp/shot.log" >&2; fail "$browser --screenshot failed"; }
[ -s "$png" ] || { cat "$tmp/shot.log" >&2; fail "no screenshot at $png"; }
[ "$(head -c 4 "$png" | od -An -tx1 | tr -d ' \n')" = 89504e47 ] || fail "$png is not a PNG"

timeout 120 "$browser" "${flags[@]}" --enable-logging=stderr --dump-dom "$url" >"$tmp/dom.html" 2>"$tmp/dom.log" ||
    { cat "$tmp/dom.log" >&2; fail "$browser --dump-dom failed"; }
grep -qF "$heading" "$tmp/dom.html" || fail "the loaded page lacks the first group's heading $heading"
grep -qF '<input id="filter"' "$tmp/dom.html" || fail "the loaded page lacks the filter box"
[ "$(grep -c '<section class="g" id="' "$tmp/dom.html")" = "$groups" ] || fail "the loaded page lost groups"
if grep -q 'Uncaught' "$tmp/dom.log"; then
    grep 'Uncaught' "$tmp/dom.log" >&2
    fail "a script error on the page"
fi

# The filter, driven through ?q=: the case's cell marked, its group shown,
# other groups hidden.
timeout 120 "$browser" "${flags[@]}" --enable-logging=stderr --dump-dom "$url?q=$case_id" \
    >"$tmp/filtered.html" 2>"$tmp/filtered.log" ||
    { cat "$tmp/filtered.log" >&2; fail "$browser --dump-dom ?q= failed"; }
grep -q "<td id=\"$case_id\" class=\"[^\"]*hit\"" "$tmp/filtered.html" ||
    fail "filtering by $case_id did not mark its cell"
shown=$(grep -c '<section class="g" id="[^"]*">' "$tmp/filtered.html")
[ "$shown" -ge 1 ] && [ "$shown" -lt "$groups" ] ||
    fail "filtering by $case_id left $shown of $groups groups shown"
if grep -q 'Uncaught' "$tmp/filtered.log"; then
    grep 'Uncaught' "$tmp/filtered.log" >&2
    fail "a script error on the filtered page"
fi

# With a conformance in the page, ?dev=1 ("deviations only") must leave only
# the rows holding a DEVIATES cell.
devs=
if grep -qF '<input id="devonly"' "$page"; then
    timeout 120 "$browser" "${flags[@]}" --dump-dom "$url?dev=1" >"$tmp/dev.html" 2>"$tmp/dev.log" ||
        { cat "$tmp/dev.log" >&2; fail "$browser --dump-dom ?dev=1 failed"; }
    # One row a line (a cell's title may span lines), then count.
    tr '\n' ' ' <"$tmp/dev.html" | sed 's/<tr/\n<tr/g' | grep '^<tr><td>' >"$tmp/dev.rows"
    rows=$(wc -l <"$tmp/dev.rows")
    others=$(grep -vc ' dev"' "$tmp/dev.rows")
    if grep -q ' dev" title=' "$page"; then
        [ "$rows" -ge 1 ] || fail "deviations only showed no row, and the page has DEVIATES cells"
    fi
    [ "$others" = 0 ] || fail "deviations only left $others rows without a DEVIATES cell"
    devs=" ?dev=1 shows $rows rows;"
fi

echo "ok: $page in $($browser --version 2>/dev/null | head -n 1): screenshot $png ($(stat -c %s "$png") bytes);" \
    "first heading and filter present; ?q=$case_id shows $shown of $groups groups;$devs"
