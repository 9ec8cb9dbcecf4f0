#!/usr/bin/env bash
# The JUnit tests tagged "peer": ForgeLM beside llama.cpp's own llama-server from the same release, on
# the same synthetic files (LoraPeerTest: the same greedy output with a LoRA adapter at each scale).
# The build leaves them out (CI cannot build the peer in its time); bench/run.sh builds the peer once
# into ~/.cache/forge/peer. Never run by CI.
#
#   bench/peer-tests.sh          every peer test
set -euo pipefail

# shellcheck source=common.sh
. "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/common.sh"

if [ ! -x "$CACHE/peer/build/bin/llama-server" ]; then
    echo "peer-tests.sh: no llama-server in $CACHE/peer/build/bin: run bench/run.sh once to build it" >&2
    exit 1
fi
cd "$ROOT"
echo "peer-tests.sh: peer tests (JUnit tag peer) against $CACHE/peer/build/bin/llama-server" >&2
mvn -B -pl forge.http -am verify -Dforge.test.excluded=none -Dgroups=peer \
    -Dsurefire.failIfNoSpecifiedTests=false -Dspotless.check.skip=true
