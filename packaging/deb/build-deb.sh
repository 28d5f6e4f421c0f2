#!/usr/bin/env bash
# Builds the Debian package mdoc-holder_VERSION_ARCH.deb into OUT_DIR (`make deb`: .build/deb).
#   1. release builds of the three commands with the Swift runtime linked statically
#      (--static-swift-stdlib; no $ORIGIN RUNPATH; -z now): `ldd` then names only libraries of
#      Debian packages;
#   2. `make install DESTDIR=OUT_DIR/build/debian/mdoc-holder PREFIX=/usr` stages them with
#      Debian's layout (zsh completions in vendor-completions), stripped, man pages gzipped, the
#      copyright file, changelog.gz and the lintian overrides (each with its reason);
#   3. DEBIAN/: control (Depends from dpkg-shlibdeps on the binaries, plus systemd-sysusers for
#      postinst), conffiles (/etc/default/mdoc-holder), md5sums, the maintainer scripts here;
#   4. dpkg-deb --root-owner-group --build.
# VERSION (the top of the repository) is the package's version; the changelog here must start
# with it. Prints how long the release builds and the packaging took.
# Usage: packaging/deb/build-deb.sh [OUT_DIR]
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$root"
here=packaging/deb
out="${1:-.build/deb}"
mkdir -p "$out"
out="$(cd "$out" && pwd)"
swift="${SWIFT:-swift}"
package=mdoc-holder
version="$(cat VERSION)"
arch="$(dpkg --print-architecture)"
deb="$out/${package}_${version}_${arch}.deb"
commands=(mdoc-holder mdoc-reader mdoc-issuer)

changelog_version="$(sed -n '1s/^mdoc-holder (\([^)]*\)).*/\1/p' "$here/changelog")"
if [ "$changelog_version" != "$version" ]; then
    echo "build-deb: $here/changelog starts with $changelog_version, VERSION says $version: add an entry" >&2
    exit 1
fi

# ---- 1. release builds -----------------------------------------------------------------------
start=$SECONDS
# The release build every release build of the Makefile makes (packaging/release-build.sh).
for c in "${commands[@]}"; do
    SWIFT="$swift" "$root/packaging/release-build.sh" --product "$c"
done
bin="$(SWIFT="$swift" "$root/packaging/release-build.sh" --show-bin-path)"
echo "build-deb: release builds (--static-swift-stdlib): $((SECONDS - start)) s"
for c in "${commands[@]}"; do
    # Nothing from the toolchain: no libswift*, libFoundation*, libdispatch, libBlocksRuntime.
    if ldd "$bin/$c" | grep -E 'libswift|libFoundation|lib_Foundation|libdispatch|libBlocksRuntime|/opt/|not found'; then
        echo "build-deb: $bin/$c links the toolchain's libraries (above): not a static Swift runtime" >&2
        exit 1
    fi
    if readelf -d "$bin/$c" | grep -E 'RPATH|RUNPATH'; then
        echo "build-deb: $bin/$c has a library search path (above)" >&2
        exit 1
    fi
    if ! readelf -d "$bin/$c" | grep -qE 'FLAGS.*\bNOW\b|BIND_NOW'; then
        echo "build-deb: $bin/$c is not linked with -z now" >&2
        exit 1
    fi
done

# ---- 2. the tree -----------------------------------------------------------------------------
start=$SECONDS
# The tree in debhelper's place (debian/PACKAGE under a throw-away source tree), where
# dpkg-shlibdeps expects it.
work="$out/build"
stage="$work/debian/$package"
rm -rf "$work"
mkdir -p "$stage"
# The default names: the maintainer scripts make and remove the user and group mdoc-holder.
make -s install DESTDIR="$stage" PREFIX=/usr BIN_DIR="$bin" SERVICE_USER=mdoc-holder HOLDER_GROUP=mdoc-holder \
    zshcompletiondir=/usr/share/zsh/vendor-completions >"$work/install.log" \
    || { cat "$work/install.log" >&2; exit 1; }
doc="$stage/usr/share/doc/$package"
for c in "${commands[@]}"; do
    # What dh_strip does for executables.
    strip --remove-section=.comment --remove-section=.note "$stage/usr/bin/$c"
    gzip -9n "$stage/usr/share/man/man1/$c.1"
done
install -m 0644 "$here/copyright" "$doc/copyright"
# A native package: its Debian changelog is changelog.gz.
gzip -9nc "$here/changelog" >"$doc/changelog.gz"
chmod 0644 "$doc/changelog.gz"
if [ -s "$here/lintian-overrides" ]; then
    install -d -m 0755 "$stage/usr/share/lintian/overrides"
    install -m 0644 "$here/lintian-overrides" "$stage/usr/share/lintian/overrides/$package"
