#!/usr/bin/env bash
# The Debian package (`make deb`, packaging/deb/), checked:
#   (a) it builds: mdoc-holder_VERSION_ARCH.deb in .build/deb, from release builds with the Swift
#       runtime linked statically (the time of the build is printed);
#   (b) its file list is exactly the expected one (modes, root:root), /etc/default/mdoc-holder a
#       conffile;
#   (c) its control file: Depends names the package of every library the binaries link or load
#       when first used (libcurl, p11-kit), plus systemd | systemd-sysusers; Recommends
#       bluez; Suggests the TPM and PKCS#11 pieces;
#   (d) ldd of every binary names only libraries of Debian packages (dpkg -S), none of the
#       toolchain's, and none of those loaded when first used;
#   (e) lintian reports no error;
#   (f) on a clean Debian 12 root (debootstrap --variant=minbase bookworm, no Swift; made once
#       from Debian's packages with the mirror in /etc/apt/sources.list.d and cached as
#       .build/debian-root.tar) in a chroot: `apt-get install ./mdoc-holder_*.deb` installs it and
#       what it needs; --help and --version of the three commands, the Documentation= links
#       of the unit, the service user, a credential import of the committed fixture into the
#       service's new store (as the operator guide does it), `credentials list`, `engagement
#       --qr uri` and `engagement --qr png:` (written without an image library) work; `apt-get remove` keeps
#       the store and the conffile and nothing else; `apt-get purge` leaves nothing of the
#       package; a second install, use, reinstall (an edited conffile stays), remove and purge
#       leaves the root's file list and its users and groups exactly as before.
# The systemd-booted tier (the unit run by systemd, D-Bus activation) is not here.
#
# Usage: Tests/Support/deb-test.sh [--root-only]   (root: chroot, mount; the network to the
# Debian mirror for debootstrap the first time and for apt-get in the root). --root-only makes
# the cached root and stops; DEB_TEST_REBUILD_ROOT=1 makes it again.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$root"

if [ "$(id -u)" -ne 0 ]; then
    echo "deb-test: needs root (chroot, mount, debootstrap)" >&2
    echo "deb: 0 passed, 1 failed"
    exit 1
fi
. Tests/Support/lib/tier.sh

version="$(cat VERSION)"
arch="$(dpkg --print-architecture)"
deb=".build/deb/mdoc-holder_${version}_${arch}.deb"
# Nothing stays mounted: every mount is made in a private mount namespace (in_root).
tier_begin deb "$root/.build/deb-test.XXXXXX"
tier_verbose=1
chroot_dir="$tmp/root"

# ---- the clean Debian 12 root (cached) ------------------------------------------------------
root_tar="$root/.build/debian-root.tar"
mirror="$(sed -n 's/^URIs: *//p' /etc/apt/sources.list.d/debian.sources 2>/dev/null | head -1)"
mirror="${mirror:-http://deb.debian.org/debian}"

# in_root COMMAND...: runs COMMAND in the chroot, with /proc and /dev mounted in a private mount
# namespace (gone when it ends), the host's resolver, no service started by a package
# (policy-rc.d), a plain environment.
in_root() {
    unshare -m --propagation private sh -c '
        mount -t proc proc "$0/proc" && mount --rbind /dev "$0/dev" && exec chroot "$0" "$@"' "$chroot_dir" \
        env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 DEBIAN_FRONTEND=noninteractive "$@"
}

make_root() {
    local start=$SECONDS
    echo "making the Debian 12 root (debootstrap --variant=minbase bookworm $mirror) into $root_tar"
    mkdir -p "$chroot_dir"
    if ! debootstrap --variant=minbase bookworm "$chroot_dir" "$mirror" >"$tmp/debootstrap.log" 2>&1; then
        ko "debootstrap --variant=minbase bookworm"
        tail -30 "$tmp/debootstrap.log"
        tier_summary "(no root: the install checks did not run)"
        exit 1
    fi
    # The host's apt sources (bookworm, bookworm-updates, the security archive), so that the
    # root finds the versions the package was built against.
    rm -f "$chroot_dir/etc/apt/sources.list"
    cp /etc/apt/sources.list.d/debian.sources "$chroot_dir/etc/apt/sources.list.d/"
    printf '#!/bin/sh\n# deb-test.sh: packages start no service in this root\nexit 101\n' >"$chroot_dir/usr/sbin/policy-rc.d"
    chmod 0755 "$chroot_dir/usr/sbin/policy-rc.d"
    cp /etc/resolv.conf "$chroot_dir/etc/resolv.conf"
    in_root apt-get update -qq >"$tmp/update.log" 2>&1 || { cat "$tmp/update.log"; }
    in_root apt-get clean
    tar -C "$chroot_dir" -cf "$root_tar.tmp" . && mv "$root_tar.tmp" "$root_tar"
    rm -rf "$chroot_dir"
    echo "made $root_tar ($(du -h "$root_tar" | cut -f1)) in $((SECONDS - start)) s"
}
if [ ! -s "$root_tar" ] || [ -n "${DEB_TEST_REBUILD_ROOT:-}" ]; then
    make_root
