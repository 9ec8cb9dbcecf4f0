#!/usr/bin/env bash
# Builds forge-cuda-<version>-linux-x64.tar.gz: the llama.cpp-cuda plugin with its natives, one
# folder to unpack into an image's plugins/ (tar -xzf forge-cuda-*.tar.gz -C forge-<version>/plugins).
# The base image and tarball stay CPU-only: these natives are about 160 MB.
# Run by the build with -Pcuda (exec-maven-plugin, phase package) with these variables set:
#   CUDA_PLUGIN_DIR  the folder holding the plugin's jar (target/cuda-plugin)
#   CUDA_LIB         the verified CUDA natives (plugins/llamacpp/natives.sh --cuda DEST fills DEST/lib)
#   TARBALL          the .tar.gz to write
set -euo pipefail

# shellcheck source=build-env.sh
. "$(dirname "${BASH_SOURCE[0]}")/build-env.sh"
need "mvn -Pcuda package -pl dist -am" CUDA_PLUGIN_DIR CUDA_LIB TARBALL
[ -f "$CUDA_LIB/.verified" ] || die "no verified CUDA natives in $CUDA_LIB (plugins/llamacpp/natives.sh --cuda $(dirname "$CUDA_LIB"))"
[ -f "$CUDA_LIB/libggml-cuda.so" ] || die "$CUDA_LIB has no libggml-cuda.so"
shopt -s nullglob
jars=("$CUDA_PLUGIN_DIR"/forge-backend-llamacpp-cuda-*.jar)
[ ${#jars[@]} -eq 1 ] || die "expected one plugin jar in $CUDA_PLUGIN_DIR, found ${#jars[@]}"

stage="$(mktemp -d)"
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/llamacpp-cuda/natives/lib"
cp "${jars[0]}" "$stage/llamacpp-cuda/"
cp "$CUDA_LIB"/*.so "$stage/llamacpp-cuda/natives/lib/"
# libmtmd linked against these natives (plugins/llamacpp/mtmd.sh --cuda), beside them, when built.
[ ! -f "$CUDA_LIB/../mtmd/libmtmd.so" ] || cp "$CUDA_LIB/../mtmd/libmtmd.so" "$stage/llamacpp-cuda/natives/lib/"
cat > "$stage/llamacpp-cuda/README.txt" <<'TXT'
ForgeLM's llama.cpp CUDA backend (llama.cpp v0.5.0, CUDA 13). It needs the NVIDIA driver
(libcuda.so.1) and the CUDA 13 runtime: libcudart.so.13 and libcublas.so.13, from a CUDA toolkit or
`pip install nvidia-cuda-runtime nvidia-cublas` (found in LD_LIBRARY_PATH, the system folders, CUDA
toolkits, Python's site-packages, or --cuda-lib-dir DIR). `forge plugins` says whether it is usable
and why not; when it is, it outranks the CPU backend.
TXT
rm -f "$TARBALL"
tar -czf "$TARBALL" -C "$stage" llamacpp-cuda
echo "build-cuda-tarball.sh: $(basename "$TARBALL") ($(du -sh "$TARBALL" | cut -f1))"
