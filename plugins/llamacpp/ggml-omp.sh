#!/usr/bin/env bash
# Builds the ggml CPU backend variant that suits this machine with OpenMP, from the source
# natives.sh cached, against the prebuilt libggml-base natives.sh cached, once.
# Run by the build after natives.sh and mtmd.sh (exec-maven-plugin, phase generate-resources).
#
# Usage: ggml-omp.sh HOME
#   HOME/omp/libggml-cpu-<variant>-omp.so  the variant (zen4, icelake, haswell, ...) built with
#                          GGML_OPENMP, linked against HOME/lib's libggml-base.so (RUNPATH $ORIGIN and
#                          $ORIGIN/../lib, so it loads from the cache and from the image's natives
#                          folder, where it sits beside the prebuilt libraries)
#   HOME/omp/libgomp.so.1  the build machine's OpenMP runtime, which the variant needs
#
# Why: the prebuilt variants are built without OpenMP, so ggml-cpu runs its own thread pool, whose
# barrier between graph operations is a pure spin (ggml_barrier in ggml/src/ggml-cpu/ggml-cpu.c).
# In a JVM, whose own threads (JIT, GC, virtual-thread carriers) preempt a compute thread now and
# then, the other compute thread spins until it runs again: a one-token request costs tens of
# milliseconds of CPU on a busy machine. With OpenMP and a bounded spin (set at run time, see
# forge.backend.llamacpp.ffm.OpenMp) a waiting thread sleeps soon instead, as in llama-server's own
# build (which links libgomp; its default spin is ten times longer).
#
# Only one variant is built: the x86 one this CPU supports with the most features, read from the
# ggml_add_cpu_backend_variant(NAME FEATURES...) table in the source's ggml/src/CMakeLists.txt
# against /proc/cpuinfo's flags; it scores the same as the prebuilt one of that name, and the
# binding prefers the OpenMP build on that tie. Only that variant's objects are compiled (about 20
# files, under two CPU-minutes), not libllama, ggml or the other variants.
# ggml-base is not built: the variant links the prebuilt one, so the process holds one ggml-base.
# The result counts as verified when it links with no undefined symbol (--no-undefined), needs
# libgomp, and exports the backend entry points ggml's loader calls; .verified records the inputs
# (sources, libraries, this script, the variant, the compiler, libgomp) and the outputs' sha256,
# and a change of any input builds it again. A part is moved into place only when whole.
# On a machine that is not x86-64, or without gcc, cmake and ninja, it says so and builds nothing:
# the prebuilt variants still work, with ggml's own thread pool (with FORGE_OMP=required, as
# .ci/run sets it, a missing tool is an error instead).
set -euo pipefail

die() { echo "ggml-omp.sh: ERROR: $*" >&2; exit 1; }

