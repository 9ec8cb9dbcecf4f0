#!/usr/bin/env bash
# ForgeLM side by side with llama.cpp's own llama-server (and llama-bench, the raw engine's limit),
# on this machine, on loopback only. Never run by CI: it takes minutes and needs the peer build.
#
#   bench/run.sh                     every workload: llama-bench seed ttft conc shared sessions restart startup rss
#   bench/run.sh seed ttft           only these
#   BENCH_SERVERS=peer bench/run.sh  one side only (forge or peer), e.g. to check the harness
#
# Prints METRIC/RATIO lines (stdout) and progress (stderr); keeps every line in
# bench/target/results/metrics.txt and, after a run of both servers, writes bench/RESULTS.md.
#
# Settings (environment), with their defaults:
#   BENCH_THREADS=$(nproc)  -t of both servers and llama-bench
#   BENCH_CTX=8192          -c of both servers (KV cells for all slots together, in both)
#   BENCH_NP=8              -np of both servers (conc's 8-client variant needs 8 slots)
#   BENCH_KV_UNIFIED=0      1: both servers with -kvu (one KV pool of BENCH_CTX cells for all slots)
#   BENCH_PORT=18090        ForgeLM's port; llama-server gets +1, the startup/rss launches +10/+11
#   BENCH_MODEL             the benchmark model (default: made once with forge model synth, cached)
#   BENCH_SMALL_MODEL       the startup workload's model (default: the tiny preset, cached)
#   BENCH_MAPPED_MODEL      the mapped workload's model (default: ~1.9 GB, random weights of Qwen2.5-1.5B's
#                           shape, Q8_0, made once with forge model synth and cached)
#   BENCH_MAPPED_ARGS="-c 2048 -np 1 -t \$BENCH_THREADS"  both servers' flags in the mapped workload
#   BENCH_MAPPED_NOMMAP=1   0: the mapped workload leaves out ForgeLM with --no-mmap (a third figure)
#   BENCH_SEED_RUNS=30 BENCH_SEED_TOKENS=32 BENCH_TTFT_RUNS=10 BENCH_TTFT_TOKENS=128
#   BENCH_CONC_CLIENTS=4,8 BENCH_CONC_ROUNDS=3 BENCH_CONC_TOKENS=32
#   BENCH_SHARED_ROUNDS=5 BENCH_SHARED_TOKENS=16 BENCH_LAUNCHES=3
#   BENCH_SESSIONS=$((2 * BENCH_NP)) BENCH_SESSION_TURNS=3 BENCH_SESSION_TOKENS=16
#   BENCH_RESTART_SESSIONS=4 BENCH_RESTART_ROUNDS=3 (restart: sessions primed, then a restart, then their next turns)
#   BENCH_BUILD=0           1: rebuild the ForgeLM image (mvn -B package -DskipTests) first
#   BENCH_RESULTS=1         0: do not rewrite bench/RESULTS.md
#   BENCH_SAMPLER_RUNS=10 BENCH_SAMPLER_TOKENS=128 BENCH_SAMPLER_STAGE=loop_guard
#
# The mapped workload (not in the default list: it makes a ~2 GB model) starts each server on a large
# model, BENCH_LAUNCHES times, interleaved: time to /health 200 and to a one-token completion's answer;
# then two processes of each on the same file, for their RSS and PSS together. Run alone
# (bench/run.sh mapped), it rewrites only its own section of bench/RESULTS.md.
#
# The sampler workload (not in the default list) measures ForgeLM against itself: the same
# streamed requests with and without a plugin sampler stage in the chain, interleaved request by
# request; its RATIO lines are with / without (ttft.decode_tps_mean is the decode speed's).
# The spec, draft and kvpool workloads (not in the default list; run each alone) compare a setting
# with its absence on both servers in one run: the plain pair (no drafts; kvpool: a stream per slot)
# runs for the whole workload, and for each configuration a pair of servers with its flags (the same
# settings in each one's names) is started beside it; all four are interleaved request by request
# (A B C D, B C D A, ...), so a change of the machine's load reaches each alike. Besides each server's
# METRIC lines, per configuration: RATIO <w>.<config>.forge_vs_peer (ForgeLM / llama-server with the
# setting), .forge_vs_plain and .peer_vs_plain (each server with the setting / without it, decode
# tokens/s as the servers' timings say), and a summary line SPEC <w> <config> with the tokens/s.
#
# spec: n-gram drafting (--spec-type ngram-simple, draft max 48, n 12), the ttft workload's streamed
# request, -c 4096 -np 1. Configurations: ngram (real verification: on random weights the greedy
# output repeats itself, so nearly every draft is accepted); ngram_lL (llama-server's benchmark-only
# --spec-synth-len L on both: a step yields L tokens on average; ngram_l1: every draft rejected, what
# drafting costs, issue 26's goal (a) of at most 3% slower than plain).
#   BENCH_SPEC_RUNS=6 BENCH_SPEC_TOKENS=256 BENCH_SPEC_CONFIGS="ngram_l1 ngram ngram_l2 ngram_l3 ngram_l4"
#
# draft: draft-model drafting, -c 4096 -np 1. Configurations: small_lL (a small draft with the
# benchmark model's vocabulary, 2 layers, 128 wide, random weights, n-max 4, --spec-synth-len L;
# small_l1: every draft rejected, goal (a) with a draft model); small (its own verification: on these
# random weights both fall into the same repeated token, so its drafts are accepted); self_nN (the
# model as its own draft, --spec-draft-n-max N: every draft accepted, the verify batch's upper bound);
# synth_lL (the model as its own draft, n-max 4, --spec-synth-len L); rejected (a draft of the model's
# shape with other weights, n-max 4). A draft as large as the model costs as much per draft token as
# the model itself: on a CPU the upper bound, not a speed-up.
#   BENCH_DRAFT_RUNS=3 BENCH_DRAFT_TOKENS=256
#   BENCH_DRAFT_CONFIGS="small_l1 small_l2 small_l3 small_l4 self_n4 synth_l2 synth_l3 synth_l4"
#   BENCH_DRAFT_OTHER   the rejected configuration's draft (default: the benchmark model's shape, seed 2, cached)
#   BENCH_DRAFT_SMALL   the small configurations' draft (default: made once, cached)
#
# kvpool: the sessions workload (more sessions than slots, each returning after all the others had a
# turn) on -c BENCH_CTX -np BENCH_NP, each server with -kvu (one KV pool for all slots) beside itself
# with a stream per slot; its ratios are of returning_ttft_p50_ms (lower is better: kvu_vs_slots < 1
# means the pool is faster).
set -euo pipefail