fi
[ "${1:-}" != --root-only ] || exit 0

# ---- (a) make deb ------------------------------------------------------------------------
start=$SECONDS
if make -s deb >"$tmp/deb.log" 2>&1; then
    ok "make deb ($((SECONDS - start)) s)"
    grep '^build-deb: ' "$tmp/deb.log" || true
else
    ko "make deb"
    tail -40 "$tmp/deb.log"
    tier_summary "(no package: nothing else ran)"
    exit 1
fi
check "the package is $deb" test -s "$deb"

# ---- (b) the file list ---------------------------------------------------------------------
expected="$tmp/expected"
{
    echo "-rw-r--r-- etc/default/mdoc-holder"
    for c in mdoc-holder mdoc-reader mdoc-issuer; do
        echo "-rwxr-xr-x usr/bin/$c"
        echo "-rw-r--r-- usr/share/bash-completion/completions/$c"
        echo "-rw-r--r-- usr/share/zsh/vendor-completions/_$c"
        echo "-rw-r--r-- usr/share/fish/vendor_completions.d/$c.fish"
        echo "-rw-r--r-- usr/share/man/man1/$c.1.gz"
    done
    for f in lib/systemd/system/mdoc-holder.service lib/sysusers.d/mdoc-holder.conf \
        lib/udev/rules.d/90-mdoc-holder.rules share/dbus-1/system.d/org.mdocholder.conf \
        share/dbus-1/system-services/org.mdocholder.service \
        share/dbus-1/interfaces/org.mdocholder.Holder1.xml share/dbus-1/interfaces/org.mdocholder.ConsentAgent1.xml \
        share/mdoc-holder/systemd/online.conf share/mdoc-holder/systemd/kiosk.conf \
        share/mdoc-holder/systemd/kiosk-tty.conf share/mdoc-holder/systemd/tpm.conf \
        share/doc/mdoc-holder/copyright share/doc/mdoc-holder/changelog.gz share/doc/mdoc-holder/README.md \
        share/doc/mdoc-holder/operator-guide.md share/doc/mdoc-holder/kiosk-policy.md \
        share/doc/mdoc-holder/bluez-configuration.md share/doc/mdoc-holder/examples/kiosk-policy.toml \
        share/lintian/overrides/mdoc-holder; do
        echo "-rw-r--r-- usr/$f"
    done
} | sort -k2 >"$expected"
# dpkg-deb -c: MODE OWNER/GROUP SIZE DATE TIME ./PATH
dpkg-deb -c "$deb" >"$tmp/contents"
awk '$1 !~ /^d/ { sub(/^\.\//, "", $6); print $1, $6 }' "$tmp/contents" | sort -k2 >"$tmp/found"
if diff -u "$expected" "$tmp/found" >"$tmp/files.diff"; then
    ok "files and modes ($(wc -l <"$expected") files, nothing else)"
else
    ko "files and modes"
    cat "$tmp/files.diff"
fi
not_root="$(awk '$2 != "root/root"' "$tmp/contents")"
check "every file and directory is root:root" test -z "$not_root"
bad_dirs="$(awk '$1 ~ /^d/ && $1 != "drwxr-xr-x"' "$tmp/contents")"
check "every directory is 0755" test -z "$bad_dirs"
check "conffiles: /etc/default/mdoc-holder" test "$(dpkg-deb -I "$deb" conffiles)" = /etc/default/mdoc-holder
dpkg-deb -x "$deb" "$tmp/x"
check "the man pages are gzipped man pages" bash -c 'for c in mdoc-holder mdoc-reader mdoc-issuer; do
    zcat "$1/usr/share/man/man1/$c.1.gz" | grep -q "^\.Dt" || exit 1; done' _ "$tmp/x"