[ $# -eq 1 ] || die "usage: ggml-omp.sh HOME"
HOME_DIR="$(cd "$1" && pwd)"
SRC="$HOME_DIR/src"
LIB="$HOME_DIR/lib"
[ -f "$SRC/.verified" ] || die "$SRC is not a verified llama.cpp source (run natives.sh $HOME_DIR first)"
[ -f "$LIB/.verified" ] || die "$LIB holds no verified natives (run natives.sh $HOME_DIR first)"

if [ "$(uname -m)" != "x86_64" ]; then
    echo "ggml-omp.sh: $(uname -m) is not x86-64; no OpenMP CPU variant is built (the prebuilt ones use ggml's thread pool)"
    exit 0
fi
for tool in gcc g++ cmake ninja; do
    if ! command -v "$tool" >/dev/null 2>&1; then
        # .ci/run sets FORGE_OMP=required: there a missing tool fails the build instead
        [ "${FORGE_OMP:-}" != "required" ] || die "$tool is needed to build the OpenMP CPU variant (FORGE_OMP=required)"
        echo "ggml-omp.sh: WARNING: $tool is not installed; no OpenMP CPU variant is built (the prebuilt ones use ggml's thread pool, which spins)" >&2
        exit 0
    fi
done

# The backend entry points ggml's loader (ggml_backend_load) and the binding (CpuVariants) call.
EXPORTS="ggml_backend_init ggml_backend_score"

# The table's feature names as /proc/cpuinfo spells them.
declare -A FLAG=(
    [SSE42]=sse4_2 [AVX]=avx [F16C]=f16c [FMA]=fma [AVX2]=avx2 [BMI2]=bmi2 [AVX512]=avx512f
    [AVX512_VBMI]=avx512vbmi [AVX512_VNNI]=avx512_vnni [AVX512_BF16]=avx512_bf16 [AVX_VNNI]=avx_vnni
    [AMX_TILE]=amx_tile [AMX_INT8]=amx_int8
)

# The x86 variants, "NAME FEATURE..." a line, in the table's order.
variants() {
    sed -n '/GGML_SYSTEM_ARCH STREQUAL "x86"/,/elseif *(GGML_SYSTEM_ARCH/p' "$SRC/ggml/src/CMakeLists.txt" \
        | sed -n 's/^ *ggml_add_cpu_backend_variant(\([^)]*\)).*/\1/p'
}

# The variant this CPU supports with the most features (the later one on a tie, as the table
# lists them from old to new); a feature the map does not know counts as unsupported.
pick() {
    local flags best="" most=-1 name feats f ok
    flags=" $(grep -m1 '^flags' /proc/cpuinfo | cut -d: -f2) "
    while read -r name feats; do
        ok=1
        for f in $feats; do
            if [ -z "${FLAG[$f]:-}" ] || [[ "$flags" != *" ${FLAG[$f]} "* ]]; then
                ok=0
                break
            fi
        done
        local n
        n=$(wc -w <<<"$feats")
        if [ "$ok" = 1 ] && [ "$n" -ge "$most" ]; then
            best="$name"
            most="$n"
        fi
    done < <(variants)
    echo "$best"
}

VARIANT="$(pick)"
[ -n "$VARIANT" ] || die "no x86 CPU variant found in $SRC/ggml/src/CMakeLists.txt"
[ -f "$LIB/libggml-cpu-$VARIANT.so" ] || die "the prebuilt natives in $LIB have no libggml-cpu-$VARIANT.so to match"
NAME="libggml-cpu-$VARIANT-omp.so"
GOMP="$(gcc -print-file-name=libgomp.so.1)"
[ -f "$GOMP" ] || die "gcc has no libgomp.so.1 (install libgomp1 / gcc's OpenMP runtime)"

# What the variant is built from, one line each.
inputs() {
    cat "$SRC/.verified" "$LIB/.verified"
    sha256sum "$0" | cut -d' ' -f1
    echo "$VARIANT"
    gcc --version | head -n 1
    sha256sum "$GOMP" | cut -d' ' -f1
}

want="$(inputs)"
if [ -f "$HOME_DIR/omp/.verified" ] && [ "$(head -n -2 "$HOME_DIR/omp/.verified")" = "$want" ]; then
    echo "ggml-omp.sh: $NAME already verified in $HOME_DIR/omp"
    exit 0
fi
find "$HOME_DIR" -maxdepth 1 -name '.omp.*' -type d -mmin +60 -exec rm -rf {} + 2>/dev/null || true
WORK="$(mktemp -d "$HOME_DIR/.omp.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT
jobs="${FORGE_OMP_JOBS:-$(nproc)}"
echo "ggml-omp.sh: building the $VARIANT CPU variant with OpenMP ($jobs jobs)" >&2
start=$SECONDS

# As the prebuilt package's build (ggml with dynamically loaded backends, every x86 variant
# defined, none tuned to the build machine) but with OpenMP; only the one variant is compiled.
# The source tree is configured from its root (the cached ggml/ lacks files a standalone ggml
# configure needs), with every llama.cpp part beyond the library off.
cmake -S "$SRC" -B "$WORK/build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DBUILD_SHARED_LIBS=ON \
    -DGGML_BACKEND_DL=ON -DGGML_CPU_ALL_VARIANTS=ON -DGGML_NATIVE=OFF -DGGML_OPENMP=ON \
    -DLLAMA_BUILD_COMMON=OFF -DLLAMA_BUILD_TOOLS=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF \
    -DLLAMA_BUILD_SERVER=OFF -DLLAMA_BUILD_APP=OFF -DLLAMA_CURL=OFF >"$WORK/configure.log" 2>&1 \
    || { tail -n 30 "$WORK/configure.log" >&2; die "configuring ggml failed"; }
grep -q 'GGML_OPENMP_ENABLED:INTERNAL=ON' "$WORK/build/CMakeCache.txt" \
    || die "cmake found no OpenMP for gcc (install libgomp / gcc's OpenMP support)"
# The variant's objects and its feature-check objects (cpu-feats.cpp, which ggml_backend_score runs).
mapfile -t objects < <(ninja -C "$WORK/build" -t targets all | cut -d: -f1 \
    | grep -E "CMakeFiles/ggml-cpu-${VARIANT}"'(-feats)?\.dir/.*\.o$')
[ "${#objects[@]}" -gt 0 ] || die "ninja lists no objects for ggml-cpu-$VARIANT"
ninja -C "$WORK/build" -j "$jobs" "${objects[@]}" >"$WORK/build.log" 2>&1 \
    || { tail -n 30 "$WORK/build.log" >&2; die "compiling ggml-cpu-$VARIANT failed"; }

mkdir -p "$WORK/omp"
out="$WORK/omp/$NAME"
(cd "$WORK/build" && g++ -shared -fopenmp -o "$out" "${objects[@]}" -Wl,-soname,"$NAME" -Wl,--no-undefined \
    -Wl,-rpath,'$ORIGIN:$ORIGIN/../lib' -L"$LIB" -l:libggml-base.so -lpthread) \
    || die "linking $NAME against $LIB/libggml-base.so failed"
exported="$(nm -D --defined-only "$out" | awk '{print $3}')"
for f in $EXPORTS; do
    grep -qx "$f" <<<"$exported" || die "the built $out does not export $f"
done
readelf -d "$out" | grep -q 'Shared library: \[libgomp.so.1\]' || die "the built $out does not use libgomp"
cp -L "$GOMP" "$WORK/omp/libgomp.so.1"
{
    echo "$want"
    sha256sum "$out" | cut -d' ' -f1
    sha256sum "$WORK/omp/libgomp.so.1" | cut -d' ' -f1
} >"$WORK/omp/.verified"
rm -rf "$HOME_DIR/omp"
mv "$WORK/omp" "$HOME_DIR/omp"
echo "ggml-omp.sh: verified $NAME in $HOME_DIR/omp ($((SECONDS - start)) s)"