# shellcheck source=common.sh
. "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/common.sh"

LLAMA_SRC="$CACHE/llama-3.22.1/src"
PEER_BUILD="$CACHE/peer/build"
LLAMA_SERVER="$PEER_BUILD/bin/llama-server"
LLAMA_BENCH="$PEER_BUILD/bin/llama-bench"
THREADS="${BENCH_THREADS:-$(nproc)}"
CTX="${BENCH_CTX:-8192}"
NP="${BENCH_NP:-8}"
PORT="${BENCH_PORT:-18090}"
PEER_PORT=$((PORT + 1))
MODEL="${BENCH_MODEL:-$CACHE/bench/qwen2.5-0.5b-q8_0.gguf}"
SMALL_MODEL="${BENCH_SMALL_MODEL:-$CACHE/bench/tiny.gguf}"
MAPPED_MODEL="${BENCH_MAPPED_MODEL:-$CACHE/bench/qwen2.5-1.5b-shape-q8_0.gguf}"
SERVERS="${BENCH_SERVERS:-forge peer}"
OUT="$ROOT/bench/target/results"
IMAGE="$ROOT/bench/target/forge-image"
WORKLOADS=("$@")
[ ${#WORKLOADS[@]} -gt 0 ] || WORKLOADS=(llama-bench seed ttft conc shared sessions restart startup rss)

wants() { [[ " $SERVERS " == *" $1 "* ]]; }

mkdir -p "$OUT" "$(dirname "$MODEL")"
: > "$OUT/metrics.txt"

# ---- the load generator (JDK + Jackson only)
if [ ! -f bench/target/forge-bench.jar ] || [ -n "$(find bench/src bench/pom.xml -newer bench/target/forge-bench.jar -print -quit)" ]; then
    log "building the load generator"
    mvn -B -q -pl bench package -DskipTests
fi
gen() {
    "$JAVA_HOME/bin/java" -p bench/target/forge-bench.jar:bench/target/lib -m forge.bench/forge.bench.LoadGenerator "$@"
}

# ---- ForgeLM: a snapshot of the image, so that a rebuild during the run does not change it
if wants forge; then
    if [ "${BENCH_BUILD:-0}" = 1 ] || [ ! -x dist/target/forge/bin/forge ]; then
        log "building the ForgeLM image (mvn -B package -DskipTests)"
        mvn -B -q package -DskipTests
    fi
    rm -rf "$IMAGE"
    cp -a dist/target/forge "$IMAGE"
    "$IMAGE/bin/forge" --version >/dev/null || die "the ForgeLM image in dist/target/forge does not run"
fi
FORGE="$IMAGE/bin/forge"

# ---- the peer: llama-server and llama-bench from the same llama.cpp release as our natives
build_peer() {
    if [ ! -f "$LLAMA_SRC/CMakeLists.txt" ]; then
        log "fetching the llama.cpp source (plugins/llamacpp/natives.sh)"
        bash plugins/llamacpp/natives.sh "$CACHE/llama-3.22.1"
    fi
    log "building llama-server and llama-bench into $PEER_BUILD (about 10 minutes on 2 cores)"
    mkdir -p "$(dirname "$PEER_BUILD")"
    cmake -S "$LLAMA_SRC" -B "$PEER_BUILD" -DCMAKE_BUILD_TYPE=Release -DBUILD_SHARED_LIBS=ON -DGGML_NATIVE=ON \
        -DLLAMA_OPENSSL=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_USE_PREBUILT_UI=OFF \
        > "$CACHE/peer/cmake.log" 2>&1
    cmake --build "$PEER_BUILD" -j "$(nproc)" --target llama-server llama-bench > "$CACHE/peer/build.log" 2>&1 \
        || die "the peer build failed: see $CACHE/peer/build.log"
}
if wants peer || [[ " ${WORKLOADS[*]} " == *" llama-bench "* ]]; then
    # Another build into the same folder may be running (its log still growing): wait for it.
    while { [ ! -x "$LLAMA_SERVER" ] || [ ! -x "$LLAMA_BENCH" ]; } && [ -f "$CACHE/peer/build.log" ] \
            && [ ! -f "$CACHE/peer/done" ] && [ -n "$(find "$CACHE/peer/build.log" -mmin -3 2>/dev/null)" ]; do
        log "waiting for the peer build already running ($(tail -n 1 "$CACHE/peer/build.log" | cut -c1-60))"
        sleep 30
    done
    if [ ! -x "$LLAMA_SERVER" ] || [ ! -x "$LLAMA_BENCH" ]; then
        build_peer
    fi
fi

# ---- models: random weights of a real shape, made once and cached
synth() { # FILE ARGS...
    local file="$1"
    shift
    [ -s "$file" ] && return 0
    local synth_forge="$FORGE"
    [ -x "$synth_forge" ] || synth_forge="$ROOT/dist/target/forge/bin/forge"
    [ -x "$synth_forge" ] || die "$file is missing and there is no ForgeLM image to make it (mvn -B package)"
    log "making $file"
    "$synth_forge" model synth "$@" -o "$file.part"
    mv "$file.part" "$file"
}
for w in "${WORKLOADS[@]}"; do
    # Every workload but startup and mapped (models of their own) runs on the benchmark model.
    case "$w" in startup | mapped) ;; *) synth "$MODEL" --preset qwen2.5-0.5b --quantize Q8_0 ;; esac
