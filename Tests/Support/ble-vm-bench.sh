#!/usr/bin/env bash
# BLE benchmarks through a real bluetoothd, in one boot of the BlueZ VM (Tests/Support/bluez-vm):
# the Python reference server, mdoc-ble-benchmarks, and (bluetoothd stopped) the link's own limits
# with the holder's times as ratios to them. Prints the figures (also kept in
# .build/vm-bench/result-CONF.txt).
#   Tests/Support/ble-vm-bench.sh [BIN_DIR]     # BIN_DIR default .build/release (make bench-ble;
#                                               # BENCH_BUILD=debug make bench-ble for debug)
#   BENCH_CONF=default ...                      # BlueZ defaults (EATT) instead of vm/main.conf
set -euo pipefail
cd "$(dirname "$0")/../.."
bin=$(realpath "${1:-.build/release}")
for b in mdoc-holder mdoc-issuer mdoc-ble-benchmarks; do
  [ -x "$bin/$b" ] || { echo "ble-vm-bench: $bin/$b not found: build it first" >&2; exit 2; }
done
conf=${BENCH_CONF:-main}
work="$PWD/.build/vm-bench"
rm -rf "$work/data"
mkdir -p "$work"
Tests/Support/vm/prepare.sh "$bin" "$work/data"
t0=$(date +%s)
BLUEZ_VM_MAIN_CONF="Tests/Support/vm/$conf.conf" BLUEZ_VM_LOGS="$work/logs-$conf" \
  flock /tmp/bluez-vm.lock Tests/Support/bluez-vm/run-in-vm.sh \
  Tests/Support/vm/bench-ble.sh "$bin" "$work/data" | tee "$work/result-$conf.txt"
echo "bench: wall time $(($(date +%s) - t0)) s (one boot, vm/$conf.conf)"
