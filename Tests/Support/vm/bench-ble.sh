#!/usr/bin/env bash
# Inside the BlueZ VM (run by ble-vm-bench.sh), in one boot: the Python reference GATT server
# of Tests/Support/bluez-vm/examples; mdoc-ble-benchmarks through bluetoothd (both notify
# paths, wire overhead, the holder's own times over GATT and L2CAP, process start to the
# engagement URI); then bluetoothd is stopped, both controllers are brought up through mgmt,
# and mdoc-ble-benchmarks --link-limits measures raw ATT notifications and a raw L2CAP CoC
# socket pair on the same btvirt pair and prints the holder's times as ratios to them.
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
cp "$data/wallet.sqlite"* "$data/big-100000.sqlite"* /tmp/
fixtures="$here/../../../Fixtures"
rc=0
"$bin/mdoc-ble-benchmarks" --runs "${RUNS:-3}" --holder "$bin/mdoc-holder" --store /tmp/wallet.sqlite \
  --policy "$data/policy.toml" --big-store /tmp/big-100000.sqlite --fixtures "$fixtures" \
  --holder-runs "${HOLDER_RUNS:-3}" --holder-warm-runs "${HOLDER_WARM_RUNS:-3}" --results /tmp/holder-times.json || rc=1

# The link alone: bluetoothd owns the ATT fixed channel while it runs.
. "$here/bluez.sh"
stop_bluetoothd
# btmgmt sends one mgmt command and exits on the reply, but exits at once (printing nothing)
# when its stdin is at EOF (bluez-vm/README.md, pitfall 5): give it a stdin that stays open.
mgmt() { timeout 10 btmgmt --index "$1" "${@:2}" < <(sleep 10) 2>&1 | grep -v '^\[' | tr '\n' ' ' || true; }
# hci0 (the raw servers) advertises, connectable; hci1 (the raw clients) must not advertise:
# with advertising on, the kernel makes an LE connect for a socket as the peripheral (directed
# advertising) instead of scanning for the peer and initiating.
echo "bench: bluetoothd stopped; mgmt: hci0: $(mgmt 0 power on) $(mgmt 0 le on) $(mgmt 0 connectable on) \
$(mgmt 0 advertising on); hci1: $(mgmt 1 power on) $(mgmt 1 le on)" | tr -s ' '
# The raw ATT peers ask for the MTU bluetoothd asked for (ExchangeMTU, BlueZ's default 517).
att_mtu=$(sed -n 's/^[[:space:]]*ExchangeMTU[[:space:]]*=[[:space:]]*\([0-9]*\).*/\1/p' /etc/bluetooth/main.conf 2>/dev/null | head -n 1)
"$bin/mdoc-ble-benchmarks" --link-limits --runs "${RUNS:-3}" --att-mtu "${att_mtu:-517}" \
  --results /tmp/holder-times.json || rc=1
exit "$rc"
