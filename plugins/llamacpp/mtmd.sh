#!/usr/bin/env bash
# Builds llama.cpp's libmtmd (tools/mtmd: images and audio into a llama.cpp context) from the
# source natives.sh cached, against the prebuilt libllama and ggml natives.sh cached, once.
# Run by the build after natives.sh (exec-maven-plugin, phase generate-resources).
#
# Usage: mtmd.sh HOME
#   HOME/mtmd/libmtmd.so   linked against HOME/lib's libllama.v0.5.0.so, libggml.v0.5.0.so and
#                          libggml-base.so (RUNPATH $ORIGIN and $ORIGIN/../lib, so it loads from
#                          the cache and from the image's natives folder, where it sits beside them)
#   HOME/mtmd/obj/         the compiled objects, kept for the CUDA link below
# Usage: mtmd.sh --cuda HOME CUDA_HOME
#   CUDA_HOME/mtmd/libmtmd.so  the same objects linked against the CUDA package's libraries
#                              (libllama.cuda.v0.5.0.so, libggml.cuda.v0.5.0.so): no CUDA code is in
#                              libmtmd itself, so nothing is compiled again and no CUDA toolkit is needed
#
# The prebuilt packages ship no libmtmd, but the source bundled with them is the same commit
# (release v0.5.0), so the C++ layouts libmtmd shares with libllama and ggml match. Only the
# library's own sources are compiled (the file list is read from tools/mtmd/CMakeLists.txt, so it
# follows the release), not ggml or llama: about 55 files, two minutes on two busy cores.
# The result counts as verified when it was built from the verified source against the verified
# libraries, links with no undefined symbol (--no-undefined), and exports every function the
# binding calls; .verified records those inputs and the library's sha256, and a change of any
# input (a new natives.sh cache) builds it again. A part is moved into place only when whole.
set -euo pipefail

die() { echo "mtmd.sh: ERROR: $*" >&2; exit 1; }

