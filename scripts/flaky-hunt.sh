#!/usr/bin/env bash
# Runs the whole suite (.ci/run, so ./forge test) several times on a fresh clone and lists every test that failed
# at least once: the way to find a race before CI does.
#
# Usage: scripts/flaky-hunt.sh [--runs N] [--load] [--keep] [REV]
#   --runs N   how many runs (default 5)
#   --load     a CPU hog on one core beside every run (Debian's stress-ng, installed when missing):
#              a slow or busy machine is where timing assumptions break
#   --keep     keep the clone and its logs (default: only the logs are kept)
#   REV        what to clone (default HEAD of this checkout; uncommitted changes are not in it)
#
# Each run goes on after a failing module (-fae), so one failure does not hide the others. The logs
# land in target/flaky-hunt/<time>/run-<i>.log; the summary, one line per test with how many runs it
# failed in, is printed and written to summary.txt beside them. Exits 1 when any run failed.
set -euo pipefail

runs=5 load=0 keep=0 rev=HEAD
while [ $# -gt 0 ]; do
    case "$1" in
        --runs) runs="$2"; shift 2 ;;
        --load) load=1; shift ;;
        --keep) keep=1; shift ;;
        -h|--help) sed -n '2,15p' "$0"; exit 0 ;;
        -*) echo "flaky-hunt.sh: unknown option $1" >&2; exit 2 ;;
        *) rev="$1"; shift ;;
    esac
done
[[ "$runs" =~ ^[1-9][0-9]*$ ]] || { echo "flaky-hunt.sh: --runs takes a positive number" >&2; exit 2; }

here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
commit="$(git -C "$here" rev-parse "$rev")"
logs="$here/target/flaky-hunt/$(date -u +%Y%m%dT%H%M%SZ)"
mkdir -p "$logs"
clone="$(mktemp -d /tmp/forge-flaky.XXXXXX)"
hog=""

cleanup() {
    [ -z "$hog" ] || kill "$hog" 2>/dev/null || true
    [ "$keep" -eq 1 ] || rm -rf "$clone"
}
trap cleanup EXIT

if [ "$load" -eq 1 ] && ! command -v stress-ng >/dev/null 2>&1; then
    as_root=(); [ "$(id -u)" -eq 0 ] || as_root=(sudo)
    echo "flaky-hunt.sh: installing stress-ng" >&2
    "${as_root[@]}" apt-get update -qq
    "${as_root[@]}" apt-get install -y -qq stress-ng >/dev/null
fi

git clone -q "$here" "$clone/forge"
git -C "$clone/forge" checkout -q "$commit"

if [ "$load" -eq 1 ]; then
    # One core kept busy for as long as the runs take; killed on exit.
    stress-ng --cpu 1 --cpu-method matrixprod --timeout 0 --quiet &
    hog=$!
fi

echo "flaky-hunt.sh: $runs run(s) of ./forge test at ${commit:0:12}$([ "$load" -eq 1 ] && echo ', one core loaded'); logs in $logs" >&2
failed_runs=0
for i in $(seq 1 "$runs"); do
    log="$logs/run-$i.log"
    t0=$(date +%s)
    # Exactly what CI runs (its npm packages, Chromium for the browser tests), going on after a failure.
    if (cd "$clone/forge" && bash .ci/run -fae > "$log" 2>&1); then
        verdict=passed
    else
        verdict=FAILED
        failed_runs=$((failed_runs + 1))
    fi
    # Surefire names each failing test on a line of its own; node's test runner says "not ok".
    grep -aoE '^\[ERROR\] [A-Za-z0-9_.$]+\.[A-Za-z0-9_]+(\([^)]*\))?(\[[0-9]+\])? -- Time elapsed.*<<< (FAILURE|ERROR)!' "$log" \
        | sed -E 's/^\[ERROR\] //; s/ -- Time elapsed.*//' > "$logs/failed-$i.txt" || true
    grep -aE '^ *not ok [0-9]+ - ' "$log" | sed -E 's/^ *not ok [0-9]+ - /node: /' >> "$logs/failed-$i.txt" || true
    tests=$(grep -aE '^\[(INFO|WARNING|ERROR)\] Tests run: [0-9]+, ' "$log" | grep -v ' -- in ' \
        | sed -E 's/.*Tests run: ([0-9]+).*/\1/' | paste -sd+ - | bc 2>/dev/null || echo '?')
    echo "run $i/$runs: $verdict in $(( $(date +%s) - t0 )) s ($tests JUnit tests; $(wc -l < "$logs/failed-$i.txt") failed)" | tee -a "$logs/summary.txt" >&2
done

{
    echo "failed tests over $runs run(s) at ${commit:0:12}$([ "$load" -eq 1 ] && echo ' (one core loaded)'):"
    if cat "$logs"/failed-*.txt | grep -q .; then
        cat "$logs"/failed-*.txt | sort | uniq -c | sort -rn
    else
        echo "  none"
    fi
} | tee -a "$logs/summary.txt"
[ "$failed_runs" -eq 0 ]
