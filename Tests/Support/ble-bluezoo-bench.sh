#!/usr/bin/env bash
# The holder's latencies on BlueZoo (the BlueZ D-Bus API mock, Tests/Support/bluezoo-bus.sh):
# `mdoc-ble-benchmarks --only holder` (GATT; BlueZoo has no L2CAP) with a fresh bus + mock per
# session (BlueZoo takes one connection per mock), then process start to the mdoc: URI. No
# radio and no kernel: what is left is D-Bus and our own processes, so this shows the holder's
# own share of the latency. Run it on a release build (`make bench-ble-bluezoo` does).
#   Tests/Support/ble-bluezoo-bench.sh [BIN_DIR] [RUNS]     # BIN_DIR default .build/release
set -euo pipefail
cd "$(dirname "$0")/../.."
bin=$(realpath "${1:-.build/release}")
runs=${2:-5}
for b in mdoc-holder mdoc-issuer mdoc-ble-benchmarks; do
  [ -x "$bin/$b" ] || { echo "ble-bluezoo-bench: $bin/$b not found: build it first" >&2; exit 2; }
done
work="$PWD/.build/bluezoo-bench"
rm -rf "$work"
mkdir -p "$work"
Tests/Support/vm/prepare.sh "$bin" "$work/data"
bus="$work/bus"
cleanup() { Tests/Support/bluezoo-bus.sh stop "$bus" >/dev/null 2>&1 || true; }
trap cleanup EXIT
common=(--server hci0 --client hci1 --holder "$bin/mdoc-holder" --policy "$work/data/policy.toml")

echo "bench (BlueZoo, $(basename "$(dirname "$bin")")/$(basename "$bin") build): the holder over GATT, $runs sessions"
rc=0
for i in $(seq 1 "$runs"); do
  address=$(Tests/Support/bluezoo-bus.sh start "$bus")
  cp "$work/data/big-100000.sqlite"* "$work/"
  DBUS_SYSTEM_BUS_ADDRESS="$address" timeout 120 "$bin/mdoc-ble-benchmarks" --only holder --holder-runs 1 \
    --holder-modes gatt --big-store "$work/big-100000.sqlite" --fixtures Fixtures "${common[@]}" \
    >"$work/holder-$i.txt" 2>&1 || rc=1
  grep -E '^  GATT run' "$work/holder-$i.txt" | sed "s/GATT run 1/GATT session $i/" || cat "$work/holder-$i.txt"
  Tests/Support/bluezoo-bus.sh stop "$bus" >/dev/null 2>&1
done
address=$(Tests/Support/bluezoo-bus.sh start "$bus")
cp "$work/data/wallet.sqlite"* "$work/"
DBUS_SYSTEM_BUS_ADDRESS="$address" timeout 120 "$bin/mdoc-ble-benchmarks" --only uri --qr-runs "$runs" \
  --store "$work/wallet.sqlite" "${common[@]}" || rc=1
exit "$rc"
