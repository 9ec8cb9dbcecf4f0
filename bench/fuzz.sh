#!/usr/bin/env bash
# Fuzzes ForgeLM's parsers of outside input with Jazzer: each target is a JUnit @FuzzTest that the
# normal build runs over its committed corpus (regression mode); here it fuzzes for real, one
# target per JVM (Jazzer fuzzes one @FuzzTest per run), each for a fixed time.
#
#   bench/fuzz.sh                          every target, 1 minute each
#   bench/fuzz.sh --duration 10m gguf      one target for longer
#   bench/fuzz.sh request -- -Dmaven.repo.local=/path/to/repo    extra Maven arguments after --
#
# Targets: request (a chat body through Json, ChatRequest, GenerationParams, StructuredOutput),
# gguf (GgufReader on any file), schema (JSON Schema to GBNF), gbnf (the GBNF checker), lark (Lark to GBNF).
# Settings (environment): FUZZ_XMX=512m, the fuzzing JVM's heap: small, so that an allocation sized
# by what an input claims rather than by what it holds fails as an OutOfMemoryError.
#
# A finding (crash-*, timeout-*) is written into the target's corpus under src/test/resources, so the
# normal build replays it from then on; commit it with the fix. Exits 1 when any target found one.
set -euo pipefail

# shellcheck source=common.sh
. "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/common.sh"

# name  module  test class#method  classes instrumented for coverage (Jazzer's default: forge.**). The
# request target also instruments Jackson's parser, so that inputs that get further into JSON count.
TARGETS="request forge.http forge.http.server.ChatRequestFuzzTest#parse forge.**,com.fasterxml.jackson.core.**
gguf forge.runtime/gguf forge.lib.gguf.GgufReaderFuzzTest#read forge.**
schema forge.runtime/grammar forge.lib.grammar.JsonSchemaGrammarFuzzTest#convert forge.**
gbnf forge.runtime/grammar forge.lib.grammar.GbnfGrammarFuzzTest#check forge.**
lark forge.runtime/grammar forge.lib.grammar.LarkGrammarFuzzTest#convert forge.**"

duration=1m
chosen=()
while [ $# -gt 0 ]; do
    case "$1" in
        --duration) duration="$2"; shift 2 ;;
        --) shift; break ;;
        -h|--help) sed -n '2,17p' "$0"; exit 0 ;;
        *) chosen+=("$1"); shift ;;
    esac
done
[ ${#chosen[@]} -gt 0 ] || chosen=(request gguf schema gbnf lark)

mkdir -p bench/target
failed=()
for name in "${chosen[@]}"; do
    line="$(grep "^$name " <<<"$TARGETS")" || { echo "fuzz.sh: unknown target '$name'" >&2; exit 2; }
    read -r _ module test instrument <<<"$line"
    echo "fuzz.sh: $name ($test) for $duration" >&2
    # jazzer.hooks: coverage instrumentation (the build leaves it off); the JUnit @Timeout of each
    # target becomes libFuzzer's per-input timeout, so JUnit's own timeouts, which would end the
    # whole fuzzing run instead, are off.
    if ! JAZZER_FUZZ=1 mvn -B -pl "$module" -am test -Dtest="$test" -Dsurefire.failIfNoSpecifiedTests=false \
            -Djazzer.hooks=true -Djazzer.instrument="$instrument" -Djazzer.max_duration="$duration" \
            -Djunit.jupiter.execution.timeout.mode=disabled \
            -Dfuzz.jvm.options="-Xmx${FUZZ_XMX:-512m}" "$@" > "$ROOT/bench/target/fuzz-$name.log" 2>&1; then
        failed+=("$name")
    fi
    grep -E '^#[0-9]+[[:space:]]+(INITED|DONE)|^Done [0-9]+ runs|Tests run:.*Fuzz' "bench/target/fuzz-$name.log" >&2 || true
done
git status --porcelain -- '*FuzzTestInputs*' | grep -E '(crash|timeout|oom)-' >&2 || true
if [ ${#failed[@]} -gt 0 ]; then
    echo "fuzz.sh: findings (or a failed build) in: ${failed[*]}; see bench/target/fuzz-NAME.log" >&2
    exit 1
fi
echo "fuzz.sh: no findings" >&2
