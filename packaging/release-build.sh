#!/usr/bin/env bash
# The release build: the one packaging/deb/build-deb.sh ships and every release build of the
# Makefile makes (benchmarks, install, link-order), so that the benchmarks measure what a kiosk
# runs and all of them share one .build/release (other flags would recompile it all).
# Usage: packaging/release-build.sh [swift build arguments]   e.g. --product mdoc-holder, --show-bin-path
#   SWIFT: the swift executable (default: swift)
# - the Swift runtime linked in (--static-swift-stdlib) and GCC's C++ library too (the runtime's
#   C++ parts) and GCC's unwinder too: the -L directory below holds linker scripts named
#   libstdc++.so and libgcc_s.so that stand for libstdc++.a and libgcc_eh.a + libgcc.a, found
#   before the shared ones (libstdc++: 0.7 ms less at start, 0.9 MB less resident; libgcc_s:
#   one library fewer to load and relocate, and its CPU probe, at every start);
# - no $ORIGIN search path; -z now: every symbol bound at start, the GOT read-only after;
# - the toolchain's ld.lld: relative relocations packed (-z pack-relative-relocs, DT_RELR, glibc
#   2.36: 20 kB read at start instead of 2.3 MB), the binary's own symbols not exported (nothing
#   looks them up), each function in a section of its own, placed in the order start-up runs
#   them (packaging/link-order.txt, made by `make link-order`). Still PIE (ASLR).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
exec "${SWIFT:-swift}" build --package-path "$root" -c release --static-swift-stdlib --disable-local-rpath \
    -Xlinker -z -Xlinker now \
    -Xswiftc -use-ld=lld -Xswiftc -Xfrontend -Xswiftc -function-sections \
    -Xlinker -z -Xlinker pack-relative-relocs -Xlinker --no-export-dynamic \
    -Xlinker "--symbol-ordering-file=$root/packaging/link-order.txt" -Xlinker --no-warn-symbol-ordering \
    -Xswiftc "-L$root/packaging/static-libstdc++" \
    "$@"
