# Sourced by the bench/ scripts that build or run ForgeLM here: the repository root as the working
# folder ($ROOT), a JDK 25 in JAVA_HOME (scripts/find-jdk.sh), Maven's options, and $CACHE, the folder
# that natives.sh and the peer build share (~ is $HOME, as the build's forge.cache has it); log and die.
ROOT="$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/.." && pwd)"
cd "$ROOT"
# shellcheck source=../scripts/find-jdk.sh
. scripts/find-jdk.sh
forge_find_jdk
# Maven 3.8's bundled Guava warns about sun.misc.Unsafe on JDK 24+; the warning is noise here.
export MAVEN_OPTS="${MAVEN_OPTS:-} --sun-misc-unsafe-memory-access=allow"
CACHE="${FORGE_CACHE:-$HOME/.cache/forge}"

# Messages name the script that runs (run.sh: ..., vision.sh: ERROR: ...); a script may define its own.
log() { echo "$(basename "$0"): $*" >&2; }
die() { echo "$(basename "$0"): ERROR: $*" >&2; exit 1; }
