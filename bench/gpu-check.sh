#!/usr/bin/env bash
# The GPU check: ForgeLM on its CUDA backend against llama.cpp's own llama-bench, on the same GPU,
# the same model file and the same llama.cpp build, as ratios. For the GPU machine some tasks are
# lent (one H200, 16 cores, no JDK, no network, nvcc 13, cmake, ninja, the CUDA runtime in its
# Python packages); DEVELOPERS.md says how to know whether a task has one and how to run this.
#
#   bench/gpu-check.sh pack [DIR]       here, after `mvn -B package`: writes DIR/gpu-check.tar.gz
#                                        (default DIR: bench/target/gpu-check), at most 64 MiB
#   bench/gpu-check.sh run [PAYLOAD]    on the GPU machine, in one command (under 8 minutes):
#                                        unpack, build ggml's CUDA backend for sm_90 and llama-bench
#                                        from the bundled llama.cpp source, make a Qwen3-4B-shape Q6_K
#                                        model, run llama-bench, serve it with ForgeLM on the CUDA
#                                        backend, run the seed workload and the decode workload;
#                                        results under $OUT (default: bench/target/gpu-check/out)
#
# The payload: the jlink image without its AOT cache and CPU natives (the GPU build brings its own),
# the CUDA plugin jar in the image's plugins/, the load generator's jar (it runs on the image's own
# Java, which links java.net.http for it), and the llama.cpp source it needs to build (no models but
# the Qwen2 vocabulary, no docs, no tests). Every step is timed and logged; any failure stops the
# run with the step's log tail and leaves what was done under $OUT.
#
# Then speculative decoding with a draft model (bench/run.sh's draft workload, ForgeLM's side): the
# model served with the same request with "speculative.n_max": 0 (plain) and with drafts from
#   self    the model as its own draft (every draft accepted: the verify batch's upper bound),
#   small   a Qwen2.5-0.5B-shape draft with the same vocabulary and other random weights (rejected:
#           what drafting costs), and at set acceptance rates with --spec-synth-len 2 and 3,
# each --spec-draft-n-max 4, interleaved with plain on the same server: spec.txt, RATIO lines.
#
# Knobs (run): GPU_CHECK_JOBS (default: nproc), GPU_CHECK_ARCH (90), GPU_CHECK_RUNS (seed/ttft
# runs, default 10), GPU_CHECK_TOKENS (128), GPU_CHECK_WORK (build folder, default /tmp/gpu-check),
# GPU_CHECK_SPEC (1; 0 leaves out the draft-model runs).
set -euo pipefail

SYNTH_PID=""
SERVER_PID=""
LIMIT_BYTES=$((64 * 1024 * 1024))
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/.." && pwd)"
START=$(date +%s)

die() { echo "gpu-check.sh: ERROR: $*" >&2; exit 1; }

# Whatever still runs in the background when the script ends (a failed step): the model writer, the server.
cleanup() {
    local p
    for p in "$SYNTH_PID" "$SERVER_PID"; do
        if [ -n "$p" ]; then
            kill "$p" 2>/dev/null || true
        fi
    done
}
trap cleanup EXIT
log() { echo "gpu-check.sh [$(( $(date +%s) - START ))s] $*" >&2; }

# step NAME COMMAND...: runs COMMAND with its output in $LOGS/NAME.log, timed; on failure prints the tail and stops.
step() {
    local name="$1"
    shift
    local t0 rc=0
    t0=$(date +%s)
    log "step $name: $*"
    "$@" > "$LOGS/$name.log" 2>&1 || rc=$?
    local took=$(( $(date +%s) - t0 ))
    echo "$name $took s rc=$rc" >> "$LOGS/steps.txt"
    if [ "$rc" -ne 0 ]; then
        echo "---- tail of $LOGS/$name.log" >&2
        tail -n 40 "$LOGS/$name.log" >&2 || true
        die "step $name failed (rc=$rc after ${took}s)"
    fi
    log "step $name done in ${took}s"
}