done
if [[ " ${WORKLOADS[*]} " == *" startup "* ]]; then
    synth "$SMALL_MODEL" --preset tiny
fi
DRAFT_OTHER="${BENCH_DRAFT_OTHER:-$CACHE/bench/qwen2.5-0.5b-q8_0-seed2.gguf}"
DRAFT_SMALL="${BENCH_DRAFT_SMALL:-$CACHE/bench/qwen2-vocab-2x128-q8_0.gguf}"
if [[ " ${WORKLOADS[*]} " == *" draft "* ]]; then
    # The same shape and vocabulary as the benchmark model, other random weights: a draft that is rejected.
    if [[ " ${BENCH_DRAFT_CONFIGS:-} " == *" rejected "* ]]; then
        synth "$DRAFT_OTHER" --preset qwen2.5-0.5b --quantize Q8_0 --seed 2
    fi
    # A small draft with the same vocabulary (2 layers, 128 wide): cheap to run, its drafts rejected.
    synth "$DRAFT_SMALL" --preset qwen2.5-0.5b --embd 128 --layers 2 --heads 2 --kv-heads 1 --ffn 256 --quantize Q8_0 --seed 3
fi
if [[ " ${WORKLOADS[*]} " == *" mapped "* ]]; then
    # Qwen2.5-1.5B's shape (1536 wide, 28 layers, 12 heads, 2 KV heads, FFN 8960), written F16 then quantized.
    synth "$MAPPED_MODEL" --preset qwen2.5-0.5b --embd 1536 --layers 28 --heads 12 --kv-heads 2 --ffn 8960 \
        --type F16 --quantize Q8_0
fi

FORGE_ARGS=(-c "$CTX" -np "$NP" -t "$THREADS")
PEER_ARGS=(-c "$CTX" -np "$NP" -t "$THREADS")
# One KV pool for all slots on both servers (llama-server's -np N alone gives a stream per slot, as ForgeLM's default).
if [ "${BENCH_KV_UNIFIED:-0}" = 1 ]; then
    FORGE_ARGS+=(-kvu)
    PEER_ARGS+=(-kvu)
fi

