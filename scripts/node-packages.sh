# Sourced by the scripts that run node in their own package folder (forge.http's web UI build, dist's
# Node client tests), from that folder. node_packages NAME VERSION PURPOSE: node and npm must be on
# PATH (else "NAME: node (VERSION) is needed PURPOSE" and exit 1); the locked packages are installed
# with `npm ci` when node_modules is missing or older than the lock file.
node_packages() {
    local tool
    for tool in node npm; do
        command -v "$tool" >/dev/null 2>&1 || { echo "$1: $tool ($2) is needed $3" >&2; exit 1; }
    done
    if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
        npm ci --no-audit --no-fund
    fi
}
