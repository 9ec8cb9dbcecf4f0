# Sourced by the bench/ scripts that start servers side by side (run.sh, editors.sh, vision.sh), after
# common.sh: the servers' pids, stopped by cleanup (and on exit), wait_ready (which reads $OUT), and
# side_by_side, the settings of the scripts that compare the ForgeLM image with the peer llama-server.
PIDS=()
cleanup() { # stops every server started so far and forgets them
    local pid
    for pid in "${PIDS[@]}"; do
        kill "$pid" 2>/dev/null || true
    done
    for pid in "${PIDS[@]}"; do
        wait "$pid" 2>/dev/null || true
    done
    PIDS=()
}
trap cleanup EXIT
trap 'exit 143' INT TERM

wait_ready() { # NAME PORT PID: until NAME answers /health on PORT, or dies if PID exits first
    local i
    for i in $(seq 1 600); do
        if curl -sf "http://127.0.0.1:$2/health" >/dev/null 2>&1; then
            return 0
        fi
        kill -0 "$3" 2>/dev/null || die "$1 exited before it was ready: see $OUT/$1.log"
        sleep 0.5
    done
    die "$1 not ready within 300 s: see $OUT/$1.log"
}

side_by_side() { # NAME PORT: the peer's and the image's paths (both must be built), -t of both servers,
    # ForgeLM's port (BENCH_PORT, else PORT; llama-server gets +1), and $OUT, bench/target/NAME, whose
    # metrics.txt starts empty
    LLAMA_SERVER="$CACHE/peer/build/bin/llama-server"
    [ -x "$LLAMA_SERVER" ] || die "no llama-server at $LLAMA_SERVER: bench/run.sh builds it"
    FORGE="$ROOT/dist/target/forge/bin/forge"
    [ -x "$FORGE" ] || die "no ForgeLM image at $FORGE: mvn -B package -DskipTests"
    THREADS="${BENCH_THREADS:-$(nproc)}"
    PORT="${BENCH_PORT:-$2}"
    PEER_PORT=$((PORT + 1))
    OUT="$ROOT/bench/target/$1"
    mkdir -p "$OUT"
    : > "$OUT/metrics.txt"
}