load="$(cut -d' ' -f1 /proc/loadavg)"
if awk -v l="$load" -v n="$(nproc)" 'BEGIN { exit !(l > n / 2) }'; then
    log "WARNING: load average $load on $(nproc) CPUs: other work will disturb the figures"
fi
LOAD_BEFORE="$(cut -d' ' -f1-3 /proc/loadavg)"

# ---- servers for the HTTP workloads
# shellcheck source=servers.sh
. "$ROOT/bench/servers.sh"

run() { # WORKLOAD ARGS...: its METRIC/RATIO lines to stdout and metrics.txt
    log "workload $1"
    gen "$@" | tee -a "$OUT/metrics.txt"
}

# llama-bench first, alone on the machine: the engine's limit with nothing else loaded.
LLAMA_BENCH_JSON="$OUT/llama-bench.json"
if [[ " ${WORKLOADS[*]} " == *" llama-bench "* ]]; then
    log "llama-bench -m $MODEL -t $THREADS -p 512 -n 128"
    "$LLAMA_BENCH" -m "$MODEL" -t "$THREADS" -p 512 -n 128 -o json > "$LLAMA_BENCH_JSON" 2> "$OUT/llama-bench.log" \
        || die "llama-bench failed: see $OUT/llama-bench.log"
    run llama-bench --llama-bench "$LLAMA_BENCH_JSON"
fi

SERVER_ARGS=()
needs_servers=0
for w in "${WORKLOADS[@]}"; do
    case "$w" in seed | ttft | conc | shared | sessions | sampler) needs_servers=1 ;; esac
done
if [ "$needs_servers" = 1 ]; then
    if wants forge; then
        log "starting ForgeLM on 127.0.0.1:$PORT"
        "$FORGE" serve -m "$MODEL" --host 127.0.0.1 --port "$PORT" "${FORGE_ARGS[@]}" > "$OUT/forge.log" 2>&1 &
        PIDS+=($!)
        wait_ready forge "$PORT" "$!"
        SERVER_ARGS+=(--server "forge=http://127.0.0.1:$PORT")
    fi
    if wants peer; then
        log "starting llama-server on 127.0.0.1:$PEER_PORT"
        "$LLAMA_SERVER" -m "$MODEL" --host 127.0.0.1 --port "$PEER_PORT" "${PEER_ARGS[@]}" > "$OUT/peer.log" 2>&1 &
        PIDS+=($!)
        wait_ready peer "$PEER_PORT" "$!"
        SERVER_ARGS+=(--server "peer=http://127.0.0.1:$PEER_PORT")
    fi
fi

launch_args() { # MODEL: --server/--cmd pairs of the startup and rss launches
    local args=()
    if wants forge; then
        args+=(--server "forge=http://127.0.0.1:$((PORT + 10))"
            --cmd "forge=$FORGE serve -m $1 --host 127.0.0.1 --port $((PORT + 10)) ${FORGE_ARGS[*]}")
    fi
    if wants peer; then
        args+=(--server "peer=http://127.0.0.1:$((PORT + 11))"
            --cmd "peer=$LLAMA_SERVER -m $1 --host 127.0.0.1 --port $((PORT + 11)) ${PEER_ARGS[*]}")
    fi
    printf '%s\n' "${args[@]}"
}