# ------------------------------------------------------------------------------------------ pack
pack() {
    local dir="${1:-$ROOT/bench/target/gpu-check}"
    local image="$ROOT/dist/target/forge"
    local cuda_jar bench_jar src
    [ -x "$image/bin/java" ] || die "no image at $image: build it first (mvn -B package)"
    cuda_jar=""
    local j
    for j in "$ROOT"/plugins/llamacpp-cuda/target/forge-backend-llamacpp-cuda-*.jar; do
        case "$j" in *-tests.jar | *-sources.jar) ;; *) cuda_jar="$j" ;; esac
    done
    [ -f "$cuda_jar" ] || die "no CUDA plugin jar in plugins/llamacpp-cuda/target (mvn -B package)"
    bench_jar="$ROOT/bench/target/forge-bench.jar"
    [ -f "$bench_jar" ] || die "no $bench_jar (mvn -B package)"
    "$image/bin/java" --list-modules | grep -q '^java.net.http@' || die "the image lacks java.net.http, which the load generator needs"
    src="${LLAMA_SRC:-${FORGE_CACHE:-$HOME/.cache/forge}/llama-3.22.1/src}"
    if [ ! -f "$src/CMakeLists.txt" ] || [ ! -f "$src/models/ggml-vocab-qwen2.gguf" ]; then
        die "no llama.cpp source at $src (plugins/llamacpp/natives.sh fills it)"
    fi

    rm -rf "$dir"
    mkdir -p "$dir/stage/payload"
    local stage="$dir/stage/payload"
    cp -a "$image" "$stage/image"
    rm -f "$stage/image/lib/forge.aot"     # the AOT cache: big, and only a start-up speed-up
    rm -rf "$stage/image/natives/llama"    # the CPU natives: the GPU build brings its own
    mkdir -p "$stage/image/plugins/llamacpp-cuda"
    cp "$cuda_jar" "$stage/image/plugins/llamacpp-cuda/"
    mkdir -p "$stage/bench"
    cp "$bench_jar" "$stage/bench/"
    mkdir -p "$stage/llama.cpp/models"
    tar -C "$src" -cf - --exclude=.git --exclude=./models --exclude=./docs --exclude=./tests --exclude=./examples \
        --exclude=./pocs --exclude=./app --exclude=./media --exclude=./benches --exclude=./.github \
        --exclude=./tools/server/public --exclude=./tools/ui . | tar -C "$stage/llama.cpp" -xf -
    cp "$src/models/ggml-vocab-qwen2.gguf" "$stage/llama.cpp/models/"
    # gzip, not xz: 35 MiB instead of 24, but packed in seconds on 2 cores (xz took minutes) and
    # unpacked by any tar.
    tar -C "$dir/stage" -cf - payload | gzip -6 > "$dir/gpu-check.tar.gz"
    rm -rf "$dir/stage"
    local size
    size=$(stat -c %s "$dir/gpu-check.tar.gz")
    echo "gpu-check.sh: packed $dir/gpu-check.tar.gz ($((size / 1024 / 1024)) MiB of $((LIMIT_BYTES / 1024 / 1024)) MiB)"
    [ "$size" -le "$LIMIT_BYTES" ] || die "the payload is $size bytes, over the $LIMIT_BYTES bytes a device command carries"
}

# ------------------------------------------------------------------------------------------- run
# The Python nvidia-* packages' folder (site-packages/nvidia), where the GPU machine has the CUDA
# runtime and cuBLAS; empty when there is none. GPU_CHECK_NVIDIA_BASE overrides it.
nvidia_base() {
    if [ -n "${GPU_CHECK_NVIDIA_BASE:-}" ]; then
        echo "$GPU_CHECK_NVIDIA_BASE"
        return
    fi
    local py
    for py in python3 python; do
        command -v "$py" >/dev/null 2>&1 || continue
        "$py" -c 'import nvidia; print(list(nvidia.__path__)[0])' 2>/dev/null || true
        return
    done
}