unit="$tmp/x/usr/lib/systemd/system/mdoc-holder.service"
check "unit: ExecStart=/usr/bin/mdoc-holder serve" grep -q '^ExecStart=/usr/bin/mdoc-holder serve ' "$unit"
check "maintainer scripts: postinst, prerm, postrm (set -e, no #DEBHELPER#)" bash -c '
    for s in postinst prerm postrm; do dpkg-deb -I "$1" "$s" >"$2/$s" && grep -qx "set -e" "$2/$s" &&
        ! grep -q DEBHELPER "$2/$s" || exit 1; done' _ "$deb" "$tmp"
check "postinst enables and starts nothing" bash -c '! grep -E "(enable|start|trigger)\b" "$1/postinst" | grep -v "^ *#" | grep -v try-restart' _ "$tmp"

# ---- (c) the control file ------------------------------------------------------------------
depends="$(dpkg-deb -f "$deb" Depends)"
echo "Depends: $depends"
# libcurl4, libp11-kit0, libdbus-1-3, libsqlite3-0: loaded when first used (dlopen), named by
# build-deb.sh.
for p in libc6 libssl3 libcurl4 libcbor0.8 libsqlite3-0 libdbus-1-3 libqrencode4 libp11-kit0; do
    check "Depends names $p" bash -c 'tr "," "\n" <<<"$1" | sed "s/^ *//; s/ .*//" | grep -qxF "$2"' _ "$depends" "$p"
done
# GCC's C++ library is linked in (packaging/release-build.sh), so nothing depends on libstdc++6.
check "Depends does not name libstdc++6 (linked in)" bash -c '! tr "," "\n" <<<"$1" | grep -q libstdc++' _ "$depends"
check "Depends: systemd | systemd-sysusers" grep -qE '(^|, )systemd \| systemd-sysusers(,|$)' <<<"$depends"
check "Recommends: bluez" test "$(dpkg-deb -f "$deb" Recommends)" = bluez
suggests="$(dpkg-deb -f "$deb" Suggests)"
check "Suggests tpm2-openssl and a PKCS#11 module ($suggests)" bash -c 'grep -q tpm2-openssl <<<"$1" && grep -q softhsm2 <<<"$1"' _ "$suggests"
check "Version: $version" test "$(dpkg-deb -f "$deb" Version)" = "$version"

# ---- (d) ldd -------------------------------------------------------------------------------
ok=1
for c in mdoc-holder mdoc-reader mdoc-issuer; do
    libs="$(ldd "$tmp/x/usr/bin/$c" | awk '/=>/ { print $3 } /^\s*\/[^ ]*ld-linux/ { print $1 }')"
    owners=""
    for lib in $libs; do
        owner=""
        for candidate in "$lib" "$(readlink -f "$lib")" "/usr$lib" "${lib#/usr}"; do
            owner="$(dpkg -S "$candidate" 2>/dev/null | head -1 | cut -d: -f1)" && [ -n "$owner" ] && break
        done
        if [ -z "$owner" ]; then
            ok=0
            echo "$c: $lib belongs to no Debian package"
        fi
        owners="$owners $(basename "$lib")=$owner"
    done
    echo "ldd $c:$owners"
    if ldd "$tmp/x/usr/bin/$c" | grep -qE 'libswift|libFoundation|lib_Foundation|libdispatch|libBlocksRuntime|/opt/|not found'; then
        ok=0
        ldd "$tmp/x/usr/bin/$c"
    fi
done
check "ldd: every library of the three binaries is from a Debian package (dpkg -S), none of the toolchain's" test "$ok" -eq 1
# Loaded when first used (libcurl, p11-kit, libdbus, SQLite) or not needed at all (libpng,
# libbluetooth, libssl).
check "ldd: no libcurl, libp11-kit, libdbus-1, libsqlite3, libpng16, libbluetooth or libssl at start" bash -c '
    for c in mdoc-holder mdoc-reader mdoc-issuer; do
        ! readelf -d "$1/$c" | grep -E "NEEDED.*(libcurl|libp11-kit|libdbus|libsqlite3|libpng16|libbluetooth|libssl)" ||
            exit 1; done' _ "$tmp/x/usr/bin"

