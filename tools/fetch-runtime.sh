#!/usr/bin/env bash
# tools/fetch-runtime.sh VERSION [PREFIX]
#
# Fetches one CUDA runtime (headers and libcudart.so) from PyPI, to build the
# suite against it: cmake -DCTS_CUDA_RUNTIME=PREFIX (docs/running.md,
# "Another CUDA runtime").  VERSION is the wheel's exact version:
# nvidia-cuda-runtime-cu12 for 12.x (12.0.107 ... 12.9.79),
# nvidia-cuda-runtime for 13.x (13.0.48 ...).  PREFIX (default
# .runtimes/VERSION, which .gitignore ignores) gets include/*.h and
# lib/libcudart.so.N, with a libcudart.so link beside it, and include/crt/,
# which the runtime's headers include but its wheel lacks: from the newest
# wheel of the same minor release that holds it (nvidia-cuda-nvcc-cu12 for
# 12.x, nvidia-cuda-crt for 13.x; only include/crt/ is kept).  PREFIX/FETCHED
# names both wheels.
#
# Needs python3 with pip and a network; no root.  Downloads into a temporary
# folder, unpacks there, and only then renames the result to PREFIX, so PREFIX
# is whole or absent.  An existing PREFIX is left as it is (exit 0).  On a bad
# version or a failed download: one line on stderr, exit 1.
set -euo pipefail

die() { echo "fetch-runtime: $*" >&2; exit 1; }

[ $# -ge 1 ] && [ $# -le 2 ] || die "usage: $0 VERSION [PREFIX]"
version=$1
prefix=${2:-.runtimes/$version}
case "$version" in
    12.[0-9].*) package=nvidia-cuda-runtime-cu12 crt_package=nvidia-cuda-nvcc-cu12 ;;
    13.*.*) package=nvidia-cuda-runtime crt_package=nvidia-cuda-crt ;;
    *) die "version '$version' is not 12.x.y or 13.x.y (a PyPI version of the CUDA runtime wheel)" ;;
esac
[[ "$version" =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] || die "version '$version' is not N.N.N"
if [ -e "$prefix/include/cuda_runtime_api.h" ] && [ -e "$prefix/lib/libcudart.so" ] &&
   [ -e "$prefix/include/crt/host_defines.h" ]; then
    echo "fetch-runtime: $prefix already holds a runtime; left as it is"
    exit 0
fi
[ -e "$prefix" ] && die "$prefix exists but holds no runtime: remove it first"
command -v python3 >/dev/null 2>&1 || die "python3 is required"
python3 -m pip --version >/dev/null 2>&1 || die "pip is required (python3 -m pip)"

parent=$(dirname "$prefix")
mkdir -p "$parent"
tmp=$(mktemp -d "$parent/.fetch-runtime.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# download DIR SPEC: one wheel into DIR.
download() {
    python3 -m pip download -q --no-deps --only-binary=:all: --disable-pip-version-check \
        --platform manylinux2014_x86_64 --platform manylinux_2_17_x86_64 \
        --platform manylinux_2_27_x86_64 --platform manylinux_2_28_x86_64 \
        --platform manylinux1_x86_64 -d "$1" "$2" >"$tmp/pip.log" 2>&1 ||
        die "pip could not download $2 (no such version, or no network): $(grep -m1 -E 'ERROR' "$tmp/pip.log" || tail -n1 "$tmp/pip.log")"
    ls "$1"/*.whl >/dev/null 2>&1 || die "pip downloaded no wheel for $2"
}
minor=${version%.*}
download "$tmp/wheel" "$package==$version"
download "$tmp/crt" "$crt_package>=$minor,<${minor%%.*}.$(( ${minor#*.} + 1 ))"
wheel=$(ls "$tmp"/wheel/*.whl | head -n1)
crt=$(ls "$tmp"/crt/*.whl | head -n1)

python3 - "$wheel" "$crt" "$tmp/out" <<'EOF' || die "could not unpack $(basename "$wheel") and $(basename "$crt")"
import os, shutil, sys, zipfile
wheel, crt, out = sys.argv[1:]

def unpack(path, anchor, keep):
    """The files under the folder holding `anchor` whose path there starts with one of `keep`."""
    with zipfile.ZipFile(path) as z:
        names = z.namelist()
        # nvidia/cuda_runtime/ in the 12.x wheels, nvidia/cu13/ in 13.x: found, not assumed.
        heads = [n[: -len(anchor)] for n in names if n.endswith("/" + anchor)]
        if len(heads) != 1:
            sys.exit(f"no single {anchor} in {os.path.basename(path)}")
        root = heads[0]
        for name in names:
            if not name.startswith(root) or name.endswith("/") or name.endswith("__init__.py"):
                continue
            rel = name[len(root):]
            if not rel.startswith(keep) or ".." in rel.split("/") or rel.endswith(".a"):
                continue
            dest = os.path.join(out, rel)
            os.makedirs(os.path.dirname(dest), exist_ok=True)
            with z.open(name) as src, open(dest, "wb") as dst:
                shutil.copyfileobj(src, dst)

unpack(wheel, "include/cuda_runtime_api.h", ("include/", "lib/"))
unpack(crt, "include/crt/host_defines.h", ("include/crt/",))
EOF
[ -f "$tmp/out/include/crt/host_defines.h" ] || die "$(basename "$crt") holds no include/crt/host_defines.h"
printf '%s\n' "$(basename "$wheel")" "$(basename "$crt") (include/crt/ only)" >"$tmp/out/FETCHED"
[ -f "$tmp/out/include/cuda_runtime_api.h" ] || die "the wheel holds no include/cuda_runtime_api.h"
so=$(cd "$tmp/out/lib" 2>/dev/null && ls libcudart.so.[0-9]* 2>/dev/null | head -n1) || true
[ -n "$so" ] || die "the wheel holds no lib/libcudart.so.N"
ln -s "$so" "$tmp/out/lib/libcudart.so"
mv -T "$tmp/out" "$prefix" || die "could not move the runtime to $prefix"
echo "fetch-runtime: CUDA runtime $version in $prefix (-DCTS_CUDA_RUNTIME=$(cd "$prefix" && pwd))"