start_pair() { # NAME PORT FORGE_FLAGS PEER_FLAGS SERVER_ARGS...: ForgeLM on PORT, llama-server on PORT+1; sets PAIR
    local name="$1" port="$2" fflags pflags
    read -r -a fflags <<< "$3"
    read -r -a pflags <<< "$4"
    shift 4
    "$FORGE" serve -m "$MODEL" --host 127.0.0.1 --port "$port" "$@" "${fflags[@]}" > "$OUT/forge-$name.log" 2>&1 &
    local fpid=$!
    PIDS+=("$fpid")
    "$LLAMA_SERVER" -m "$MODEL" --host 127.0.0.1 --port $((port + 1)) --metrics "$@" "${pflags[@]}" > "$OUT/peer-$name.log" 2>&1 &
    local ppid=$!
    PIDS+=("$ppid")
    wait_ready "forge-$name" "$port" "$fpid"
    wait_ready "peer-$name" $((port + 1)) "$ppid"
    PAIR=("$fpid" "$ppid")
}
stop_pair() { # PID PID
    kill "$@" 2>/dev/null || true
    wait "$@" 2>/dev/null || true
}
# WORKLOAD FLAGS_FUNCTION PEER_FLAGS RUNS TOKENS KIND CONFIG...: the plain pair of servers for the whole
# workload, and for each configuration a pair with its flags (FLAGS_FUNCTION CONFIG: forge's flags;
# llama-server takes the same after PEER_FLAGS, which may be empty) beside it, all four interleaved
# request by request; KIND decode (the ttft request, decode tokens/s) or sessions (the sessions
# workload, returning TTFT p50). Prints the RATIO and SPEC lines.
beside_plain() {
    local w="$1" flags_of="$2" peer_flags="$3" runs="$4" tokens="$5" kind="$6" cfg flags peer plain cargs sargs side port m
    shift 6
    wants forge && wants peer || die "the $w workload measures both servers"
    # One slot for the decode workloads (llama-server drafts for -np 1 as for more); the sessions need many.
    sargs=(-c 4096 -np 1 -t "$THREADS")
    [ "$kind" = sessions ] && sargs=(-c "$CTX" -np "$NP" -t "$THREADS")
    start_pair "$w-plain" $((PORT + 20)) "" "" "${sargs[@]}"
    plain=("${PAIR[@]}")
    for cfg in "$@"; do
        flags="$($flags_of "$cfg")"
        peer="${peer_flags:+$peer_flags }$flags"
        log "$w configuration $cfg: forge $flags | peer $peer"
        start_pair "$w-$cfg" $((PORT + 22)) "$flags" "$peer" "${sargs[@]}"
        echo "CONFIG $w $cfg forge: $flags | peer: $peer" >> "$OUT/metrics.txt"
        cargs=(--server "forge_$cfg=http://127.0.0.1:$((PORT + 22))" --server "peer_$cfg=http://127.0.0.1:$((PORT + 23))"
            --server "forge_plain=http://127.0.0.1:$((PORT + 20))" --server "peer_plain=http://127.0.0.1:$((PORT + 21))")
        if [ "$kind" = sessions ]; then
            run sessions "${cargs[@]}" --clients "${BENCH_SESSIONS:-$((2 * NP))}" --runs "$runs" --max-tokens "$tokens"
        else
            run "$w" "${cargs[@]}" --runs "$runs" --warmup 1 --max-tokens "$tokens"
        fi
        # What was drafted and accepted (/metrics, llama-server's names on both): a configuration
        # whose server drafted nothing measured nothing of drafting.
        for side in forge peer; do
            port=$((PORT + 22)); [ "$side" = peer ] && port=$((PORT + 23))
            for m in draft_tokens accepted_tokens; do
                echo "METRIC ${side}_$cfg.$w.$m=$(curl -sf "http://127.0.0.1:$port/metrics" \
                    | awk -v m="llamacpp:spec_decode_num_${m}_total" '$1 ~ "^" m "([{]|$)" { s += $NF } END { print s + 0 }')"
            done
        done | tee -a "$OUT/metrics.txt"
        stop_pair "${PAIR[@]}"
    done
    stop_pair "${plain[@]}"
    # Each configuration against the plain pair measured in the same run (its CONFIG line starts it).
    awk -F'[ =]' -v w="$w" -v kind="$kind" '
        $1 == "CONFIG" { cfg = $2 == w ? $3 : ""; if (cfg != "") order[n++] = cfg; next }
        $1 == "METRIC" && cfg != "" {
            split($2, a, "."); side = substr(a[1], 1, index(a[1], "_") - 1); c = substr(a[1], index(a[1], "_") + 1)
            if (a[2] != (kind == "sessions" ? "sessions" : w)) next
            if (a[3] != (kind == "sessions" ? "returning_ttft_p50_ms" : "server_decode_tps_mean")) next
            v[side, c == "plain" ? "plain:" cfg : cfg] = $3 }
        END { for (i = 0; i < n; i++) { c = order[i]; f = v["forge", c]; p = v["peer", c]; fp = v["forge", "plain:" c]; pp = v["peer", "plain:" c]
            printf "RATIO %s.%s.forge_vs_peer=%.3f\n", w, c, p ? f / p : 0
            printf "RATIO %s.%s.forge_vs_plain=%.3f\n", w, c, fp ? f / fp : 0
            printf "RATIO %s.%s.peer_vs_plain=%.3f\n", w, c, pp ? p / pp : 0
            printf "SPEC %s %s forge=%.3f peer=%.3f forge_plain=%.3f peer_plain=%.3f (%s)\n", w, c, f, p, fp, pp,
                kind == "sessions" ? "returning TTFT p50 ms" : "decode tokens/s" } }' "$OUT/metrics.txt" \
        | tee -a "$OUT/metrics.txt"
}

