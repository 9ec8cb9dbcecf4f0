# Finds a JDK 25 or newer for building and running ForgeLM from source. Sourced (bash) by the
# root `forge` script and by .ci/run; defines forge_find_jdk, which exports JAVA_HOME or fails.
#
# Order: $JAVA_HOME if it is a JDK 25+; /usr/lib/jvm/temurin-25-jdk-amd64; the newest 25+ JDK under
# /usr/lib/jvm (or macOS's /Library/Java/JavaVirtualMachines); the javac on PATH if it is 25+.

FORGE_MIN_JAVA=25

# The feature version (25, 26, ...) of the JDK at $1, or nothing if it is not a full JDK.
forge_jdk_version() {
    local home="$1" v=""
    [ -x "$home/bin/javac" ] && [ -x "$home/bin/jlink" ] || return 1
    if [ -f "$home/release" ]; then
        v="$(sed -n 's/^JAVA_VERSION="\{0,1\}\([0-9][0-9]*\).*/\1/p' "$home/release" | head -n 1)"
    fi
    if [ -z "$v" ]; then
        v="$("$home/bin/java" -version 2>&1 | sed -n 's/.*version "\([0-9][0-9]*\).*/\1/p' | head -n 1)"
    fi
    [ -n "$v" ] || return 1
    echo "$v"
}

forge_is_jdk() {
    local v
    v="$(forge_jdk_version "$1")" || return 1
    [ "$v" -ge "$FORGE_MIN_JAVA" ]
}

forge_find_jdk() {
    local candidate best="" best_v=0 v javac
    if [ -n "${JAVA_HOME:-}" ] && forge_is_jdk "$JAVA_HOME"; then
        export JAVA_HOME
        return 0
    fi
    if forge_is_jdk /usr/lib/jvm/temurin-25-jdk-amd64; then
        export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64
        return 0
    fi
    for candidate in /usr/lib/jvm/* /Library/Java/JavaVirtualMachines/*/Contents/Home; do
        [ -d "$candidate" ] || continue
        v="$(forge_jdk_version "$candidate")" || continue
        if [ "$v" -ge "$FORGE_MIN_JAVA" ] && [ "$v" -gt "$best_v" ]; then
            best="$candidate"; best_v="$v"
        fi
    done
    if [ -z "$best" ] && javac="$(command -v javac 2>/dev/null)"; then
        candidate="$(dirname "$(dirname "$(readlink -f "$javac")")")"
        forge_is_jdk "$candidate" && best="$candidate"
    fi
    if [ -n "$best" ]; then
        export JAVA_HOME="$best"
        return 0
    fi
    cat >&2 <<MSG
ForgeLM needs a JDK ${FORGE_MIN_JAVA} or newer (javac and jlink), and found none:
  JAVA_HOME=${JAVA_HOME:-<unset>}, nothing suitable under /usr/lib/jvm, no javac ${FORGE_MIN_JAVA}+ on PATH.
Install one, e.g.
  Debian/Ubuntu: the Adoptium apt repository (https://adoptium.net/installation/linux/), then
                 sudo apt-get install temurin-25-jdk
  SDKMAN:        sdk install java 25-tem
or point JAVA_HOME at an unpacked JDK 25 from https://adoptium.net/temurin/releases/?version=25
MSG
    return 1
}
