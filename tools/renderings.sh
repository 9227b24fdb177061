#!/usr/bin/env bash
# Every committed rendering reports/**/matrix.md must be exactly what
# `sync-cts render` makes of the matrix.json.gz beside it.  Renderings are
# committed for each GPU's default and per-thread-default-stream matrices
# only (docs/matrix.md): the others' are one `sync-cts render` away, and
# their 28 renderings were 17 MB of a tree that travels whole to a GPU host.
#
#   tools/renderings.sh path/to/sync-cts           # check: exit 1 naming each that differs
#   tools/renderings.sh --write path/to/sync-cts   # render them all again, in place
#
# Rendering reads only the matrix, so the legacy build renders the per-thread
# matrices too.  The renders run side by side, one per core (a 17 MB matrix
# takes seconds).  Exit 0 all match (or written), 1 some differ or failed to
# render, 2 bad usage or no committed matrix.
set -u
write=0
if [ "${1-}" = --write ]; then
    write=1
    shift
fi
if [ $# -ne 1 ] || [ ! -x "$1" ]; then
    echo "usage: $0 [--write] path/to/sync-cts" >&2
    exit 2
fi
cts="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
cd "$(dirname "$0")/.." || exit 2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

matrices=$(find reports -name matrix.md | sort | sed 's/matrix\.md$/matrix.json.gz/')
if [ -z "$matrices" ]; then
    echo "no committed rendering under reports/" >&2
    exit 2
fi
for m in $matrices; do
    [ -f "$m" ] || { echo "$(dirname "$m")/matrix.md: no matrix.json.gz beside it" >&2; exit 2; }
done

# render MATRIX: into the scratch directory (check) or beside it (--write);
# a failure leaves its message in $tmp/failed.
export cts tmp write
render() {
    local m=$1 out name
    name=$(dirname "$m" | tr / _)
    out=$tmp/$name.md
    [ "$write" = 1 ] && out=$(dirname "$m")/matrix.md
    "$cts" render "$m" --out "$out" 2>"$tmp/$name.err" ||
        echo "$m: render failed: $(cat "$tmp/$name.err")" >>"$tmp/failed"
}
export -f render
printf '%s\n' $matrices | xargs -P "$(nproc 2>/dev/null || echo 2)" -I{} bash -c 'render "$1"' _ {}

status=0
if [ -s "$tmp/failed" ]; then
    cat "$tmp/failed" >&2
    status=1
fi
[ "$write" = 1 ] && exit $status

differ=()
for m in $matrices; do
    md=$(dirname "$m")/matrix.md
    cmp -s "$tmp/$(dirname "$m" | tr / _).md" "$md" || differ+=("$md")
done
n=$(echo "$matrices" | wc -l)
if [ ${#differ[@]} -gt 0 ]; then
    echo "${#differ[@]} of $n committed renderings differ from \`sync-cts render\` of their matrix" \
         "(tools/renderings.sh --write BUILD/sync-cts renders them again):" >&2
    printf '  %s\n' "${differ[@]}" >&2
    exit 1
fi
[ $status -eq 0 ] && echo "all $n committed renderings match their matrices"
exit $status
