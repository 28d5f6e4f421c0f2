#!/usr/bin/env bash
# The BLE demo: a private D-Bus bus with BlueZoo (two emulated adapters), the real
# `mdoc-holder present` on hci0 showing its QR code, and the real `mdoc-reader request` on
# hci1 printing what it verified. Usage: Tests/Support/ble-demo.sh [BIN_DIR]
set -euo pipefail
cd "$(dirname "$0")/../.."
bin=${1:-.build/debug}
. Tests/Support/lib/tier.sh
tier_begin demo
holder_pid=""
tier_track_variables holder_pid
import_test_mdl "$tmp/wallet.sqlite"
write_policy "$tmp/policy.toml" trusted org.iso.18013.5.1.mDL org.iso.18013.5.1:family_name \
  org.iso.18013.5.1:given_name org.iso.18013.5.1:portrait org.iso.18013.5.1:age_over_18
address=$(tier_bus_start "$tmp/bus")
export DBUS_SYSTEM_BUS_ADDRESS="$address"
echo "== BlueZoo on a private bus: hci0 is the holder, hci1 the reader"
echo "== mdoc-holder present --adapter hci0 --once --qr terminal --qr uri --consent policy:... --reader-trust reader-ca.pem"
"$bin/mdoc-holder" present --adapter hci0 --once --qr terminal --qr uri --consent "policy:$tmp/policy.toml" \
  --reader-trust Fixtures/pki/reader-ca.pem --store "$tmp/wallet.sqlite" >"$tmp/uri" &
holder_pid=$!
wait_line "$tmp/uri" mdoc: 15 || true
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
