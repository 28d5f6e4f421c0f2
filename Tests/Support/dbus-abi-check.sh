#!/usr/bin/env bash
# Sources/CDBus/shim.h declares the part of libdbus-1's ABI the DBus target uses (the library is
# loaded with dlopen, not linked, so the build needs no libdbus headers). This checks it against
# the headers of libdbus-1-dev: every function's type (compile-time), the structures' sizes and
# layouts, the constants' values. Usage: Tests/Support/dbus-abi-check.sh
set -euo pipefail
cd "$(dirname "$0")/dbus-abi"
clang=${CLANG:-$(dirname "$(readlink -f "$(command -v "${SWIFT:-swift}")")")/clang}
[ -x "$clang" ] || clang=clang
flags=$(pkg-config --cflags dbus-1) || { echo "dbus-abi-check: pkg-config dbus-1 failed: install libdbus-1-dev"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# shellcheck disable=SC2086
"$clang" -std=c11 -Wall -Werror -Wno-nullability-completeness $flags real.c -o "$tmp/real"
"$clang" -std=c11 -Wall -Werror -Wno-nullability-completeness own.c -o "$tmp/own"
"$tmp/real" >"$tmp/real.txt"
"$tmp/own" >"$tmp/own.txt"
if ! diff -u "$tmp/real.txt" "$tmp/own.txt"; then
    echo "dbus-abi-check: Sources/CDBus/shim.h's declarations differ from libdbus's (above: -libdbus +shim)"
    exit 1
fi
functions=$(grep -c '^    X(' ../../../Sources/CDBus/shim.h)
echo "dbus-abi-check: $functions functions typed as libdbus declares them, $(wc -l <"$tmp/own.txt") layout facts the same"