# ---- (e) lintian -----------------------------------------------------------------------------
# As nobody: lintian warns when run as root.
lintian_out="$(setpriv --reuid=65534 --regid=65534 --clear-groups env HOME=/tmp lintian --tag-display-limit 0 "$deb" 2>&1 || true)"
echo "lintian: $(grep -c '^E: ' <<<"$lintian_out" || true) errors, $(grep -c '^W: ' <<<"$lintian_out" || true) warnings"
[ -z "$lintian_out" ] || echo "$lintian_out"
check "lintian reports no error" bash -c '! grep -q "^E: " <<<"$1"' _ "$lintian_out"

# ---- (f) a clean Debian 12 root ---------------------------------------------------------------
start=$SECONDS
mkdir -p "$chroot_dir"
tar -C "$chroot_dir" -xf "$root_tar"
cp /etc/resolv.conf "$chroot_dir/etc/resolv.conf"
check "the clean root has no Swift" bash -c '! ls "$1"/usr/lib/swift "$1"/usr/bin/swift* "$1"/opt/swift >/dev/null 2>&1' _ "$chroot_dir"
check "the clean root has no systemd, no bluez (apt-get must bring what is needed)" \
    bash -c '! chroot "$1" dpkg-query -W -f="\${Status}\n" systemd 2>/dev/null | grep -q "install ok installed"' _ "$chroot_dir"

# snapshot FILE: every path of the root (not the kernel's, not apt's caches and logs) with its
# type, and the users and groups.
snapshot() {
    (cd "$chroot_dir" && find . -xdev \( -path ./proc -o -path ./dev -o -path ./sys -o -path ./run -o -path ./tmp \
        -o -path ./var/cache -o -path ./var/lib/apt/lists -o -path ./var/log \) -prune -o -printf '%y %P\n' | sort) >"$1"
    cut -d: -f1,3,4 "$chroot_dir/etc/passwd" | sed 's/^/passwd /' >>"$1"
    cut -d: -f1,3,4 "$chroot_dir/etc/group" | sed 's/^/group /' >>"$1"
}
snapshot "$tmp/fresh"

cp "$deb" "$chroot_dir/tmp/"
mkdir -p "$chroot_dir/tmp/import"
cp Fixtures/mdl.cbor Fixtures/mdl-device-key.pem Fixtures/pki/iaca.pem "$chroot_dir/tmp/import/"
chmod -R a+rX "$chroot_dir/tmp/import"
in_root apt-get update -qq >"$tmp/update.log" 2>&1 || cat "$tmp/update.log"

