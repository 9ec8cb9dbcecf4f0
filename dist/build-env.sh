# Sourced by dist's build scripts (build-image.sh, build-image-oci.sh, build-cuda-tarball.sh), which the
# build runs through exec-maven-plugin with their inputs in the environment: die, naming the script,
# and need, which stops at the first input not set.
die() { echo "$(basename "$0"): ERROR: $*" >&2; exit 1; }

need() { # HOW VAR...: each VAR must be set; HOW is the Maven command that sets them
    local how="$1" v
    shift
    for v in "$@"; do
        [ -n "${!v:-}" ] || die "$v is not set (run through Maven: $how)"
    done
}
