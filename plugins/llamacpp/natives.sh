#!/usr/bin/env bash
# Fetches the llama.cpp natives (release v0.5.0, as prebuilt by node-llama-cpp 3.22.1) into a
# cache folder, once. Run by the build (exec-maven-plugin, phase generate-resources).
#
# Usage: natives.sh DEST
#   DEST/lib/  the CPU shared libraries: libggml-base.so, libggml.v0.5.0.so, libllama.v0.5.0.so and
#              one libggml-cpu-*.so per instruction-set level (their RUNPATH is $ORIGIN)
#   DEST/src/  the matching llama.cpp source: include/llama.h, ggml/include/*.h, models/ggml-vocab-*.gguf
# Usage: natives.sh --cuda DEST
#   DEST/lib/  the CUDA 13 package's libraries (about 160 MB): libggml-cuda.so, libggml.cuda.v0.5.0.so,
#              libllama.cuda.v0.5.0.so, libggml-base.so and the CPU variants; no source (the CPU one matches)
#
# Both packages come through npm's ordinary client (`npm pack`), whose registry is whatever npm is
# configured with; the integrity hashes below pin what we accept. Each part is marked done with a
# .verified file only after it has been checked and moved into place, so an interrupted run
# leaves nothing that passes for a finished cache and the next run starts that part again.
set -euo pipefail

VERSION=3.22.1
LIB_PACKAGE="@node-llama-cpp/linux-x64@${VERSION}"
LIB_INTEGRITY="sha512-5uCCDNqWCNfaAm8aR/Uzxbo4HBpKgNF91kCHPepKhgMgV2OAmatoefbOlMihsqCiH2Od35E/eUHQCFbfRBJuOg=="
LIB_BINS="linux-x64"
LIB_REQUIRED="libggml-base.so libggml.v0.5.0.so libllama.v0.5.0.so"
WANT_SRC=1
if [ "${1:-}" = "--cuda" ]; then
    shift
    LIB_PACKAGE="@node-llama-cpp/linux-x64-cuda@${VERSION}"
    LIB_INTEGRITY="sha512-8rQCjyNNLZJUFit+YpjwlC4hwkKgOMIkB2wuycKBf8NU2O3ySKbiWZQ8aw9ku2nUTXjSnUIrE6KB88itduTBuA=="
    LIB_BINS="linux-x64-cuda"
    LIB_REQUIRED="libggml-base.so libggml-cuda.so libggml.cuda.v0.5.0.so libllama.cuda.v0.5.0.so"
    WANT_SRC=0
fi
SRC_PACKAGE="node-llama-cpp@${VERSION}"
SRC_INTEGRITY="sha512-bltIipuWmc123H7tMIgDGKSsSrhmhlQYeVUC48XTjVW7XGJJiJJyCdlTMzQ/LiWoPkGDpcL4FviDpgw7qfTiDw=="

die() { echo "natives.sh: ERROR: $*" >&2; exit 1; }

[ $# -eq 1 ] || die "usage: natives.sh [--cuda] DEST"
DEST="$1"
mkdir -p "$DEST"
DEST="$(cd "$DEST" && pwd)"

# The package's npm integrity string (sha512-<base64>) of a tarball.
integrity() {
    if command -v openssl >/dev/null 2>&1; then
        echo "sha512-$(openssl dgst -sha512 -binary "$1" | base64 -w0)"
    elif command -v python3 >/dev/null 2>&1; then
        python3 -c 'import base64,hashlib,sys; print("sha512-" + base64.b64encode(hashlib.sha512(open(sys.argv[1],"rb").read()).digest()).decode())' "$1"
    else
        node -e 'const c=require("crypto"),f=require("fs");console.log("sha512-"+c.createHash("sha512").update(f.readFileSync(process.argv[1])).digest("base64"))' "$1"
    fi
}

# Packs PACKAGE into the folder DIR with npm, checks its integrity, unpacks it there; prints the tarball path.
fetch() {
    local package="$1" expected="$2" dir="$3"
    command -v npm >/dev/null 2>&1 || die "npm is needed to fetch $package (or copy a finished cache into $DEST)"
    echo "natives.sh: fetching $package" >&2
    local tarball
    tarball="$(cd "$dir" && npm pack --silent --loglevel=error "$package" | tail -n 1)"
    [ -f "$dir/$tarball" ] || die "npm pack $package produced no tarball"
    local actual
    actual="$(integrity "$dir/$tarball")"
    if [ "$actual" != "$expected" ]; then
        die "integrity mismatch for $package
  expected $expected
  actual   $actual"
    fi
    echo "natives.sh: verified $package ($actual)" >&2
    tar -xzf "$dir/$tarball" -C "$dir"
}

# Work folders of runs killed before their trap ran.
find "$DEST" -maxdepth 1 -name '.tmp.*' -type d -mmin +60 -exec rm -rf {} + 2>/dev/null || true
WORK="$(mktemp -d "$DEST/.tmp.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT

# (a) the shared libraries
if [ -f "$DEST/lib/.verified" ]; then
    echo "natives.sh: libraries already verified in $DEST/lib"
else
    mkdir -p "$WORK/a"
    fetch "$LIB_PACKAGE" "$LIB_INTEGRITY" "$WORK/a"
    mkdir -p "$WORK/lib"
    cp "$WORK"/a/package/bins/"$LIB_BINS"/*.so "$WORK/lib/"
    for required in $LIB_REQUIRED; do
        [ -f "$WORK/lib/$required" ] || die "$LIB_PACKAGE has no bins/$LIB_BINS/$required"
    done
    echo "$LIB_PACKAGE $LIB_INTEGRITY" > "$WORK/lib/.verified"
    rm -rf "${DEST:?}/lib"
    mv "$WORK/lib" "$DEST/lib"
    echo "natives.sh: verified libraries in $DEST/lib ($(ls "$DEST"/lib/*.so | wc -l) files)"
fi

# (b) the llama.cpp source (the CPU package's run only: both packages are the same release)
if [ "$WANT_SRC" = 0 ]; then
    :
elif [ -f "$DEST/src/.verified" ]; then
    echo "natives.sh: source already verified in $DEST/src"
else
    command -v git >/dev/null 2>&1 || die "git is needed to unpack the llama.cpp source"
    mkdir -p "$WORK/b"
    fetch "$SRC_PACKAGE" "$SRC_INTEGRITY" "$WORK/b"
    bundle="$WORK/b/package/llama/gitRelease.bundle"
    [ -f "$bundle" ] || die "$SRC_PACKAGE has no llama/gitRelease.bundle"
    echo "natives.sh: cloning the llama.cpp source bundle" >&2
    git -c advice.detachedHead=false clone -q "$bundle" "$WORK/src"
    [ -f "$WORK/src/include/llama.h" ] || die "the source bundle has no include/llama.h"
    echo "$SRC_PACKAGE $SRC_INTEGRITY" > "$WORK/src/.verified"
    rm -rf "$DEST/src"
    mv "$WORK/src" "$DEST/src"
    echo "natives.sh: verified source in $DEST/src"
fi
