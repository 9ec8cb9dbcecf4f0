#!/usr/bin/env bash
# Soak: the image's forge serve (-np 4 --queue 16) on a small synthetic model, under several clients
# for a long time (bench/target/soak/ keeps the model and the server's log):
#
#   bench/soak.sh                       30 minutes, 6 clients
#   bench/soak.sh --minutes 5 --clients 8
#
# Each client sends, in turn: a chat answered whole, one streamed, one with tools and tool_choice
# "required", a /v1/completions, a stream it drops after the first token, and a body the server must
# refuse with a 400 (forge.bench.Soak). Each minute it samples the server's RSS (/proc/PID/status
# VmRSS), open files (/proc/PID/fd) and threads (/proc/PID/status Threads), and prints a table.
#
# It fails when any request gets a 5xx or any answer but its own, or takes over 120 s (a hang), when
# a slot stays busy after the load, or when the samples are not flat. Flat: from minute 1 (the first
# minute is warm-up) to the end, RSS grows by at most 5%, open files by at most one per client plus 8,
# threads by at most 8. The server's heap is fixed and touched up front (-Xms=-Xmx, AlwaysPreTouch)
# so that RSS shows what a leak adds, not the heap growing into free memory.
set -euo pipefail

# shellcheck source=common.sh
. "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/common.sh"

minutes=30
clients=6
while [ $# -gt 0 ]; do
    case "$1" in
        --minutes) minutes="$2"; shift 2 ;;
        --clients) clients="$2"; shift 2 ;;
        *) sed -n '2,18p' "$0" >&2; exit 2 ;;
    esac
done

[ -x dist/target/forge/bin/forge ] || mvn -B -q package -DskipTests
[ -f bench/target/forge-bench.jar ] && [ -z "$(find bench/src bench/pom.xml -newer bench/target/forge-bench.jar -print -quit)" ] \
    || mvn -B -q -pl bench package -DskipTests
work=bench/target/soak
mkdir -p "$work"
forge=dist/target/forge/bin/forge
[ -f "$work/soak.gguf" ] || "$forge" model synth -o "$work/soak.gguf" --embd 256 --layers 4 --ffn 512 --heads 4 --kv-heads 2 >/dev/null
port=$(( 20000 + RANDOM % 20000 ))
FORGE_OPTS="-Xms256m -Xmx256m -XX:+AlwaysPreTouch" "$forge" serve -m "$work/soak.gguf" --alias soak --port "$port" \
    -np 4 --queue 16 -c 4096 -t 2 > "$work/server.log" 2>&1 &
server=$!
trap 'kill "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true' EXIT

echo "soak.sh: $minutes minutes, $clients clients, server pid $server on port $port" >&2
"$JAVA_HOME/bin/java" -p bench/target/forge-bench.jar:bench/target/lib -m forge.bench/forge.bench.Soak \
    --server "http://127.0.0.1:$port" --pid "$server" --minutes "$minutes" --clients "$clients"
