#!/usr/bin/env bash
# Builds ForgeLM's runnable image from the module jars that the dist pom collected.
# Run by the build (exec-maven-plugin, phase package) with these variables set:
#   JLINK              the build JDK's jlink
#   MODULE_PATH        the application's modular jars (Mustache.java already given a descriptor)
#   IMAGE_MODULES      comma-separated root modules: ForgeLM's, its built-in plugins, extra JDK ones
#   IMAGE_JVM_OPTIONS  options baked into the image's java (jlink --add-options)
#   IMAGE              the image folder to (re)create
#   TARBALL, TARBALL_ROOT  the .tar.gz to write and the folder name inside it
#   LLAMA_LIB, LLAMA_SRC   the llama.cpp cache filled by plugins/llamacpp/natives.sh
set -euo pipefail

# shellcheck source=build-env.sh
. "$(dirname "${BASH_SOURCE[0]}")/build-env.sh"
need "mvn package -pl dist -am" JLINK MODULE_PATH IMAGE_MODULES IMAGE_JVM_OPTIONS IMAGE TARBALL TARBALL_ROOT LLAMA_LIB LLAMA_SRC
[ -x "$JLINK" ] || die "no jlink at $JLINK: build with a full JDK 25, not a JRE"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

shopt -s nullglob
libs=("$LLAMA_LIB"/*.so)
[ ${#libs[@]} -gt 0 ] || die "no llama.cpp libraries in $LLAMA_LIB; build plugins/llamacpp first (its natives.sh fills the cache): mvn package -pl dist -am"

# Tidy the list: an empty extra-modules property leaves a stray comma.
modules="$(echo "$IMAGE_MODULES" | tr -s ', ' ',' | sed 's/^,//; s/,$//')"

# Jars of classes too old for the AOT cache (picocli's are Java 5's version 49) are rewritten as
# version 52 first, and put ahead of the originals on jlink's module path (the first copy of a
# module wins): see src/build/ClassFileUpgrade.java.
upgraded="$(mktemp -d)"
train="$(mktemp -d)"
trap 'rm -rf "$upgraded" "$train"' EXIT
IFS=: read -r -a path_entries <<<"$MODULE_PATH"
"$(dirname "$JLINK")/java" "$here/src/build/ClassFileUpgrade.java" "$upgraded" "${path_entries[@]}" \
    || die "rewriting old class files failed (see above)"

rm -rf "$IMAGE"
"$JLINK" \
    --module-path "$upgraded:$MODULE_PATH" \
    --add-modules "$modules" \
    --add-options="$IMAGE_JVM_OPTIONS" \
    --strip-debug --no-header-files --no-man-pages \
    --output "$IMAGE"

# The launcher: jlink's own --launcher neither follows symlinks nor passes FORGE_OPTS.
install -m 755 "$here/src/bin/forge" "$IMAGE/bin/forge"

# llama.cpp's libraries, where the backend looks: <forge home>/natives/llama/lib.
mkdir -p "$IMAGE/natives/llama/lib"
cp "${libs[@]}" "$IMAGE/natives/llama/lib/"
# libmtmd (images in), built by plugins/llamacpp/mtmd.sh beside the cache's lib/: next to the
# libraries it needs (its RUNPATH has $ORIGIN), where the backend looks for it.
[ -f "$LLAMA_LIB/../mtmd/libmtmd.so" ] || die "no libmtmd in $LLAMA_LIB/../mtmd; build plugins/llamacpp first (its mtmd.sh builds it)"
cp "$LLAMA_LIB/../mtmd/libmtmd.so" "$IMAGE/natives/llama/lib/"
# The OpenMP build of this CPU's ggml-cpu variant and the libgomp it needs, built by
# plugins/llamacpp/ggml-omp.sh beside the cache's lib/ (on x86-64 with a compiler; the backend
# prefers it over the prebuilt variant of the same name): beside the variants, where the backend
# looks for CPU variants and the variant's RUNPATH ($ORIGIN) finds libgomp.
if [ -f "$LLAMA_LIB/../omp/.verified" ]; then
    cp "$LLAMA_LIB/../omp/"libggml-cpu-*-omp.so "$LLAMA_LIB/../omp/libgomp.so.1" "$IMAGE/natives/llama/lib/"
    # libgomp is GCC's (GPL 3 with the GCC Runtime Library Exception): its terms travel with it,
    # as the build machine's package states them.
    mkdir -p "$IMAGE/legal/libgomp"
    for f in /usr/share/doc/libgomp1/copyright /usr/share/common-licenses/GPL-3; do
        [ ! -f "$f" ] || cp "$f" "$IMAGE/legal/libgomp/"
    done
    [ -n "$(ls -A "$IMAGE/legal/libgomp")" ] || die "no license text for libgomp found (/usr/share/doc/libgomp1/copyright)"
else
    echo "build-image.sh: no OpenMP CPU variant in $LLAMA_LIB/../omp (plugins/llamacpp/ggml-omp.sh builds it on x86-64); the image uses the prebuilt variants" >&2
fi
mkdir -p "$IMAGE/legal/llama.cpp"
for f in "$LLAMA_SRC/LICENSE" "$LLAMA_SRC/licenses"; do
    [ -e "$f" ] && cp -R "$f" "$IMAGE/legal/llama.cpp/"
done

mkdir -p "$IMAGE/plugins"
cat > "$IMAGE/plugins/README.txt" <<'TXT'
Drop plugin jars, or folders of jars (a plugin with its own libraries), here; `forge plugins` lists what it finds.
TXT

# An AOT cache (JEP 483/514) from one training run: the classes a server start and a first chat
# load and link, ready-made. It roughly halves the time from launch to /health, so the build fails
# without it (below); the launcher uses it when present, and a JVM that cannot use it starts without it.
# The run serves the model twice: as m, whose template its family's provider renders, and as g with
# the generic provider, which compiles and runs the GGUF's own Jinja (what a model no family claims
# gets, bench/run.sh's mapped model among them). Without g the Jinja engine's ~60 classes were loaded
# from the image at every such start, before the model's load began, and again on its first chat.
if "$IMAGE/bin/forge" model synth -o "$train/m.gguf" >"$train/synth.log" 2>&1 && cp "$train/m.gguf" "$train/g.gguf"; then
    port="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])' 2>/dev/null || echo 18931)"
    FORGE_AOT=off JAVA_OPTS="-XX:AOTCacheOutput=$IMAGE/lib/forge.aot" HOME="$train" \
        "$IMAGE/bin/forge" serve -m "$train/m.gguf" -m "$train/g.gguf" --template g=generic --port "$port" \
        >"$train/serve.log" 2>&1 &
    pid=$!
    for _ in $(seq 1 300); do
        curl -sf "http://127.0.0.1:$port/health" >/dev/null 2>&1 && break
        sleep 0.1
    done
    curl -sf "http://127.0.0.1:$port/v1/models" >/dev/null 2>&1 || true
    for model in m g; do
        curl -sf "http://127.0.0.1:$port/v1/chat/completions" -H 'Content-Type: application/json' \
            -d '{"model":"'"$model"'","max_tokens":4,"messages":[{"role":"system","content":"Be brief."},{"role":"user","content":"hi"}]}' \
            >/dev/null 2>&1 || true
    done
    kill "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
fi
if [ -s "$IMAGE/lib/forge.aot" ]; then
    echo "build-image.sh: AOT cache $(du -sh "$IMAGE/lib/forge.aot" | cut -f1)"
else
    # Without the cache the image starts about twice as slowly, and an empty one (the JVM that
    # writes it crashed) makes every start print errors: a build that cannot write it fails.
    rm -f "$IMAGE/lib/forge.aot"
    cat "$train"/*.log >&2 || true
    die "no AOT cache was written (the training run's log is above)"
fi

# The tarball, with the image under one top folder.
rm -f "$TARBALL"
tar -czf "$TARBALL" -C "$(dirname "$IMAGE")" --transform "s,^$(basename "$IMAGE"),$TARBALL_ROOT," "$(basename "$IMAGE")"

echo "build-image.sh: $IMAGE ($(du -sh "$IMAGE" | cut -f1)), $(basename "$TARBALL") ($(du -sh "$TARBALL" | cut -f1))"
echo "build-image.sh: modules: $("$IMAGE/bin/java" --list-modules | sed 's/@.*//' | tr '\n' ' ')"
