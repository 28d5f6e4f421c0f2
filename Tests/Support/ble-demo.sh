#!/usr/bin/env bash
# The BLE demo: a private D-Bus bus with BlueZoo (two emulated adapters), the real
# `mdoc-holder present` on hci0 showing its QR code, and the real `mdoc-reader request` on
# hci1 printing what it verified. Usage: Tests/Support/ble-demo.sh [BIN_DIR]
set -euo pipefail
cd "$(dirname "$0")/../.."
bin=${1:-.build/debug}
tmp=$(mktemp -d)
holder_pid=""
cleanup() {
  [ -n "$holder_pid" ] && kill "$holder_pid" 2>/dev/null || true
  Tests/Support/bluezoo-bus.sh stop "$tmp/bus" >/dev/null 2>&1 || true
  rm -rf "$tmp"
}
trap cleanup EXIT
"$bin/mdoc-holder" credentials import Fixtures/mdl.cbor --device-key Fixtures/mdl-device-key.pem \
  --trust-anchor Fixtures/pki/iaca.pem --store "$tmp/wallet.sqlite" >/dev/null
cat > "$tmp/policy.toml" <<'TOML'
[[rule]]
reader = "trusted"
doctype = "org.iso.18013.5.1.mDL"
allow = ["org.iso.18013.5.1:family_name", "org.iso.18013.5.1:given_name", "org.iso.18013.5.1:portrait",
         "org.iso.18013.5.1:age_over_18"]
TOML
address=$(Tests/Support/bluezoo-bus.sh start "$tmp/bus")
export DBUS_SYSTEM_BUS_ADDRESS="$address"
echo "== BlueZoo on a private bus: hci0 is the holder, hci1 the reader"
echo "== mdoc-holder present --adapter hci0 --once --qr terminal --qr uri --consent policy:... --reader-trust reader-ca.pem"
"$bin/mdoc-holder" present --adapter hci0 --once --qr terminal --qr uri --consent "policy:$tmp/policy.toml" \
  --reader-trust Fixtures/pki/reader-ca.pem --store "$tmp/wallet.sqlite" >"$tmp/uri" &
holder_pid=$!
for _ in $(seq 1 150); do grep -q '^mdoc:' "$tmp/uri" 2>/dev/null && break; sleep 0.1; done
uri=$(grep -m1 '^mdoc:' "$tmp/uri")
echo
echo "== mdoc-reader request <URI> --adapter hci1 (reader-authenticated, asks for 5 elements)"
"$bin/mdoc-reader" request "$uri" --adapter hci1 --reader-key Fixtures/pki/reader.key.pem \
  --reader-cert Fixtures/pki/reader.pem --trust-anchor Fixtures/pki/iaca.pem
wait "$holder_pid"
holder_pid=""
echo
echo "== mdoc-holder history"
"$bin/mdoc-holder" history --store "$tmp/wallet.sqlite"