fi

# ---- 3. DEBIAN/ ------------------------------------------------------------------------------
# dpkg-shlibdeps wants a source package's debian/control (a throw-away one in $work) and knows
# the package's tree by its DEBIAN directory.
install -d -m 0755 "$stage/DEBIAN"
printf 'Source: %s\n\nPackage: %s\nArchitecture: any\n' "$package" "$package" >"$work/debian/control"
shlibs="$(cd "$work" && dpkg-shlibdeps -O $(printf -- "-edebian/$package/usr/bin/%s " "${commands[@]}") 2>"$work/shlibdeps.err")" \
    || { cat "$work/shlibdeps.err" >&2; exit 1; }
[ ! -s "$work/shlibdeps.err" ] || sed 's/^/build-deb: /' "$work/shlibdeps.err" >&2
depends="${shlibs#shlibs:Depends=}"
[ -n "$depends" ] && [ "$depends" != "$shlibs" ] || { echo "build-deb: dpkg-shlibdeps said: $shlibs" >&2; exit 1; }
# Libraries loaded (dlopen) when first used, not linked, so dpkg-shlibdeps does not see them:
# libcurl.so.4 of the OpenSSL flavour, with curl_url's CURLU_PUNYCODE (7.88), when an online flow
# first needs it; libp11-kit.so.0 when a PKCS#11 module is first loaded (p11_kit_module_load's
# symbol version, 0.23.18.1); libdbus-1.so.3 when a bus is first used (1.12: every function the
# DBus target calls); libsqlite3.so.0 when a database is first opened (sqlite3_changes64, 3.37).
for dependency in "libcurl4 (>= 7.88.0)" "libp11-kit0 (>= 0.23.18.1)" "libdbus-1-3 (>= 1.12.0)" \
    "libsqlite3-0 (>= 3.37.0)"; do
    case ", $depends," in *", ${dependency%% *}"[\ ,]*) ;; *) depends="$depends, $dependency" ;; esac
done
# Packed relative relocations (DT_RELR) are applied by glibc 2.36 and later only; ld.lld does not
# mark the binaries with GLIBC_ABI_DT_RELR, so dpkg-shlibdeps cannot see it.
depends="$(printf '%s' "$depends" | sed -E 's/libc6 \(>= 2\.(2[0-9]|3[0-5])(\.[0-9]+)?\)/libc6 (>= 2.36)/')"
installed_size="$(du -sk --exclude=DEBIAN "$stage" | cut -f1)"
cat >"$stage/DEBIAN/control" <<CONTROL
Package: $package
Version: $version
Architecture: $arch
Maintainer: mdoc-holder maintainers <maintainers@users.noreply.a-seed-3fea3e11.example>
Installed-Size: $installed_size
Depends: $depends, systemd | systemd-sysusers
Recommends: bluez
Suggests: tpm2-openssl, opensc-pkcs11 | softhsm2
Section: utils
Priority: optional
Description: ISO/IEC 18013-5 mdoc holder service (mobile driving licence)
 mdoc-holder presents ISO/IEC 18013-5 mdocs, such as the mobile driving
 licence, to a reader over Bluetooth LE (BlueZ), and online with OpenID4VP.
 It receives credentials with OpenID4VCI and keeps them in a local store,
 with device keys in software, a TPM 2.0 or a PKCS#11 token.
 .
 The package holds mdoc-holder (a command and a system service on D-Bus,
 with a kiosk mode), mdoc-reader (a reader and conformance tester) and
 mdoc-issuer (a test issuer), the systemd unit and its drop-ins, the D-Bus
 policy and the udev rule. The service is not enabled by installing it.
CONTROL
echo /etc/default/mdoc-holder >"$stage/DEBIAN/conffiles"
(cd "$stage" && find . -path ./DEBIAN -prune -o -path ./etc -prune -o -type f -printf '%P\0' | sort -z \
    | xargs -0 md5sum) >"$stage/DEBIAN/md5sums"
install -m 0755 "$here/postinst" "$here/prerm" "$here/postrm" "$stage/DEBIAN/"
chmod 0644 "$stage/DEBIAN/control" "$stage/DEBIAN/conffiles" "$stage/DEBIAN/md5sums"

# ---- 4. the package --------------------------------------------------------------------------
rm -f "$out/${package}_"*"_$arch.deb"
dpkg-deb --root-owner-group -Zxz --build "$stage" "$deb" >/dev/null
echo "build-deb: staging and dpkg-deb: $((SECONDS - start)) s"
echo "build-deb: $deb ($(du -h "$deb" | cut -f1), Installed-Size $installed_size KiB)"
echo "build-deb: Depends: $depends, systemd | systemd-sysusers"