for w in "${WORKLOADS[@]}"; do
    case "$w" in
        llama-bench) ;; # done above, before the servers started
        seed)
            run seed "${SERVER_ARGS[@]}" --runs "${BENCH_SEED_RUNS:-30}" --warmup 3 --max-tokens "${BENCH_SEED_TOKENS:-32}"
            ;;
        ttft)
            lb=()
            [ -s "$LLAMA_BENCH_JSON" ] && lb=(--llama-bench "$LLAMA_BENCH_JSON")
            run ttft "${SERVER_ARGS[@]}" --runs "${BENCH_TTFT_RUNS:-10}" --warmup 2 \
                --max-tokens "${BENCH_TTFT_TOKENS:-128}" "${lb[@]}"
            ;;
        conc)
            run conc "${SERVER_ARGS[@]}" --clients "${BENCH_CONC_CLIENTS:-4,8}" --runs "${BENCH_CONC_ROUNDS:-3}" \
                --warmup 1 --max-tokens "${BENCH_CONC_TOKENS:-32}"
            ;;
        shared)
            run shared "${SERVER_ARGS[@]}" --clients 4 --runs "${BENCH_SHARED_ROUNDS:-5}" --warmup 1 \
                --max-tokens "${BENCH_SHARED_TOKENS:-16}"
            ;;
        sampler)
            wants forge || die "the sampler workload measures ForgeLM (BENCH_SERVERS=forge)"
            stage="${BENCH_SAMPLER_STAGE:-loop_guard}"
            # llama-server's default order with the stage after penalties and dry: it sees every token.
            order="[\"penalties\", \"dry\", \"$stage\", \"top_n_sigma\", \"top_k\", \"typ_p\", \"top_p\", \"min_p\", \"xtc\", \"temperature\"]"
            run sampler --server "$stage=http://127.0.0.1:$PORT" --server "plain=http://127.0.0.1:$PORT" \
                --body "$stage={\"samplers\": $order}" --runs "${BENCH_SAMPLER_RUNS:-10}" --warmup 2 \
                --max-tokens "${BENCH_SAMPLER_TOKENS:-128}"
            ;;
        spec)
            spec_flags() { # CONFIG: forge's flags, llama-server's too
                case "$1" in
                    ngram) echo "--spec-type ngram-simple" ;;
                    ngram_l*) echo "--spec-type ngram-simple --spec-synth-len ${1#ngram_l}" ;;
                    *) die "unknown spec configuration $1" ;;
                esac
            }
            beside_plain spec spec_flags "" "${BENCH_SPEC_RUNS:-6}" "${BENCH_SPEC_TOKENS:-256}" decode \
                ${BENCH_SPEC_CONFIGS:-ngram_l1 ngram ngram_l2 ngram_l3 ngram_l4}
            ;;
        draft)
            draft_flags() { # CONFIG: forge's flags; llama-server takes them after --spec-type draft-simple
                case "$1" in
                    rejected) echo "-md $DRAFT_OTHER --spec-draft-n-max 4" ;;
                    self_n*) echo "-md $MODEL --spec-draft-n-max ${1#self_n}" ;;
                    small) echo "-md $DRAFT_SMALL --spec-draft-n-max 4" ;;
                    small_l*) echo "-md $DRAFT_SMALL --spec-draft-n-max 4 --spec-synth-len ${1#small_l}" ;;
                    synth_l*) echo "-md $MODEL --spec-draft-n-max 4 --spec-synth-len ${1#synth_l}" ;;
                    *) die "unknown draft configuration $1" ;;
                esac
            }
            beside_plain draft draft_flags "--spec-type draft-simple" "${BENCH_DRAFT_RUNS:-3}" "${BENCH_DRAFT_TOKENS:-256}" decode \
                ${BENCH_DRAFT_CONFIGS:-small_l1 small_l2 small_l3 small_l4 self_n4 synth_l2 synth_l3 synth_l4}
            ;;
        kvpool)
            kvpool_flags() { [ "$1" = kvu ] || die "unknown kvpool configuration $1"; echo "-kvu"; }
            beside_plain kvpool kvpool_flags "" "${BENCH_SESSION_TURNS:-3}" "${BENCH_SESSION_TOKENS:-16}" sessions kvu
            ;;
        sessions)
            run sessions "${SERVER_ARGS[@]}" --clients "${BENCH_SESSIONS:-$((2 * NP))}" \
                --runs "${BENCH_SESSION_TURNS:-3}" --max-tokens "${BENCH_SESSION_TOKENS:-16}"
            ;;
        restart)
            # ForgeLM restarts with its disk prompt cache; llama-server (memory only) starts fresh.
            mapfile -t la < <(launch_args "$MODEL")
            for ((j = 0; j < ${#la[@]}; j++)); do
                [[ "${la[j]}" == forge=*serve* ]] && la[j]="${la[j]} --prompt-cache-dir $OUT/restart-cache"
            done
            run restart "${la[@]}" --clients "${BENCH_RESTART_SESSIONS:-4}" --runs "${BENCH_RESTART_ROUNDS:-3}" \
                --max-tokens "${BENCH_SESSION_TOKENS:-16}" --log-dir "$OUT" --scratch "$OUT/restart-cache"
            ;;
        mapped)
            read -r -a margs <<< "${BENCH_MAPPED_ARGS:--c 2048 -np 1 -t $THREADS}"
            ma=()
            if wants forge; then
                ma+=(--server "forge=http://127.0.0.1:$((PORT + 10))"
                    --cmd "forge=$FORGE serve -m $MAPPED_MODEL --host 127.0.0.1 --port $((PORT + 10)) ${margs[*]}"
                    --server "forge_b=http://127.0.0.1:$((PORT + 12))"
                    --cmd "forge_b=$FORGE serve -m $MAPPED_MODEL --host 127.0.0.1 --port $((PORT + 12)) ${margs[*]}")
            fi
            if wants peer; then
                ma+=(--server "peer=http://127.0.0.1:$((PORT + 11))"
                    --cmd "peer=$LLAMA_SERVER -m $MAPPED_MODEL --host 127.0.0.1 --port $((PORT + 11)) ${margs[*]}"
                    --server "peer_b=http://127.0.0.1:$((PORT + 13))"
                    --cmd "peer_b=$LLAMA_SERVER -m $MAPPED_MODEL --host 127.0.0.1 --port $((PORT + 13)) ${margs[*]}")
            fi
            if wants forge && [ "${BENCH_MAPPED_NOMMAP:-1}" = 1 ]; then
                # ForgeLM reading the weights into memory, as before mapping was its default: a third figure, no ratio.
                ma+=(--server "forge_nommap=http://127.0.0.1:$((PORT + 14))"
                    --cmd "forge_nommap=$FORGE serve -m $MAPPED_MODEL --host 127.0.0.1 --port $((PORT + 14)) --no-mmap ${margs[*]}"
                    --server "forge_nommap_b=http://127.0.0.1:$((PORT + 15))"
                    --cmd "forge_nommap_b=$FORGE serve -m $MAPPED_MODEL --host 127.0.0.1 --port $((PORT + 15)) --no-mmap ${margs[*]}")
            fi
            # The file in the page cache, as for every launch after the first: a read, not a measurement.
            cat "$MAPPED_MODEL" > /dev/null
            run mapped "${ma[@]}" --runs "${BENCH_LAUNCHES:-3}" --log-dir "$OUT"
            ;;
        startup | rss)
            model="$MODEL"
            [ "$w" = startup ] && model="$SMALL_MODEL"
            mapfile -t la < <(launch_args "$model")
            run "$w" "${la[@]}" --model-file "$model" --runs "${BENCH_LAUNCHES:-3}" --log-dir "$OUT"
            ;;
        *) die "unknown workload $w" ;;
    esac
