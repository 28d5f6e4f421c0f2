#!/usr/bin/env bash
# Prepares, on the host, what the VM cases share (read-only in the cases): a store with the
# test mDL, a store with a 100 kB portrait and one with a 400 kB portrait (issued here by
# mdoc-issuer), and the consent policy. Usage: prepare.sh BIN_DIR DATA_DIR
set -euo pipefail
cd "$(dirname "$0")/../../.."
bin=$1 data=$2
mkdir -p "$data"
holder=("$bin/mdoc-holder")
"${holder[@]}" credentials import Fixtures/mdl.cbor --device-key Fixtures/mdl-device-key.pem \
  --trust-anchor Fixtures/pki/iaca.pem --store "$data/wallet.sqlite" >/dev/null

# big SIZE: a store holding the test mDL with a SIZE-byte random portrait.
big() {
  local size=$1
  head -c "$size" /dev/urandom >"$data/portrait-$size.jpg"
  python3 - "$data" "$size" <<'PY'
import json, sys
claims = json.load(open("Fixtures/mdl-claims.json"))
claims["portrait"] = {"file": "%s/portrait-%s.jpg" % (sys.argv[1], sys.argv[2])}
json.dump(claims, open("%s/claims-%s.json" % (sys.argv[1], sys.argv[2]), "w"))
PY
  "$bin/mdoc-issuer" issue --claims "$data/claims-$size.json" --pki Fixtures/pki --out "$data/big-$size.cbor" \
    --new-device-key "$data/big-$size-key.pem" >/dev/null
  "${holder[@]}" credentials import "$data/big-$size.cbor" --device-key "$data/big-$size-key.pem" \
    --trust-anchor Fixtures/pki/iaca.pem --store "$data/big-$size.sqlite" >/dev/null
}
big 100000
big 400000

cat >"$data/policy.toml" <<'TOML'
[[rule]]
reader = "trusted"
doctype = "org.iso.18013.5.1.mDL"
allow = ["org.iso.18013.5.1:family_name", "org.iso.18013.5.1:given_name", "org.iso.18013.5.1:portrait",
         "org.iso.18013.5.1:age_over_18"]
TOML