# The CUDA toolkit's root: the folder above nvcc's bin/ when it has the headers, else /usr/local/cuda
# (some machines have nvcc copied to /usr/local/bin and the toolkit in /usr/local/cuda-13.0).
toolkit_root() {
    local nvcc root
    nvcc="$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)"
    root="$(dirname "$(dirname "$(readlink -f "$nvcc")")")"
    if [ -f "$root/include/cuda_runtime.h" ] || [ ! -d /usr/local/cuda ]; then
        echo "$root"
    else
        readlink -f /usr/local/cuda
    fi
}

# The first file named $1 in the toolkit (lib64, lib, targets/, include) or the Python nvidia packages.
cuda_file() {
    local root base hit d
    root="$(toolkit_root)"
    for d in "$root/lib64" "$root/lib" "$root/targets/x86_64-linux/lib" "$root/include" "$root/targets/x86_64-linux/include"; do
        if [ -e "$d/$1" ]; then
            echo "$d/$1"
            return
        fi
    done
    base="$(nvidia_base)"
    if [ -n "$base" ] && [ -d "$base" ]; then
        hit="$(find "$base" -name "$1" -print -quit)"
        [ -n "$hit" ] && echo "$hit"
    fi
    return 0
}

# The folders that hold the CUDA 13 runtime (libcudart.so.13, libcublas.so.13, libcublasLt.so.13).
cuda_lib_dirs() {
    local n f
    for n in libcudart.so.13 libcublasLt.so.13 libcublas.so.13; do
        f="$(cuda_file "$n")"
        [ -n "$f" ] && dirname "$f"
    done | awk 'NF && !seen[$0]++'
}

# cmake arguments for what a minimal toolkit (nvcc and cudart) lacks: cuBLAS's headers and
# libraries from the Python packages, the driver's library from the loader's cache (without it,
# ggml-cuda is built without its direct driver calls, GGML_CUDA_NO_VMM).
cuda_cmake_args() {
    local root inc lib drv
    root="$(toolkit_root)"
    inc="$(cuda_file cublas_v2.h)"
    [ -n "$inc" ] || { echo "no cublas_v2.h in $root or the Python nvidia packages" >&2; return 1; }
    inc="$(dirname "$inc")"
    if [ "$inc" != "$root/include" ] && [ "$inc" != "$root/targets/x86_64-linux/include" ]; then
        # cuBLAS's headers beside the Python package's libraries: on the compilers' include path.
        echo "-DCMAKE_CUDA_FLAGS=-I$inc"
        echo "-DCMAKE_CXX_FLAGS=-I$inc"
        echo "-DCMAKE_C_FLAGS=-I$inc"
    fi
    if [ ! -e "$root/lib64/libcublas.so" ] && [ ! -e "$root/lib/libcublas.so" ] && [ ! -e "$root/targets/x86_64-linux/lib/libcublas.so" ]; then
        lib="$(cuda_file libcublas.so.13)"
        [ -n "$lib" ] || { echo "no libcublas.so.13 in $root or the Python nvidia packages" >&2; return 1; }
        echo "-DCUDA_cublas_LIBRARY=$lib"
        lib="$(cuda_file libcublasLt.so.13)"
        [ -n "$lib" ] && echo "-DCUDA_cublasLt_LIBRARY=$lib"
    fi
    drv="$(ldconfig -p 2>/dev/null | awk '/libcuda\.so\.1 .*x86-64/ {print $NF; exit}')"
    if [ -n "$drv" ]; then
        echo "-DCUDA_cuda_driver_LIBRARY=$drv"
    else
        echo "-DGGML_CUDA_NO_VMM=ON"
    fi
}