CUDA=0
if [ "${1:-}" = "--cuda" ]; then
    CUDA=1
    shift
    [ $# -eq 2 ] || die "usage: mtmd.sh --cuda HOME CUDA_HOME"
else
    [ $# -eq 1 ] || die "usage: mtmd.sh HOME"
fi
HOME_DIR="$(cd "$1" && pwd)"
SRC="$HOME_DIR/src"
[ -f "$SRC/.verified" ] || die "$SRC is not a verified llama.cpp source (run natives.sh $HOME_DIR first)"
[ -f "$HOME_DIR/lib/.verified" ] || die "$HOME_DIR/lib holds no verified natives (run natives.sh $HOME_DIR first)"

# The functions plugins/llamacpp's binding (forge.backend.llamacpp.ffm.Mtmd) calls.
EXPORTS="mtmd_context_params_default mtmd_init_from_file mtmd_free mtmd_support_vision mtmd_support_audio
mtmd_default_marker mtmd_bitmap_init mtmd_bitmap_free mtmd_bitmap_set_id mtmd_input_chunks_init
mtmd_input_chunks_size mtmd_input_chunks_get mtmd_input_chunks_free mtmd_input_chunk_get_type
mtmd_input_chunk_get_tokens_text mtmd_input_chunk_get_n_tokens mtmd_input_chunk_get_n_pos
mtmd_input_chunk_get_id mtmd_tokenize mtmd_helper_eval_chunk_single mtmd_decode_use_mrope
mtmd_decode_use_non_causal mtmd_helper_bitmap_init_from_buf mtmd_helper_init_opt_default mtmd_helper_log_set mtmd_log_set"

# HOME's verified inputs, one line each: what the library was built from.
inputs() {
    cat "$SRC/.verified" "$HOME_DIR/lib/.verified"
    sha256sum "$0" | cut -d' ' -f1
}

# Links the objects in OBJ against the libraries LLAMA and GGML in LIBDIR into OUT, checked.
link() {
    local obj="$1" libdir="$2" llama="$3" ggml="$4" out="$5"
    command -v g++ >/dev/null 2>&1 || die "g++ is needed to build libmtmd"
    g++ -shared -o "$out" "$obj"/*.o -Wl,-soname,libmtmd.so -Wl,--no-undefined \
        -Wl,-rpath,'$ORIGIN:$ORIGIN/../lib' -L"$libdir" -l:"$llama" -l:"$ggml" -l:libggml-base.so -lpthread \
        || die "linking libmtmd against $libdir failed"
    local exported
    exported="$(nm -D --defined-only "$out" | awk '{print $3}')"
    for f in $EXPORTS; do
        grep -qx "$f" <<<"$exported" || die "the built $out does not export $f"
    done
}

if [ "$CUDA" = 1 ]; then
    CUDA_HOME="$(cd "$2" && pwd)"
    [ -f "$CUDA_HOME/lib/.verified" ] || die "$CUDA_HOME/lib holds no verified CUDA natives (run natives.sh --cuda $CUDA_HOME first)"
    [ -f "$HOME_DIR/mtmd/.verified" ] || die "build the CPU libmtmd first: mtmd.sh $HOME_DIR"
    want="$(inputs; cat "$CUDA_HOME/lib/.verified")"
    if [ -f "$CUDA_HOME/mtmd/.verified" ] && [ "$(head -n -1 "$CUDA_HOME/mtmd/.verified")" = "$want" ]; then
        echo "mtmd.sh: libmtmd already verified in $CUDA_HOME/mtmd"
        exit 0
    fi
    WORK="$(mktemp -d "$CUDA_HOME/.mtmd.XXXXXX")"
    trap 'rm -rf "$WORK"' EXIT
    link "$HOME_DIR/mtmd/obj" "$CUDA_HOME/lib" libllama.cuda.v0.5.0.so libggml.cuda.v0.5.0.so "$WORK/libmtmd.so"
    { echo "$want"; sha256sum "$WORK/libmtmd.so" | cut -d' ' -f1; } > "$WORK/.verified"
    rm -rf "$CUDA_HOME/mtmd"
    mv "$WORK" "$CUDA_HOME/mtmd"
    trap - EXIT
    echo "mtmd.sh: verified libmtmd in $CUDA_HOME/mtmd (linked against the CUDA natives)"
    exit 0
fi

want="$(inputs)"
if [ -f "$HOME_DIR/mtmd/.verified" ] && [ "$(head -n -1 "$HOME_DIR/mtmd/.verified")" = "$want" ]; then
    echo "mtmd.sh: libmtmd already verified in $HOME_DIR/mtmd"
    exit 0
fi
command -v gcc >/dev/null 2>&1 || die "gcc and g++ are needed to build libmtmd from $SRC/tools/mtmd"
find "$HOME_DIR" -maxdepth 1 -name '.mtmd.*' -type d -mmin +60 -exec rm -rf {} + 2>/dev/null || true
WORK="$(mktemp -d "$HOME_DIR/.mtmd.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT
mkdir -p "$WORK/obj"

# The library's sources as its CMakeLists.txt lists them, then vendor/hash (a static library there).
sources="$(sed -n '/^add_library(mtmd/,/^ *)/p' "$SRC/tools/mtmd/CMakeLists.txt" | grep -o '[A-Za-z0-9_./-]*\.cpp' | sed 's|^|tools/mtmd/|')"
[ -n "$sources" ] || die "no sources found in $SRC/tools/mtmd/CMakeLists.txt"
sources="$sources vendor/hash/hash.cpp vendor/hash/xxhash/xxhash.c vendor/hash/sha1/sha1.c vendor/hash/sha256/sha256.c"
jobs="${FORGE_MTMD_JOBS:-$(nproc)}"
echo "mtmd.sh: compiling libmtmd ($(wc -w <<<"$sources") files, $jobs jobs)" >&2
start=$SECONDS
export SRC WORK
# As tools/mtmd/CMakeLists.txt builds it: C++17, LLAMA_BUILD and LLAMA_SHARED for a shared library,
# vendor/ on the include path; sha1.c is compiled as C++ (vendor/hash/CMakeLists.txt); -w for
# third-party warnings only matters to their authors.
printf '%s\n' $sources | xargs -P "$jobs" -I{} bash -c '
    f="{}"; o="$WORK/obj/$(tr / _ <<<"$f").o"
    case "$f" in
        */sha1.c) cc=(g++ -x c++ -std=c++17) ;;
        *.c) cc=(gcc) ;;
        *) cc=(g++ -std=c++17) ;;
    esac
    "${cc[@]}" -O2 -fPIC -w -DNDEBUG -DLLAMA_BUILD -DLLAMA_SHARED -I"$SRC/include" -I"$SRC/ggml/include" \
        -I"$SRC/tools/mtmd" -I"$SRC/vendor" -I"$SRC/vendor/hash" -c "$SRC/$f" -o "$o" \
        || { echo "mtmd.sh: ERROR: compiling $f failed" >&2; exit 255; }
' || die "compiling libmtmd failed"
link "$WORK/obj" "$HOME_DIR/lib" libllama.v0.5.0.so libggml.v0.5.0.so "$WORK/libmtmd.so"
cp "$SRC/tools/mtmd/mtmd.h" "$SRC/tools/mtmd/mtmd-helper.h" "$WORK/"
{ echo "$want"; sha256sum "$WORK/libmtmd.so" | cut -d' ' -f1; } > "$WORK/.verified"
rm -rf "$HOME_DIR/mtmd"
mv "$WORK" "$HOME_DIR/mtmd"
trap - EXIT
echo "mtmd.sh: verified libmtmd in $HOME_DIR/mtmd ($((SECONDS - start)) s)"
