#!/usr/bin/env bash
# Installs the Debian 12 packages the build and the tests need, when they are missing.
# Usage: Tests/Support/install-deps.sh [build|test]
set -euo pipefail
kind=${1:-build}
# Of libcurl, p11-kit and BlueZ only the headers are used at build time: the binaries load the
# first two when first used (dlopen) and need no function of libbluetooth.
packages=(pkg-config libcbor-dev libssl-dev libqrencode-dev libsqlite3-dev libdbus-1-dev libbluetooth-dev
  libp11-kit-dev libcurl4-openssl-dev zlib1g-dev)
# The release build links GCC's C++ library statically (packaging/release-build.sh).
packages+=(libstdc++-12-dev)
# make deb: dpkg-shlibdeps (dpkg-dev), strip and readelf (binutils).
packages+=(dpkg-dev binutils)
if [ "$kind" = test ]; then
  packages+=(python3 python3-venv dbus-daemon zbar-tools tmux curl)
  # packaging-test.sh and service-test.sh: dbus-send, the D-Bus peers (Debian's python3-dbus and python3-gi for
  # /usr/bin/python3), systemd-analyze, udevadm, setpriv and unshare.
  packages+=(dbus-bin python3-dbus python3-gi systemd udev util-linux)
  # Secure areas: a software TPM on loopback and OpenSSL's tpm2 provider; a software PKCS#11
  # token (the p11-kit headers the PKCS#11 wrapper is built against are a build package above).
  packages+=(swtpm swtpm-tools tpm2-openssl tpm2-tools softhsm2)
  # vci-test.sh: an issuer at a public address in a network namespace (ip), connects traced (strace).
  packages+=(iproute2 strace)
  # deb-test.sh: lintian on the package, a clean Debian 12 root made with debootstrap.
  packages+=(lintian debootstrap)
fi
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "installing: ${missing[*]}"
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
fi
if ! command -v swift >/dev/null; then
  echo "error: no Swift toolchain on PATH. Install Swift 6.x for Debian 12 (see README)." >&2
  exit 1
fi
