#!/usr/bin/env bash
# Builds the web UI into the folder $1 (forge.http's Maven build passes target/classes/META-INF/forge/webui):
# the locked packages with `npm ci` when node_modules is missing or older than the lock file, then
# the project's own Vite. No global tool but node and npm, which the build already needs.
# WEBUI_SKIP_TESTS containing "true" (Maven's -DskipTests or -Dmaven.test.skip) skips the unit tests.
set -euo pipefail
out=${1:?usage: build.sh OUTPUT_DIR}
cd "$(dirname "${BASH_SOURCE[0]}")"
# shellcheck source=../../../../scripts/node-packages.sh
. ../../../../scripts/node-packages.sh
node_packages webui/build.sh "Node 20.19+" "to build the web UI"
# The UI's pure logic (metrics, conversations) under node's test runner; the browser tests are dist's.
case "${WEBUI_SKIP_TESTS:-}" in
    *true*) ;;
    *) node --test --test-reporter=dot test/ ;;
esac
exec node node_modules/vite/bin/vite.js build --logLevel warn --outDir "$out" --emptyOutDir