configure_llama() { # SRC BUILD
    local nvcc
    nvcc="$(toolkit_root)/bin/nvcc"
    [ -x "$nvcc" ] || nvcc="$(command -v nvcc || true)"
    if [ -z "$nvcc" ] || [ ! -x "$nvcc" ]; then
        echo "no nvcc in $(toolkit_root)/bin or on PATH"
        return 1
    fi
    local gen=() extra=()
    command -v ninja >/dev/null 2>&1 && gen=(-G Ninja)
    cuda_cmake_args > "$2.args" || return 1
    mapfile -t extra < "$2.args"
    echo "extra cmake arguments: ${extra[*]}"
    cmake -S "$1" -B "$2" "${gen[@]}" "${extra[@]}" -DCMAKE_BUILD_TYPE=Release \
        -DBUILD_SHARED_LIBS=ON -DGGML_BACKEND_DL=ON -DGGML_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES="${GPU_CHECK_ARCH:-90}" \
        -DCMAKE_CUDA_COMPILER="$nvcc" -DGGML_NATIVE=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF \
        -DLLAMA_BUILD_SERVER=OFF -DLLAMA_BUILD_APP=OFF -DLLAMA_OPENSSL=OFF -DLLAMA_USE_PREBUILT_UI=OFF -DLLAMA_CURL=OFF
}

build_llama() {
    configure_llama "$WORK/payload/llama.cpp" "$WORK/build"
    cmake --build "$WORK/build" -j "${GPU_CHECK_JOBS:-$(nproc)}" --target ggml-cuda ggml-cpu llama-bench llama-quantize
    ls -la "$WORK/build/bin"
    [ -f "$WORK/build/bin/libggml-cuda.so" ] || { echo "no libggml-cuda.so in $WORK/build/bin"; return 1; }
}

# The F16 model, written by ForgeLM's own GGUF writer (Java, no natives): runs beside the build.
synth_f16() {
    "$IMAGE/bin/forge" model synth -o "$WORK/model-f16.gguf" --preset qwen2.5-0.5b \
        --vocab-from "$WORK/payload/llama.cpp/models/ggml-vocab-qwen2.gguf" \
        --embd 2560 --layers 36 --heads 32 --kv-heads 8 --ffn 9728 --ctx 40960 --type F16 --name qwen3-4b-shape
}

# The draft model of the speculative runs: Qwen2.5-0.5B's shape, the same vocabulary, F16 (small: no quantizing).
synth_draft() {
    "$IMAGE/bin/forge" model synth -o "$DRAFT" --preset qwen2.5-0.5b \
        --vocab-from "$WORK/payload/llama.cpp/models/ggml-vocab-qwen2.gguf" --ctx 40960 --type F16 --seed 2 --name draft
}

# spec_run NAME FLAGS...: ForgeLM serving the model with FLAGS, drafts against plain on the same server.
spec_run() {
    local name="$1" pid
    shift
    FORGE_CUDA_NATIVES="$WORK/build/bin" "$IMAGE/bin/forge" serve -m "$MODEL" --alias m --host 127.0.0.1 \
        --port "$SPEC_PORT" --backend llama.cpp-cuda "${libflags[@]}" -ngl all -ngld all -fa on -np 1 -c 4096 "$@" \
        > "$LOGS/serve-$name.log" 2>&1 &
    pid=$!
    SERVER_PID=$pid
    wait_health "http://127.0.0.1:$SPEC_PORT" 240 "$pid" || return 1
    "$IMAGE/bin/java" -p "$WORK/payload/bench/forge-bench.jar" -m forge.bench/forge.bench.LoadGenerator spec \
        --server "$name=http://127.0.0.1:$SPEC_PORT" --server "plain=http://127.0.0.1:$SPEC_PORT" \
        --body 'plain={"speculative.n_max": 0}' --runs "$SPEC_RUNS" --warmup 2 --max-tokens "$SPEC_TOKENS" \
        | sed "s/^RATIO spec\./RATIO spec.$name./" >> "$OUT/spec.txt"
    curl -sf "http://127.0.0.1:$SPEC_PORT/metrics" | grep -E '^llamacpp:spec_decode_num_(draft|accepted)_tokens_total' \
        | sed "s/^/METRIC $name /" >> "$OUT/spec.txt" || true
    kill "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
    SERVER_PID=""
}

