# Sourced by the bench/ scripts that start servers side by side (run.sh, editors.sh, vision.sh), after they
# define log, die and $OUT: the servers' pids, stopped by cleanup (and on exit), and wait_ready.
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
