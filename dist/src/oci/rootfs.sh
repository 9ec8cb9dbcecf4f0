#!/usr/bin/env bash
# Assembles the container image's root file system, the layer under ForgeLM's jlink image, from
# Debian packages: no container registry is needed (or reachable) to build the image.
#
#   rootfs.sh CACHE OUT
#
# Takes what the image's programs need and nothing else: the C and C++ runtimes that the JVM and
# llama.cpp's libraries link against (libc6, libgcc-s1, libstdc++6), a /bin/sh (dash) and the two
# coreutils programs the launcher calls (dirname, readlink), the packages' copyright files, a
# passwd/group with the unprivileged user `forge` (10001), and the folders the image declares.
# The packages are the versions installed on the build machine (so the image runs what the build
# was tested with), fetched once with `apt-get download` (apt checks their hashes) into CACHE.
# Symbolic links are resolved to files: the image builder (Jib) writes files, not links.
# Writes OUT/ (the tree) and OUT.packages (one "name=version" a line, for the image's label).
set -euo pipefail

die() { echo "rootfs.sh: ERROR: $*" >&2; exit 1; }
[ $# -eq 2 ] || die "usage: rootfs.sh CACHE OUT"
cache="$1"
out="$2"
command -v dpkg-query >/dev/null && command -v apt-get >/dev/null && command -v dpkg-deb >/dev/null \
    || die "the image's base is assembled from Debian packages: this needs dpkg and apt (a Debian or Ubuntu build machine)"

# gcc-12-base only for its copyright file, which libgcc-s1's and libstdc++6's doc folders link to.
packages=(libc6 libgcc-s1 libstdc++6 gcc-12-base dash coreutils)
mkdir -p "$cache"
rm -rf "$out" "$out.x"
mkdir -p "$out" "$out.x"
: >"$out.packages"
for p in "${packages[@]}"; do
    v="$(dpkg-query -W -f='${Version}' "$p" 2>/dev/null)" || die "$p is not installed here (apt-get install $p)"
    deb="$cache/${p}_${v//:/%3a}_amd64.deb"
    if [ ! -s "$deb" ]; then
        # apt warns that root downloads "unsandboxed" into a folder its _apt user cannot write: harmless.
        (cd "$cache" && apt-get download -q "$p=$v" >"$out.apt.log" 2>&1) \
            || { cat "$out.apt.log" >&2; die "apt-get download $p=$v failed (run apt-get update?)"; }
        [ -s "$deb" ] || die "apt-get download $p=$v wrote no $deb"
    fi
    dpkg-deb -x "$deb" "$out.x/$p"
    echo "$p=$v" >>"$out.packages"
done

# Copies a file out of a package, links resolved, to the same path in the image (or to TO).
take() {
    local pkg="$1" from="$2" to="${3:-$2}"
    local src="$out.x/$pkg$from"
    [ -e "$src" ] || die "$pkg has no $from"
    mkdir -p "$out$(dirname "$to")"
    # A link inside the package may be absolute (/lib64/ld-linux-x86-64.so.2 -> /lib/...): resolve it there.
    while [ -L "$src" ]; do
        local target
        target="$(readlink "$src")"
        case "$target" in
            /*) src="$out.x/$pkg$target" ;;
            *) src="$(dirname "$src")/$target" ;;
        esac
    done
    cp "$src" "$out$to"
}

lib=/lib/x86_64-linux-gnu
for f in ld-linux-x86-64.so.2 libc.so.6 libm.so.6 libdl.so.2 libpthread.so.0 librt.so.1 libresolv.so.2 \
         libnss_files.so.2 libnss_dns.so.2; do
    take libc6 "$lib/$f"
done
# The program interpreter that every binary names (PT_INTERP).
take libc6 /lib64/ld-linux-x86-64.so.2
take libgcc-s1 "$lib/libgcc_s.so.1"
take libstdc++6 /usr/lib/x86_64-linux-gnu/libstdc++.so.6
take dash /bin/dash /bin/sh
take coreutils /usr/bin/dirname
take coreutils /bin/readlink
# The packages' licences (libgcc-s1's and libstdc++6's doc folders are links to gcc-12-base's).
for p in "${packages[@]}"; do
    if [ -e "$out.x/$p/usr/share/doc/$p/copyright" ]; then
        take "$p" "/usr/share/doc/$p/copyright"
    fi
done

# Every program and library in the image must find what it links against in the image.
for f in "$out"/bin/* "$out"/usr/bin/*; do
    for need in $(readelf -d "$f" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
        [ -e "$out$lib/$need" ] || [ -e "$out/usr/lib/x86_64-linux-gnu/$need" ] || die "$f needs $need, which the image lacks"
    done
done

mkdir -p "$out/etc"
cat >"$out/etc/passwd" <<'TXT'
root:x:0:0:root:/root:/usr/sbin/nologin
forge:x:10001:10001:ForgeLM:/home/forge:/usr/sbin/nologin
TXT
cat >"$out/etc/group" <<'TXT'
root:x:0:
forge:x:10001:
TXT
echo "passwd: files" >"$out/etc/nsswitch.conf"
echo "group: files" >>"$out/etc/nsswitch.conf"
echo "hosts: files dns" >>"$out/etc/nsswitch.conf"
printf '127.0.0.1 localhost\n::1 localhost\n' >"$out/etc/hosts"

# The image's folders: /models and the prompt cache are volumes, /tmp and the home are written at
# run time (a read-only root needs them mounted: an emptyDir in Kubernetes, a tmpfs elsewhere).
# /proc, /dev and /sys exist as mount points, so that a runtime can mount them on a read-only root.
mkdir -p "$out/models" "$out/var/cache/forge" "$out/home/forge" "$out/tmp" "$out/usr/local/bin" "$out/proc" "$out/dev" "$out/sys"
install -m 755 "$(dirname "${BASH_SOURCE[0]}")/forge-serve" "$out/usr/local/bin/forge-serve"
chmod 1777 "$out/tmp"
rm -rf "$out.x" "$out.apt.log"
echo "rootfs.sh: $out ($(du -sh "$out" | cut -f1)): $(tr '\n' ' ' <"$out.packages")"