# use_it ROUND: the checks on the installed package.
use_it() {
    local round="$1" out
    for c in mdoc-holder mdoc-reader mdoc-issuer; do
        out="$(in_root "$c" --version 2>&1 || true)"
        check "$round: $c --version prints $version" test "$out" = "$version"
        if in_root "$c" --help >"$tmp/help.out" 2>&1 && grep -q '^USAGE:' "$tmp/help.out"; then
            ok "$round: $c --help"
        else
            ko "$round: $c --help"
            cat "$tmp/help.out"
        fi
    done
    check "$round: ldd in the root finds every library" bash -c '
        for c in mdoc-holder mdoc-reader mdoc-issuer; do chroot "$1" ldd /usr/bin/$c | grep -q "not found" && exit 1; done; true' \
        _ "$chroot_dir"
    check "$round: the user and group mdoc-holder exist; the user is in bluetooth" bash -c '
        chroot "$1" getent passwd mdoc-holder >/dev/null && chroot "$1" getent group mdoc-holder >/dev/null &&
        chroot "$1" id -nG mdoc-holder | grep -qw bluetooth' _ "$chroot_dir"
    check "$round: /var/lib/mdoc-holder is 0700 mdoc-holder:mdoc-holder" \
        test "$(chroot "$chroot_dir" stat -c '%a %U:%G' /var/lib/mdoc-holder)" = "700 mdoc-holder:mdoc-holder"
    local doc_ok=1 link
    for link in $(sed -n 's/^Documentation=//p' "$chroot_dir/usr/lib/systemd/system/mdoc-holder.service"); do
        case "$link" in
        file://*) [ -f "$chroot_dir${link#file://}" ] || { doc_ok=0; echo "missing: $link"; } ;;
        man:*)
            local page="${link#man:}"
            [ -f "$chroot_dir/usr/share/man/man${page//[^0-9]/}/${page%%(*}.${page//[^0-9]/}.gz" ] \
                || { doc_ok=0; echo "missing: $link"; } ;;
        *) doc_ok=0; echo "unknown link: $link" ;;
        esac
    done
    check "$round: every Documentation= link of the unit resolves" test "$doc_ok" -eq 1
    # As the operator guide: a KEK, the import as the service user into the service's store.
    head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$chroot_dir/run/kek"
    echo >>"$chroot_dir/run/kek"
    chmod 0644 "$chroot_dir/run/kek"
    out="$(in_root runuser -u mdoc-holder -- mdoc-holder credentials import /tmp/import/mdl.cbor \
        --device-key /tmp/import/mdl-device-key.pem --trust-anchor /tmp/import/iaca.pem \
        --store /var/lib/mdoc-holder/wallet.sqlite --kek-file /run/kek 2>&1)" \
        && ok "$round: credential import of the fixture into a new store as mdoc-holder" \
        || { ko "$round: credential import"; echo "$out"; }
    rm -f "$chroot_dir/run/kek"
    out="$(in_root runuser -u mdoc-holder -- mdoc-holder credentials list --store /var/lib/mdoc-holder/wallet.sqlite 2>&1)" || true
    check "$round: credentials list shows the mDL" grep -q 'org.iso.18013.5.1.mDL' <<<"$out"
    grep -q 'org.iso.18013.5.1.mDL' <<<"$out" || echo "$out"
    out="$(in_root mdoc-holder engagement --qr uri 2>&1)" || true
    check "$round: engagement --qr uri prints an mdoc: URI" grep -q '^mdoc:' <<<"$out"
    grep -q '^mdoc:' <<<"$out" || echo "$out"
    # The PNG is written by the QRCode target itself (zlib deflates it): no image library.
    out="$(in_root mdoc-holder engagement --qr png:/tmp/engagement.png 2>&1)" || true
    check "$round: engagement --qr png writes a PNG" bash -c \
        '[ "$(head -c 8 "$1" | od -An -tx1 | tr -d " ")" = 89504e470d0a1a0a ]' _ "$chroot_dir/tmp/engagement.png"
    [ -s "$chroot_dir/tmp/engagement.png" ] || echo "$out"
    rm -f "$chroot_dir/tmp/engagement.png"
}

# remove_and_purge ROUND: remove keeps the store and the conffile, purge takes everything.
remove_and_purge() {
    local round="$1" left out
    if in_root apt-get remove -y -qq mdoc-holder >"$tmp/remove.log" 2>&1; then
        ok "$round: apt-get remove mdoc-holder"
    else
        ko "$round: apt-get remove mdoc-holder"
        cat "$tmp/remove.log"
    fi
    # dpkg keeps its own records of a removed package's conffiles (var/lib/dpkg/info) until the purge.
    left="$(cd "$chroot_dir" && find . -xdev \( -path ./proc -o -path ./dev -o -path ./tmp -o -path ./var/lib/dpkg/info \) \
        -prune -o -name '*mdoc*' -print | sort | tr '\n' ' ')"
    check "$round: after remove only the conffile and the store are left ($left)" \
        test "$left" = "./etc/default/mdoc-holder ./var/lib/mdoc-holder "
    check "$round: after remove the store is there" test -s "$chroot_dir/var/lib/mdoc-holder/wallet.sqlite"
    if [ "$round" = "round 1" ]; then
        # Installed again, the package finds the credential in the store the removal kept.
        in_root apt-get install -y -qq "/tmp/$(basename "$deb")" >"$tmp/reinstall.log" 2>&1 || cat "$tmp/reinstall.log"
        out="$(in_root runuser -u mdoc-holder -- mdoc-holder credentials list --store /var/lib/mdoc-holder/wallet.sqlite 2>&1)" || true
        check "$round: remove, install again: credentials list still shows the mDL" grep -q 'org.iso.18013.5.1.mDL' <<<"$out"
        in_root apt-get remove -y -qq mdoc-holder >"$tmp/remove.log" 2>&1 || cat "$tmp/remove.log"
    fi
    if in_root apt-get purge -y -qq mdoc-holder >"$tmp/purge.log" 2>&1; then
        ok "$round: apt-get purge mdoc-holder"
    else
        ko "$round: apt-get purge mdoc-holder"
        cat "$tmp/purge.log"
    fi
    check "$round: purge says it removes the credential store" grep -q 'purge removes /var/lib/mdoc-holder, the credential store' "$tmp/purge.log"
    left="$(cd "$chroot_dir" && find . -xdev \( -path ./proc -o -path ./dev -o -path ./tmp \) -prune -o -name '*mdoc*' -print)"
    check "$round: after purge no path of the root names mdoc" test -z "$left"
    [ -z "$left" ] || echo "$left"
    check "$round: after purge no user or group mdoc-holder" \
        bash -c '! grep -q "^mdoc-holder:" "$1/etc/passwd" "$1/etc/group" "$1/etc/shadow" "$1/etc/gshadow"' _ "$chroot_dir"
    check "$round: dpkg forgot the package" bash -c '! chroot "$1" dpkg-query -W mdoc-holder >/dev/null 2>&1' _ "$chroot_dir"
}

