#!/usr/bin/env bash
# Builds ForgeLM's OCI image (an OCI image layout tarball) from the jlink image, without a Docker
# daemon or a registry: rootfs.sh assembles the base from Debian packages, OciImage.java (Jib Core)
# layers it with the image. With CUDA_PLUGIN_DIR and CUDA_LIB set, the CUDA image instead: the same
# plus the llama.cpp-cuda plugin and its natives in /opt/forge/plugins/llamacpp-cuda.
# Run by the build (exec-maven-plugin, phase package) with these variables set:
#   JAVA, JIB_CLASSPATH   the build JDK's java; Jib Core and its libraries (dependency:build-classpath)
#   IMAGE                 the jlink image (build-image.sh's)
#   OCI_TARBALL, OCI_NAME the tarball to write; the image's reference inside it (name:tag)
#   DEB_CACHE             where the Debian packages are kept between builds
#   VERSION, LLAMA_RELEASE, LLAMA_NATIVES  for the image's labels
set -euo pipefail

# shellcheck source=build-env.sh
. "$(dirname "${BASH_SOURCE[0]}")/build-env.sh"
need "mvn package -pl dist -am" JAVA JIB_CLASSPATH IMAGE OCI_TARBALL OCI_NAME DEB_CACHE VERSION LLAMA_RELEASE LLAMA_NATIVES
[ -x "$IMAGE/bin/forge" ] || die "no jlink image at $IMAGE"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

bash "$here/src/oci/rootfs.sh" "$DEB_CACHE" "$work/rootfs"

labels=(
    --label "org.opencontainers.image.title=ForgeLM"
    --label "org.opencontainers.image.description=A local, OpenAI-compatible LLM server: llama.cpp through FFM"
    --label "org.opencontainers.image.version=$VERSION"
    --label "dev.forgelm.llama-cpp.release=$LLAMA_RELEASE"
    --label "dev.forgelm.llama-cpp.natives=$LLAMA_NATIVES"
    --label "dev.forgelm.base.packages=$(tr '\n' ' ' <"$work/rootfs.packages" | sed 's/ $//')"
)
cuda=()
if [ -n "${CUDA_PLUGIN_DIR:-}" ]; then
    [ -f "${CUDA_LIB:-}/libggml-cuda.so" ] || die "CUDA_LIB=${CUDA_LIB:-} has no libggml-cuda.so (plugins/llamacpp/natives.sh --cuda)"
    shopt -s nullglob
    jars=("$CUDA_PLUGIN_DIR"/forge-backend-llamacpp-cuda-*.jar)
    [ ${#jars[@]} -eq 1 ] || die "expected one plugin jar in $CUDA_PLUGIN_DIR, found ${#jars[@]}"
    mkdir -p "$work/llamacpp-cuda/natives/lib"
    cp "${jars[0]}" "$work/llamacpp-cuda/"
    cp -L "$CUDA_LIB"/*.so "$work/llamacpp-cuda/natives/lib/"
    # libmtmd linked against these natives (plugins/llamacpp/mtmd.sh --cuda), beside them, when built.
    [ ! -f "$CUDA_LIB/../mtmd/libmtmd.so" ] || cp "$CUDA_LIB/../mtmd/libmtmd.so" "$work/llamacpp-cuda/natives/lib/"
    cuda=(--cuda-plugin "$work/llamacpp-cuda")
    labels+=(--label "dev.forgelm.accelerator=cuda-13")
fi

# Guava (Jib's) still reads fields through sun.misc.Unsafe: allowed, without the JDK's warning.
"$JAVA" --sun-misc-unsafe-memory-access=allow -cp "$JIB_CLASSPATH" "$here/src/build/OciImage.java" --rootfs "$work/rootfs" --forge "$IMAGE" \
    --out "$OCI_TARBALL" --name "$OCI_NAME" "${cuda[@]}" "${labels[@]}"
echo "build-image-oci.sh: $(basename "$OCI_TARBALL") ($(du -sh "$OCI_TARBALL" | cut -f1))"
