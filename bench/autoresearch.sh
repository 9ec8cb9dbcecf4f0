#!/usr/bin/env bash
# The autoresearch loop's entry point (an edit, a measurement against the peer, keep or revert; bench/README.md):
# builds the ForgeLM image, starts it and llama-server on loopback with the same settings, runs the
# seed workload (a short coding chat request, non-streamed, 30 measured runs, interleaved request
# by request) and prints METRIC lines; the primary metric is p95_ms (lower is better).
#
#   bench/autoresearch.sh                    build, then measure ForgeLM and llama-server side by side
#   AUTORESEARCH_PEER=0 bench/autoresearch.sh  ForgeLM only (half the time, no ratio)
#   AUTORESEARCH_BUILD=0 ...                   measure the image as it is
# Every bench/run.sh setting (BENCH_SEED_RUNS, BENCH_SEED_TOKENS, BENCH_THREADS, ...) applies.
#
# Output: the seed workload's lines (METRIC forge.seed.*, METRIC peer.seed.*, RATIO seed.*), then
# ForgeLM's figures again under the seed system's names: p95_ms, p50_ms, mean_ms,
# completion_tps_mean, success_count.
set -euo pipefail

# shellcheck source=common.sh
. "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/common.sh"

if [ "${AUTORESEARCH_BUILD:-1}" = 1 ]; then
    echo "autoresearch.sh: building (mvn -B -q package -DskipTests)" >&2
    mvn -B -q package -DskipTests
fi

servers="forge peer"
[ "${AUTORESEARCH_PEER:-1}" = 1 ] || servers="forge"

lines="$(BENCH_SERVERS="$servers" BENCH_RESULTS=0 BENCH_BUILD=0 bench/run.sh seed)"
echo "$lines"
# The seed system's metric names, unprefixed, for ForgeLM.
echo "$lines" | sed -n 's/^METRIC forge\.seed\.\(p95_ms\|p50_ms\|mean_ms\|completion_tps_mean\|success_count\)=/METRIC \1=/p'
