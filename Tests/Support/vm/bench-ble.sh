#!/usr/bin/env bash
# Inside the BlueZ VM (run by ble-vm-bench.sh): the Python reference GATT server of
# Tests/Support/bluez-vm/examples, then mdoc-ble-benchmarks (Swift, both notify paths, wire
# overhead, process start to the engagement URI), in the same boot.
#   bench-ble.sh BIN_DIR DATA_DIR
set -euo pipefail
[ "${BLUEZ_VM:-}" = 1 ] || { echo "bench-ble.sh runs inside the BlueZ VM (ble-vm-bench.sh)" >&2; exit 2; }
here="$(cd "$(dirname "$0")" && pwd)"
bin=$(realpath "$1")
data=$(realpath "$2")
echo "bench: bluetoothd $(/usr/libexec/bluetooth/bluetoothd --version), $(nproc) vCPUs, $(grep -E '^[^#]*Channels' /etc/bluetooth/main.conf 2>/dev/null | tr -d ' ' || echo 'Channels=3 (default)')"
echo "== Python reference server (python3-dbus, PropertiesChanged), ${PY_RUNS:=2} runs"
for i in $(seq 1 "$PY_RUNS"); do
  N_PING=5 BULK=100000 timeout 120 "$here/../bluez-vm/examples/gatt-roundtrip.sh" >/tmp/py.log 2>&1 || {
    echo "  run $i FAILED"
    tail -n 20 /tmp/py.log
    continue
  }
  echo "  run $i: $(grep -Eo 'bulk: .*' /tmp/py.log | head -n 1)"
done
cp "$data/wallet.sqlite"* /tmp/
"$bin/mdoc-ble-benchmarks" --runs "${RUNS:-3}" --holder "$bin/mdoc-holder" --store /tmp/wallet.sqlite \
  --policy "$data/policy.toml"
