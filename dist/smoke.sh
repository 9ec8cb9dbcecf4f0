#!/usr/bin/env bash
# Smoke check of the finished image, as a user without a JDK would run it: no JAVA_HOME, no java
# on PATH, an empty HOME. Run by the build (exec-maven-plugin, phase verify; -DskipTests skips it).
#
# Usage: smoke.sh IMAGE   (e.g. dist/target/forge)
set -euo pipefail

[ $# -eq 1 ] || { echo "usage: smoke.sh IMAGE" >&2; exit 2; }
IMAGE="$(cd "$1" && pwd)"
FORGE="$IMAGE/bin/forge"
WORK="$(mktemp -d "${TMPDIR:-/tmp}/forge-smoke.XXXXXX")"
SERVER_PID=""
LOG="$WORK/server.log"

cleanup() {
    if [ -n "$SERVER_PID" ] && kill -0 "$SERVER_PID" 2>/dev/null; then
        kill "$SERVER_PID" 2>/dev/null || true
        sleep 2
        kill -9 "$SERVER_PID" 2>/dev/null || true
        wait "$SERVER_PID" 2>/dev/null || true
    fi
    rm -rf "$WORK"
}
trap cleanup EXIT

fail() {
    echo "smoke.sh: FAILED: $*" >&2
    if [ -s "$LOG" ]; then
        echo "----- server log ($LOG) -----" >&2
        cat "$LOG" >&2
        echo "-----------------------------" >&2
    fi
    exit 1
}
step() { echo "smoke.sh: $*"; }

command -v curl >/dev/null 2>&1 || fail "curl is needed for the smoke check"
[ -x "$FORGE" ] || fail "no launcher at $FORGE"

mkdir -p "$WORK/home"
# The forge command with a bare environment: only the image itself may provide Java.
clean_forge() {
    env -i PATH=/usr/bin:/bin HOME="$WORK/home" "$FORGE" "$@"
}

step "forge --version"
out="$(clean_forge --version 2>&1)" || fail "forge --version exited $?: $out"
echo "  $out"
grep -q '^ForgeLM ' <<<"$out" || fail "unexpected --version output: $out"

step "forge plugins"
out="$(clean_forge plugins 2>&1)" || fail "forge plugins exited $?:
$out"
sed 's/^/  /' <<<"$out"
grep -Eq 'llama\.cpp-cpu +.*usable' <<<"$out" || fail "backend llama.cpp-cpu is not listed as usable"
grep -Eq '^ +generic ' <<<"$out" || fail "template generic is not listed"
for t in llama3.1 llama3.2 llama3.3 gemma2 gemma4; do
    grep -Eq "^ +${t//./\\.} +family " <<<"$out" || fail "template $t is not listed"
done
grep -q 'SLF4J' <<<"$out" && fail "slf4j printed a warning (no logging provider bound?)"

step "forge model synth"
out="$(clean_forge model synth -o "$WORK/m.gguf" 2>&1)" || fail "forge model synth exited $?:
$out"
[ -s "$WORK/m.gguf" ] || fail "model synth wrote no $WORK/m.gguf: $out"

# A port nothing listens on (bash's /dev/tcp: no other tools needed).
port=""
for _ in $(seq 1 50); do
    p=$((20000 + RANDOM % 40000))
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then port=$p; break; fi
done
[ -n "$port" ] || fail "found no free port"

step "forge serve -m m.gguf --port $port"
# exec: $! must be the server's own pid (env, the launcher and java all exec in turn), not a
# subshell's, or killing it would leave the JVM running.
(exec env -i PATH=/usr/bin:/bin HOME="$WORK/home" "$FORGE" serve -m "$WORK/m.gguf" --port "$port" >"$LOG" 2>&1) &
SERVER_PID=$!
base="http://127.0.0.1:$port"
post() { # PATH BODY: POSTs the JSON BODY to PATH; sets code (the HTTP status) and answer (the body)
    code="$(curl -s -o "$WORK/answer.json" -w '%{http_code}' -H 'Content-Type: application/json' \
        --max-time 60 -d "$2" "$base$1" || true)"
    answer="$(cat "$WORK/answer.json" 2>/dev/null || true)"
    echo "  HTTP $code: $answer"
}
deadline=$((SECONDS + 60))
until [ "$(curl -s -o /dev/null -w '%{http_code}' "$base/health" || true)" = 200 ]; do
    kill -0 "$SERVER_PID" 2>/dev/null || fail "the server exited before /health answered 200"
    [ $SECONDS -lt $deadline ] || fail "/health did not answer 200 within 60 s"
    sleep 0.5
done
step "  /health is 200 after $((SECONDS + 60 - deadline)) s"

step "POST /v1/chat/completions"
post /v1/chat/completions '{"model":"m","max_tokens":4,"messages":[{"role":"user","content":"hi"}]}'
reply="$answer"
[ "$code" = 200 ] || fail "chat completion answered HTTP $code: $reply"
grep -q '"object" *: *"chat.completion"' <<<"$reply" || fail "the reply is not a chat.completion: $reply"
step "GET /metrics (the Prometheus client, linked through Moditect descriptors)"
metrics="$(curl -s --max-time 30 "$base/metrics" || true)"
grep -q '^forge_http_requests_total{route="/v1/chat/completions",status="200"} 1' <<<"$metrics" \
    || fail "/metrics did not count the chat completion: $(head -c 2000 <<<"$metrics")"
echo "  $(grep -c '^forge_' <<<"$metrics") samples"

step "POST /apply-template with the generic template (the model's own Jinja template, forge.template.jinja)"
post /apply-template '{"model":"m","template":"generic","messages":[{"role":"user","content":"hi"}]}'
applied="$answer"
[ "$code" = 200 ] || fail "apply-template with the generic (Jinja) template answered HTTP $code: $applied"
grep -q '<|im_start|>user\\nhi<|im_end|>' <<<"$applied" || fail "the generic template did not render the model's Jinja template: $applied"

grep -q 'SLF4J' "$LOG" && fail "slf4j printed a warning (no logging provider bound?)"
grep -Eq '(INFO|WARN|ERROR)' "$LOG" || fail "the server logged nothing: is logback bound?"

kill "$SERVER_PID"
for _ in $(seq 1 50); do kill -0 "$SERVER_PID" 2>/dev/null || break; sleep 0.2; done
kill -0 "$SERVER_PID" 2>/dev/null && fail "the server did not stop within 10 s of SIGTERM"
wait "$SERVER_PID" 2>/dev/null || true
SERVER_PID=""
step "OK"