# Waits for synth_f16 (started in the background), then quantizes its file to Q6_K with the fresh llama-quantize.
quantize_model() {
    local rc=0
    wait "$SYNTH_PID" || rc=$?
    SYNTH_PID=""
    [ "$rc" -eq 0 ] || { echo "forge model synth failed (rc=$rc):"; cat "$LOGS/synth-f16.log"; return 1; }
    cat "$LOGS/synth-f16.log"
    "$WORK/build/bin/llama-quantize" "$WORK/model-f16.gguf" "$MODEL" Q6_K "${GPU_CHECK_JOBS:-$(nproc)}"
    rm -f "$WORK/model-f16.gguf"
    ls -la "$MODEL"
}

wait_health() { # URL SECONDS PID
    local _
    for _ in $(seq 1 "$(($2 * 2))"); do
        curl -sf "$1/health" >/dev/null 2>&1 && return 0
        kill -0 "$3" 2>/dev/null || { echo "the server exited before /health answered"; return 1; }
        sleep 0.5
    done
    echo "no /health after $2 s"
    return 1
}

llama_bench() { # TOKENS
    "$WORK/build/bin/llama-bench" -m "$MODEL" -ngl 99 -fa 1 -p 512 -n "$1" -r 3 -o json > "$OUT/llama-bench.json"
    cat "$OUT/llama-bench.json"
}

# load WORKLOAD OUTFILE ARGS...: bench/'s load generator on the image's own Java, against ForgeLM.
load() {
    local workload="$1" outfile="$2"
    shift 2
    "$IMAGE/bin/java" -p "$WORK/payload/bench/forge-bench.jar" -m forge.bench/forge.bench.LoadGenerator \
        "$workload" --server "forge=$BASE" "$@" > "$outfile"
    cat "$outfile"
}

check_props() {
    curl -sf "$BASE/props" > "$OUT/props.json"
    cat "$OUT/props.json"
    echo
    python3 - "$OUT/props.json" <<'PY'
import json, sys
b = json.load(open(sys.argv[1]))["backend"]
assert b["name"] == "llama.cpp-cuda", "the backend is " + b["name"]
assert any(d["type"] == "gpu" for d in b["devices"]), "no GPU device: %s" % b["devices"]
o = b["offload"]
assert o["n_gpu_layers"] == o["n_layers"], "only %s of %s layers on the GPU: %s" % (o["n_gpu_layers"], o["n_layers"], o.get("reason"))
print("backend", b["name"], "offload", o)
PY
}

