#!/usr/bin/env bash
# Images in, side by side with llama.cpp's own llama-server from the same release, on the same
# synthetic model and projector files (forge model synth --mmproj), on loopback. Never run by CI:
# it needs the peer build (bench/run.sh makes it, cached in ~/.cache/forge/peer) and the ForgeLM image.
#
#   bench/vision.sh
#
# One streamed chat completion per turn (bench/vision.py): a text-only turn and its returning turn,
# a first turn with a new image, and a returning turn with the same image. RATIO vision.ttft_image
# is ForgeLM's time to first token with one image over llama-server's (goal <= 1.05), RATIO
# vision.encode the same for the image's own cost (TTFT with the image minus TTFT without); RATIO
# vision.forge.return_vs_first the returning turn over the first (goal <= 0.2), RATIO
# vision.forge.floor_vs_first the text-only returning turn (the same new tokens, no image to read)
# over the first turn, the least a returning turn can cost; METRIC vision.forge.return_encodes the
# images ForgeLM encoded again in returning turns (goal 0).
#
# Settings (environment), with their defaults:
#   BENCH_THREADS=$(nproc)   -t of both servers
#   BENCH_PORT=18194         ForgeLM's port; llama-server gets +1
#   BENCH_VISION_ROUNDS=5    counted rounds (one more warms up)
#   BENCH_VISION_FAMILY=gemma3  the projector family (gemma3 or mlp)
#   BENCH_VISION_SIZE=448x448   the images' size
#   BENCH_VISION_PROJECTOR=256:6:448  the synthetic projector's encoder, EMBD:LAYERS:IMAGE (forge model
#                               synth --mmproj-size; gemma3 at 448 pixels: 1024 patches, 64 embeddings)
# Prints METRIC/RATIO lines; keeps them in bench/target/vision/metrics.txt.
set -euo pipefail

# shellcheck source=common.sh
. "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/common.sh"
# shellcheck source=servers.sh
. "$ROOT/bench/servers.sh"
side_by_side vision 18194
FAMILY="${BENCH_VISION_FAMILY:-gemma3}"

# The model and its projector, as wide as the model, written by the same generator for both servers.
MODEL="$OUT/vision-model.gguf"
MMPROJ="$OUT/mmproj-vision-$FAMILY.gguf"
log "making $MODEL and $MMPROJ"
"$FORGE" model synth --family gemma --vocab-size 4096 --embd 256 --layers 4 --heads 4 --kv-heads 2 --ffn 768 \
    --ctx 4096 --type F16 --mmproj "$MMPROJ" --mmproj-family "$FAMILY" \
    --mmproj-size "${BENCH_VISION_PROJECTOR:-256:6:448}" -o "$MODEL" > "$OUT/synth.log" 2>&1 \
    || die "forge model synth failed: see $OUT/synth.log"

FLAGS=(-c 4096 -np 1 -b 512 -ub 512 --mmproj "$MMPROJ")
"$FORGE" serve -m "$MODEL" --host 127.0.0.1 --port "$PORT" -t "$THREADS" "${FLAGS[@]}" > "$OUT/forge.log" 2>&1 &
PIDS+=($!)
wait_ready forge "$PORT" "$!"
"$LLAMA_SERVER" -m "$MODEL" --host 127.0.0.1 --port "$PEER_PORT" -t "$THREADS" "${FLAGS[@]}" \
    > "$OUT/peer.log" 2>&1 &
PIDS+=($!)
wait_ready peer "$PEER_PORT" "$!"

log "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
python3 "$ROOT/bench/vision.py" --server "forge=http://127.0.0.1:$PORT" --server "peer=http://127.0.0.1:$PEER_PORT" \
    --model vision-model --rounds "${BENCH_VISION_ROUNDS:-5}" --size "${BENCH_VISION_SIZE:-448x448}" \
    | tee -a "$OUT/metrics.txt"
log "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
log "done: $OUT/metrics.txt"
