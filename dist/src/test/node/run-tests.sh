#!/usr/bin/env bash
# The Node client tests (node --test) against the image in $FORGE_IMAGE. Installs the locked
# packages with `npm ci` when node_modules is missing or older than the lock file (.ci/run installs
# them up front the same way).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"
for tool in node npm; do
    command -v "$tool" >/dev/null 2>&1 || { echo "run-tests.sh: $tool (Node 20+) is needed for the Node client tests" >&2; exit 1; }
done
if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
    npm ci --no-audit --no-fund
fi
exec node --test