run() {
    local payload="${1:-$ROOT/bench/target/gpu-check/gpu-check.tar.gz}"
    [ -f "$payload" ] || die "no payload at $payload (bench/gpu-check.sh pack, then carry bench/target/gpu-check)"
    OUT="${OUT:-$ROOT/bench/target/gpu-check/out}"
    mkdir -p "$OUT"
    OUT="$(cd "$OUT" && pwd)"
    LOGS="$OUT/logs"
    mkdir -p "$LOGS"
    : > "$LOGS/steps.txt"
    WORK="${GPU_CHECK_WORK:-/tmp/gpu-check}"
    rm -rf "$WORK"
    mkdir -p "$WORK"
    IMAGE="$WORK/payload/image"
    MODEL="$WORK/qwen3-4b-shape-q6_k.gguf"
    local port=18431
    BASE="http://127.0.0.1:$port"
    local runs="${GPU_CHECK_RUNS:-10}" tokens="${GPU_CHECK_TOKENS:-128}"

    { nvidia-smi || true; nproc; uname -a; } > "$OUT/machine.txt" 2>&1
    step unpack tar -C "$WORK" -xzf "$payload"
    mapfile -t libdirs < <(cuda_lib_dirs)
    [ ${#libdirs[@]} -gt 0 ] || die "no libcudart.so.13 / libcublas.so.13 in the Python nvidia packages or /usr/local/cuda"
    log "CUDA runtime folders: ${libdirs[*]}"
    local libflags=()
    for d in "${libdirs[@]}"; do libflags+=(--cuda-lib-dir "$d"); done
    local joined
    joined="$(IFS=:; echo "${libdirs[*]}")"
    export LD_LIBRARY_PATH="$joined${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"

    log "writing the F16 model in the background (logs/synth-f16.log)"
    synth_f16 > "$LOGS/synth-f16.log" 2>&1 &
    SYNTH_PID=$!
    step build build_llama
    step quantize quantize_model
    step plugins env FORGE_CUDA_NATIVES="$WORK/build/bin" "$IMAGE/bin/forge" plugins "${libflags[@]}"
    grep -q '\* llama.cpp-cuda' "$LOGS/plugins.log" || die "forge plugins does not choose llama.cpp-cuda: see $LOGS/plugins.log"

    step llama-bench llama_bench "$tokens"

    log "starting ForgeLM on the CUDA backend"
    FORGE_CUDA_NATIVES="$WORK/build/bin" "$IMAGE/bin/forge" serve -m "$MODEL" --alias m --host 127.0.0.1 --port "$port" \
        --backend llama.cpp-cuda "${libflags[@]}" -ngl all -fa on -np 1 -c 4096 > "$LOGS/serve.log" 2>&1 &
    SERVER_PID=$!
    step health wait_health "$BASE" 240 "$SERVER_PID"
    step props check_props
    step seed load seed "$OUT/seed.txt" --runs "$runs" --warmup 2 --max-tokens "$tokens"
    step ttft load ttft "$OUT/ttft.txt" --runs "$runs" --warmup 2 --max-tokens "$tokens" --llama-bench "$OUT/llama-bench.json"
    kill "$SERVER_PID" 2>/dev/null || true
    wait "$SERVER_PID" 2>/dev/null || true
    SERVER_PID=""

    : > "$OUT/spec.txt"
    if [ "${GPU_CHECK_SPEC:-1}" = 1 ]; then
        DRAFT="$WORK/draft-0.5b-f16.gguf"
        SPEC_PORT=$((port + 1)) SPEC_RUNS="$runs" SPEC_TOKENS="$tokens"
        step synth-draft synth_draft
        step spec-self spec_run self -md "$MODEL" --spec-draft-n-max 4
        step spec-small spec_run small -md "$DRAFT" --spec-draft-n-max 4
        step spec-synth2 spec_run synth_l2 -md "$DRAFT" --spec-draft-n-max 4 --spec-synth-len 2
        step spec-synth3 spec_run synth_l3 -md "$DRAFT" --spec-draft-n-max 4 --spec-synth-len 3
    fi

    {
        echo "# GPU check: ForgeLM llama.cpp-cuda vs llama-bench ($(date -u +%Y-%m-%dT%H:%MZ))"
        echo
        echo "- machine: $(grep -m1 -o 'NVIDIA [A-Z0-9 ]*' "$OUT/machine.txt" || echo unknown GPU), $(nproc) cores"
        echo "- model: synthetic Qwen3-4B shape (2560 wide, 36 layers, 32/8 heads, ffn 9728, Qwen2 vocabulary), Q6_K, $(stat -c %s "$MODEL") bytes"
        echo "- llama.cpp v0.5.0 built here for sm_${GPU_CHECK_ARCH:-90}; llama-bench -ngl 99 -fa 1 -p 512 -n $tokens; ForgeLM -ngl all -fa on -np 1 -c 4096"
        echo "- goal: decode >= 0.97 x llama-bench tg"
        echo
        echo '```'
        cat "$OUT/seed.txt" "$OUT/ttft.txt" "$OUT/spec.txt"
        echo '```'
        echo
        echo "steps (seconds): $(tr '\n' ';' < "$LOGS/steps.txt")"
    } > "$OUT/gpu-check.md"
    cat "$OUT/gpu-check.md"
    log "done in $(( $(date +%s) - START ))s; results in $OUT"
}

case "${1:-}" in
    pack) shift; pack "$@" ;;
    run) shift; run "$@" ;;
    configure) shift; configure_llama "$@" ;; # the build's configure step alone (SRC BUILD): tried here on a machine with nvcc
    *) die "usage: gpu-check.sh pack [DIR] | run [PAYLOAD] | configure SRC BUILD" ;;
esac
