#!/usr/bin/env bash
# Remakes the committed test fixtures: a test PKI, a complete fictional mDL and its device key.
# Usage: Tests/Support/make-fixtures.sh      (or: make fixtures)
#
# Writes, under Fixtures/:
#   pki/iaca.pem pki/iaca.key.pem pki/ds.pem pki/ds.key.pem pki/reader-ca.pem pki/reader-ca.key.pem
#   pki/reader.pem pki/reader.key.pem   roots valid 20 years, document signer and reader 10 years
#   pki/status-list.pem pki/status-list.key.pem   Status List Token signer under the IACA, 10 years
#   portrait.jpg           the ISO 18013-5 Annex D portrait (from Fixtures/vectors)
#   mdl-claims.json        the claims of the fictional mDL
#   mdl.cbor               IssuerSigned of that mDL, signed by pki/ds.pem (valid as long as ds.pem)
#   mdl-device-key.pem     the mDL's device private key (PKCS#8 PEM)
#   mdl-document.cbor      the same claims, same device key, in the document container form
# Every key is for tests only. SWIFT_SCRATCH_PATH picks the build directory (default .build).
set -euo pipefail
cd "$(dirname "$0")/../.."
scratch=${SWIFT_SCRATCH_PATH:-.build}
fixtures=Fixtures

swift build --scratch-path "$scratch" --product mdoc-issuer
issuer="$(swift build --scratch-path "$scratch" --show-bin-path)/mdoc-issuer"

python3 - "$fixtures" <<'PY'
import json, pathlib, sys
out = pathlib.Path(sys.argv[1])
vectors = json.load(open(out / "vectors" / "iso18013-5-annex-d.json"))
(out / "portrait.jpg").write_bytes(bytes.fromhex(vectors["DeviceResponse_portrait_jpeg"]["hex"]))
PY

cat > "$fixtures/mdl-claims.json" <<'JSON'
{
  "family_name": "Doe",
  "given_name": "Jane",
  "birth_date": "1990-04-15",
  "issue_date": "2024-01-15",
  "expiry_date": "2034-01-15",
  "issuing_country": "US",
  "issuing_authority": "Utopia Department of Motor Vehicles",
  "document_number": "UT-0012345678",
  "portrait": { "file": "portrait.jpg" },
  "driving_privileges": [
    { "vehicle_category_code": "A", "issue_date": "2018-08-09", "expiry_date": "2034-01-15" },
    {
      "vehicle_category_code": "B",
      "issue_date": "2017-02-23",
      "expiry_date": "2034-01-15",
      "codes": [{ "code": "01", "sign": "=", "value": "06" }]
    }
  ],
  "un_distinguishing_sign": "USA",
  "administrative_number": "A-987654",
  "sex": 2,
  "height": 168,
  "weight": 61,
  "eye_colour": "brown",
  "hair_colour": "black",
  "birth_place": "Utopia City",
  "resident_address": "1 Example Street",
  "resident_city": "Utopia City",
  "resident_postal_code": "99999",
  "resident_country": "US",
  "age_birth_year": 1990,
  "age_over_18": true,
  "age_over_21": true,
  "age_over_65": false
}
JSON

"$issuer" pki --out "$fixtures/pki" --valid-days 3653 --root-valid-days 7305
"$issuer" status-signer --pki "$fixtures/pki" --valid-days 3653
"$issuer" issue --claims "$fixtures/mdl-claims.json" --pki "$fixtures/pki" --out "$fixtures/mdl.cbor" \
  --new-device-key "$fixtures/mdl-device-key.pem" --valid-days 3653
"$issuer" issue --claims "$fixtures/mdl-claims.json" --pki "$fixtures/pki" --out "$fixtures/mdl-document.cbor" \
  --device-key "$fixtures/mdl-device-key.pem" --valid-days 3653 --format document
"$issuer" verify --credential "$fixtures/mdl.cbor" --iaca "$fixtures/pki/iaca.pem"
"$issuer" verify --credential "$fixtures/mdl-document.cbor" --iaca "$fixtures/pki/iaca.pem"