done

# ---- RESULTS.md: the latest figures, with what produced them
section() { # HEADING: that "## HEADING" section of bench/RESULTS.md, up to the next "## " heading
    awk -v h="## $1" 'index($0, h) == 1 { on = 1; print; next } on && /^## / { on = 0 } on' bench/RESULTS.md 2>/dev/null || true
}
then_kept() { # SECTION: a kept section of bench/RESULTS.md after a blank line, when there is one
    if [ -n "$1" ]; then
        echo
        echo "$1"
    fi
}
mapped_section() { # the mapped workload's section, from this run
    echo "## Mapped model start-up"
    echo
    echo "Written by \`bench/run.sh mapped\` (issue 30: weights mapped by default). Ratios are ForgeLM / llama-server."
    echo
    echo "- command: \`bench/run.sh ${WORKLOADS[*]}\`; date: $(date -u +%Y-%m-%dT%H:%M:%SZ); commit: $(git rev-parse HEAD 2>/dev/null || echo unknown)$(git diff --quiet HEAD -- 2>/dev/null || echo ' (with uncommitted changes)')"
    echo "- machine: $(nproc) CPUs, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo) RAM; load average before the run: $LOAD_BEFORE, after: $(cut -d' ' -f1-3 /proc/loadavg)"
    echo "- model: $(basename "$MAPPED_MODEL") ($(du -m "$MAPPED_MODEL" | cut -f1) MiB, in the page cache; random weights, Qwen2.5-1.5B's shape, Q8_0); both servers: \`${BENCH_MAPPED_ARGS:--c 2048 -np 1 -t $THREADS}\`"
    echo "- ${BENCH_LAUNCHES:-3} launches of each, interleaved: process start to \`/health\` 200 (ready) and to the answer of a one-token completion sent then (first_token); then two processes of each serving the file, each answered once: RSS and PSS (\`/proc/PID/smaps_rollup\`, a shared page counted once over both) of the two together"
    echo
    echo '```'
    grep -E '(^| )([a-z_]+\.)?mapped\.' "$OUT/metrics.txt" || true
    echo '```'
}
compared_only=1
for w in "${WORKLOADS[@]}"; do
    case "$w" in spec | draft | kvpool) ;; *) compared_only=0 ;; esac