# Round 1: on the fresh root apt-get brings the dependencies.
install_start=$SECONDS
if in_root apt-get install -y -q "/tmp/$(basename "$deb")" >"$tmp/install.log" 2>&1; then
    ok "round 1: apt-get install ./$(basename "$deb") on the clean root ($((SECONDS - install_start)) s)"
    sed -n 's/^The following NEW packages will be installed:/&/p; /^The following NEW packages/,/^[0-9]* upgraded/p' "$tmp/install.log" \
        | grep -v '^The following' | tr -s ' \n' ' ' | sed 's/^/  installed with it:/'
    echo
else
    ko "round 1: apt-get install ./$(basename "$deb") on the clean root"
    tail -40 "$tmp/install.log"
fi
use_it "round 1"
remove_and_purge "round 1"

# Round 2: the dependencies are in place; install, use, remove and purge change nothing.
snapshot "$tmp/before"
if in_root apt-get install -y -q "/tmp/$(basename "$deb")" >"$tmp/install2.log" 2>&1; then
    ok "round 2: apt-get install again"
else
    ko "round 2: apt-get install again"
    tail -40 "$tmp/install2.log"
fi
use_it "round 2"
# The same version installed over itself (postinst configure with the old version: the upgrade
# path): an edited conffile stays, the user and the store are reused.
echo 'MDOC_HOLDER_OPTIONS="--adapter hci1"' >"$chroot_dir/etc/default/mdoc-holder"
if in_root apt-get install --reinstall -y -q "/tmp/$(basename "$deb")" >"$tmp/reinstall.log" 2>&1; then
    ok "round 2: apt-get install --reinstall"
else
    ko "round 2: apt-get install --reinstall"
    tail -20 "$tmp/reinstall.log"
fi
check "round 2: the edited /etc/default/mdoc-holder is kept" \
    grep -qx 'MDOC_HOLDER_OPTIONS="--adapter hci1"' "$chroot_dir/etc/default/mdoc-holder"
out="$(in_root runuser -u mdoc-holder -- mdoc-holder credentials list --store /var/lib/mdoc-holder/wallet.sqlite 2>&1)" || true
check "round 2: after the reinstall the store still lists the mDL" grep -q 'org.iso.18013.5.1.mDL' <<<"$out"
remove_and_purge "round 2"
snapshot "$tmp/after"
if diff -u "$tmp/before" "$tmp/after" >"$tmp/round2.diff"; then
    ok "round 2: install, use, remove, purge leave the root's files, users and groups as before ($(wc -l <"$tmp/before") entries)"
else
    ko "round 2: the root differs after purge"
    head -50 "$tmp/round2.diff"
fi
# Control: the comparison sees a file left behind in /var/lib, and a user left behind.
mkdir -p "$chroot_dir/var/lib/mdoc-holder-control"
in_root useradd --system --no-create-home control-user
snapshot "$tmp/control"
diff "$tmp/before" "$tmp/control" >"$tmp/control.diff" || true
check "round 2: the comparison sees a directory and a user left behind (control)" \
    bash -c 'grep -qx "> d var/lib/mdoc-holder-control" "$1" && grep -q "^> passwd control-user:" "$1"' _ "$tmp/control.diff"
echo "deb-test: chroot part $((SECONDS - start)) s"

tier_summary
