#!/usr/bin/env bash
# The Node client tests (node --test) against the image in $FORGE_IMAGE. Installs the locked
# packages with `npm ci` when node_modules is missing or older than the lock file (.ci/run installs
# them up front the same way).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"
# shellcheck source=../../../../scripts/node-packages.sh
. ../../../../scripts/node-packages.sh
node_packages run-tests.sh "Node 20+" "for the Node client tests"
exec node --test
