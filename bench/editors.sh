#!/usr/bin/env bash
# The editor and RAG routes side by side with llama.cpp's own llama-server from the same release, on
# the same synthetic files, on loopback. Never run by CI: it needs the peer build (bench/run.sh makes
# it, about 10 minutes on 2 cores, cached in ~/.cache/forge/peer) and the ForgeLM image.
#
#   bench/editors.sh                  rerank infill typing
#   bench/editors.sh rerank infill    the parity checks only
#
# rerank  a Qwen3-Reranker-shaped reranker (forge model synth --rerank): llama-server --reranking and
#         ForgeLM score the same query and documents; the largest difference must be below 1e-4
# infill  a model with the coder family's FIM vocabulary: the same /infill bodies give the same
#         prompt (text and token count) and the same greedy completion on both
# typing  a typing session replayed on a larger coder model: a streamed /infill per keystroke,
#         most cancelled at their first token; RATIO typing.ttft_p95 is ForgeLM / llama-server
#
# Settings (environment), with their defaults:
#   BENCH_THREADS=$(nproc)  -t of both servers
#   BENCH_PORT=18190        ForgeLM's port; llama-server gets +1
#   BENCH_TYPING_ROUNDS=2   typing sessions per server (each types another function)
#   BENCH_TYPING_STEP=3     characters per keystroke request (1: every character)
#   BENCH_TYPING_ARGS="-c 4096 -np 2 -b 512 -ub 512"  both servers' flags in the typing workload
# Prints METRIC/RATIO lines; keeps them in bench/target/editors/metrics.txt.
set -euo pipefail

# shellcheck source=common.sh
. "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/common.sh"
# shellcheck source=servers.sh
. "$ROOT/bench/servers.sh"
side_by_side editors 18190
WORKLOADS=("$@")
[ ${#WORKLOADS[@]} -gt 0 ] || WORKLOADS=(rerank infill typing)

synth() { # FILE ARGS...: made once per run of this script (the generator is part of what is compared)
    local file="$1"
    shift
    log "making $file"
    "$FORGE" model synth "$@" -o "$file" > "$OUT/synth.log" 2>&1 || die "forge model synth failed: see $OUT/synth.log"
}

serve() { # WORKLOAD MODEL "FORGE FLAGS" "PEER FLAGS": both servers on MODEL
    local forge_flags peer_flags
    read -r -a forge_flags <<< "$3"
    read -r -a peer_flags <<< "$4"
    "$FORGE" serve -m "$2" --host 127.0.0.1 --port "$PORT" -t "$THREADS" "${forge_flags[@]}" \
        > "$OUT/forge-$1.log" 2>&1 &
    PIDS+=($!)
    wait_ready "forge-$1" "$PORT" "$!"
    "$LLAMA_SERVER" -m "$2" --host 127.0.0.1 --port "$PEER_PORT" -t "$THREADS" "${peer_flags[@]}" \
        > "$OUT/peer-$1.log" 2>&1 &
    PIDS+=($!)
    wait_ready "peer-$1" "$PEER_PORT" "$!"
}

client() { # WORKLOAD MODEL ARGS...
    local w="$1" model="$2"
    shift 2
    python3 "$ROOT/bench/editors.py" "$w" --server "forge=http://127.0.0.1:$PORT" \
        --server "peer=http://127.0.0.1:$PEER_PORT" --model "$model" "$@" | tee -a "$OUT/metrics.txt"
}

for w in "${WORKLOADS[@]}"; do
    case "$w" in
        rerank)
            synth "$OUT/rerank.gguf" --rerank --vocab-size 2048 --embd 128 --layers 2 --heads 4 --kv-heads 2 --ffn 256
            serve rerank "$OUT/rerank.gguf" "-c 2048 -np 1" "-c 2048 -np 1 --reranking"
            client rerank rerank
            cleanup
            ;;
        infill)
            synth "$OUT/coder-tiny.gguf" --family coder --vocab-size 2048 --embd 128 --layers 2 --heads 4 \
                --kv-heads 2 --ffn 256
            serve infill "$OUT/coder-tiny.gguf" "-c 4096 -np 1 -b 512 -ub 512" "-c 4096 -np 1 -b 512 -ub 512"
            client infill coder-tiny
            cleanup
            ;;
        typing)
            # About 10M parameters, context 4096: a keystroke's new tokens cost milliseconds, a cold prompt more.
            synth "$OUT/coder.gguf" --family coder --vocab-size 4096 --embd 256 --layers 6 --heads 4 \
                --kv-heads 2 --ffn 768 --ctx 4096 --type F16
            read -r -a typing_flags <<< "${BENCH_TYPING_ARGS:--c 4096 -np 2 -b 512 -ub 512}"
            serve typing "$OUT/coder.gguf" "${typing_flags[*]}" "${typing_flags[*]}"
            log "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
            client typing coder --rounds "${BENCH_TYPING_ROUNDS:-2}" --step "${BENCH_TYPING_STEP:-3}"
            log "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
            cleanup
            ;;
        *) die "unknown workload $w (rerank, infill, typing)" ;;
    esac
done
log "done: $OUT/metrics.txt"