done
if [ "$compared_only" = 1 ]; then
    # spec, draft and kvpool alone: their figures are in metrics.txt; RESULTS.md's sections on them are written by hand.
    log "figures in $OUT/metrics.txt (bench/RESULTS.md is not rewritten by spec, draft or kvpool alone)"
elif [ "${BENCH_RESULTS:-1}" = 1 ] && wants forge && wants peer && [ "${WORKLOADS[*]}" = mapped ]; then
    # The mapped workload alone: only its section is replaced, before the soak's (which runs to the end).
    {
        awk '/^## Mapped model start-up/ || /^## Soak/ { exit } { print }' bench/RESULTS.md
        mapped_section
        soak="$(sed -n '/^## Soak/,$p' bench/RESULTS.md 2>/dev/null || true)"
        then_kept "$soak"
    } > bench/RESULTS.md.part
    mv bench/RESULTS.md.part bench/RESULTS.md
    log "wrote the mapped section of bench/RESULTS.md"
elif [ "${BENCH_RESULTS:-1}" = 1 ] && wants forge && wants peer; then
    cpu="$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)"
    # The last section, the latest soak (bench/soak.sh), is not this script's: it is kept as it is;
    # so is the mapped workload's, unless this run measured it again.
    soak="$(sed -n '/^## Soak/,$p' bench/RESULTS.md 2>/dev/null || true)"
    if [[ " ${WORKLOADS[*]} " == *" mapped "* ]]; then
        mapped="$(mapped_section)"
    else
        mapped="$(section 'Mapped model start-up')"
    fi
    {
        echo "# Benchmark results"
        echo
        echo "Written by \`bench/run.sh\`; the latest run replaces this file but its Soak section. Ratios are ForgeLM / llama-server."
        echo
        echo "- command: \`bench/run.sh ${WORKLOADS[*]}\`"
        echo "- date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
        echo "- commit: $(git rev-parse HEAD 2>/dev/null || echo unknown)$(git diff --quiet HEAD -- 2>/dev/null || echo ' (with uncommitted changes)')"
        echo "- machine: $(nproc) CPUs, ${cpu:-unknown CPU}, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo) RAM; load average before the run: $LOAD_BEFORE, after: $(cut -d' ' -f1-3 /proc/loadavg)"
        echo "- model: $(basename "$MODEL") ($(du -m "$MODEL" | cut -f1) MiB; random weights, Qwen2.5-0.5B shape, Qwen2 vocabulary, Q8_0); startup model: $(basename "$SMALL_MODEL")"
        echo "- both servers: \`-c $CTX -np $NP -t $THREADS$([ "${BENCH_KV_UNIFIED:-0}" = 1 ] && echo ' -kvu')\` on 127.0.0.1; llama-bench: \`-t $THREADS -p 512 -n 128\`"
        echo "- workloads: seed ${BENCH_SEED_RUNS:-30} runs (3 warmup) × ${BENCH_SEED_TOKENS:-32} tokens, non-streamed;" \
            "ttft ${BENCH_TTFT_RUNS:-10} runs (2 warmup) × ${BENCH_TTFT_TOKENS:-128} tokens, streamed;" \
            "conc ${BENCH_CONC_CLIENTS:-4,8} clients × ${BENCH_CONC_ROUNDS:-3} rounds (1 warmup) × ${BENCH_CONC_TOKENS:-32} tokens;" \
            "shared 4 clients × ${BENCH_SHARED_ROUNDS:-5} rounds (1 warmup) × ${BENCH_SHARED_TOKENS:-16} tokens;" \
            "sessions ${BENCH_SESSIONS:-$((2 * NP))} sessions × ${BENCH_SESSION_TURNS:-3} turns × ${BENCH_SESSION_TOKENS:-16} tokens;" \
            "restart ${BENCH_RESTART_SESSIONS:-4} sessions primed, restarted, next turn measured, × ${BENCH_RESTART_ROUNDS:-3} rounds (ForgeLM with --prompt-cache-dir, llama-server fresh);" \
            "startup/rss ${BENCH_LAUNCHES:-3} launches each. Greedy, \`ignore_eos\`, interleaved request by request (A B, B A, ...)."
        echo
        echo "## Targets"
        echo
        gen summary "$OUT/metrics.txt"
        echo
        echo "## All figures"
        echo
        echo '```'
        cat "$OUT/metrics.txt"
        echo '```'
        then_kept "$mapped"
        then_kept "$soak"
    } > bench/RESULTS.md.part
    mv bench/RESULTS.md.part bench/RESULTS.md
    log "wrote bench/RESULTS.md"
fi
