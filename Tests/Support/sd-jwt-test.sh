#!/usr/bin/env bash
# SD-JWT VCs made by an independent library (the IETF reference implementation, PyPI sd-jwt, in
# the test venv; Tests/Support/sd_jwt_issue.py) through `mdoc-holder credentials import|list|
# show|delete`: a good one is stored, altered or foreign ones are refused with nothing stored.
# Usage: Tests/Support/sd-jwt-test.sh [BIN_DIR] (default .build/debug).
set -uo pipefail
cd "$(dirname "$0")/../.."
bin=${1:-.build/debug}
. Tests/Support/lib/tier.sh
tier_begin sd-jwt
refused() {  # refused NAME MESSAGE_PART FILE [ARGS...]: the import exits 1 saying MESSAGE_PART
  local name=$1 want=$2 file=$3; shift 3
  "$bin/mdoc-holder" credentials import "$file" "$@" >"$tmp/out" 2>"$tmp/err"; local got=$?
  if [ "$got" = 1 ] && grep -q -- "$want" "$tmp/err"; then ok; else ko "$name (exit $got)" "$tmp/err" 3; fi
}
count() { "$bin/mdoc-holder" credentials list --json --store "$1" | python3 -c 'import json,sys; print(len(json.load(sys.stdin)))'; }
vc="$tmp/vc"
.venv-test/bin/python3 Tests/Support/sd_jwt_issue.py "$vc" >/dev/null || { echo "sd-jwt tier: the test issuer failed"; exit 1; }
store="$tmp/wallet/wallet.sqlite"
key=(--device-key "$vc/holder.pem")

check "an SD-JWT VC is imported" "$bin/mdoc-holder" credentials import "$vc/pid.sd-jwt" "${key[@]}" \
  --trust-anchor "$vc/ca.pem" --store "$store"
id=$(cat "$tmp/out")
check "the import printed an id" test -n "$id"
check "list shows it as dc+sd-jwt with its vct" bash -c \
  "'$bin/mdoc-holder' credentials list --store '$store' | grep '$id' | grep -q 'urn:eudi:pid:1 (dc+sd-jwt)'"
check "list --json has format, vct and claim paths, no values" bash -c "'$bin/mdoc-holder' credentials list --json \
  --store '$store' | python3 -c 'import json,sys; c = json.load(sys.stdin)[0]; assert c[\"format\"] == \"dc+sd-jwt\" \
  and c[\"docType\"] == \"urn:eudi:pid:1\" and \"address.locality\" in c[\"elements\"] and \"nationalities[1]\" in c[\"elements\"] \
  and \"Erika\" not in json.dumps(c), c'"
check "show names the claims and hides values" bash -c "'$bin/mdoc-holder' credentials show '$id' --store '$store' > '$tmp/show' \
  && grep -q 'address.street_address' '$tmp/show' && ! grep -q -f '$vc/values.txt' '$tmp/show'"
check "show --values shows them" bash -c "'$bin/mdoc-holder' credentials show '$id' --values --store '$store' | grep -q '\"Koeln\"'"
check "the key-binding key is in the software secure area, bound to the credential" bash -c \
  "'$bin/mdoc-holder' keys list --store '$store' | grep software | grep -q '$id'"
refused "the same SD-JWT VC twice" "already stored as credential $id" "$vc/pid.sd-jwt" "${key[@]}" \
  --trust-anchor "$vc/ca.pem" --store "$store"
refused "a changed Disclosure" "not referenced by any digest" "$vc/changed-disclosure.sd-jwt" "${key[@]}" \
  --trust-anchor "$vc/ca.pem" --store "$store"
refused "a digest dropped from the signed payload" "not referenced by any digest" "$vc/dropped-digest.sd-jwt" \
  "${key[@]}" --trust-anchor "$vc/ca.pem" --store "$store"
refused "another holder's key in cnf" "cnf.jwk is not that key" "$vc/wrong-holder.sd-jwt" "${key[@]}" \
  --trust-anchor "$vc/ca.pem" --store "$store"
refused "an expired SD-JWT VC" "expired on" "$vc/expired.sd-jwt" "${key[@]}" --trust-anchor "$vc/ca.pem" --store "$store"
refused "a JWT typ other than dc+sd-jwt" "typ is JWT" "$vc/wrong-typ.sd-jwt" "${key[@]}" --trust-anchor "$vc/ca.pem" \
  --store "$store"
refused "a presentation (Key Binding JWT) instead of an issuance" "Key Binding JWT" "$vc/with-kb.sd-jwt" "${key[@]}" \
  --trust-anchor "$vc/ca.pem" --store "$store"
refused "an issuer under another CA" "is not trusted" "$vc/pid.sd-jwt" "${key[@]}" --trust-anchor "$vc/other-ca.pem" \
  --store "$tmp/new/wallet.sqlite"
check "a refused import into a new store path creates no store" test ! -e "$tmp/new/wallet.sqlite"
check "nothing refused was stored" test "$(count "$store")" = 1
check "no claim value in any error message" bash -c "! grep -r -q -f '$vc/values.txt' '$tmp/err'"
check "--no-verify-issuer takes it without the CA" "$bin/mdoc-holder" credentials import "$vc/pid.sd-jwt" "${key[@]}" \
  --no-verify-issuer --store "$tmp/unverified.sqlite"
# Online: the loopback verifier (Tests/Support/oid4vp_verifier.py) asks with DCQL; it checks each
# SD-JWT VC with the reference library (issuer signature and chain, Disclosures, KB-JWT with its
# client_id as aud and its nonce) and reports the claims it saw.
check "an mDL joins the PID in the store" "$bin/mdoc-holder" credentials import Fixtures/mdl.cbor \
  --device-key Fixtures/mdl-device-key.pem --trust-anchor Fixtures/pki/iaca.pem --store "$store"
cat >"$tmp/policy.toml" <<'TOML'
[[rule]]
reader = "trusted"
doctype = "urn:eudi:pid:1"
allow = ["given_name", "birthdate", "address.locality"]

[[rule]]
reader = "trusted"
doctype = "org.iso.18013.5.1.mDL"
allow = ["org.iso.18013.5.1:family_name", "org.iso.18013.5.1:age_over_18"]
TOML
mkdir -p "$tmp/verifier"
.venv-test/bin/python3 Tests/Support/oid4vp_verifier.py --dir "$tmp/verifier" --iaca Fixtures/pki/iaca.pem \
  --sd-jwt-ca "$vc/ca.pem" --lifetime 120 --ready-file "$tmp/verifier.json" >/dev/null 2>"$tmp/verifier.err" &
verifier_pid=$!
tier_track "$verifier_pid"
wait_file "$tmp/verifier.json"
port=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["port"])' "$tmp/verifier.json")
online() {  # online NAME POLICY EXPECTED_PYTHON [START_FIELDS...]: one present-online run, then /result
  local name=$1 policy=$2 expected=$3; shift 3
  local started; started=$(curl -s --cacert "$tmp/verifier/ca.pem" -X POST "https://localhost:$port/start" "$@")
  local url sid
  url=$(python3 -c 'import json,sys; print(json.load(sys.stdin)["url"])' <<<"$started")
  sid=$(python3 -c 'import json,sys; print(json.load(sys.stdin)["session"])' <<<"$started")
  "$bin/mdoc-holder" present-online "$url" --consent "policy:$policy" --verifier-trust "$tmp/verifier/ca.pem" \
    --tls-ca "$tmp/verifier/ca.pem" --store "$store" >"$tmp/online.out" 2>"$tmp/online.err"
  if curl -s --cacert "$tmp/verifier/ca.pem" "https://localhost:$port/result/$sid" | python3 -c "
import json, sys
r = json.load(sys.stdin)
$expected" 2>"$tmp/result.err"; then ok; else
    ko "$name"; sed 's/^/  /' "$tmp/result.err" "$tmp/online.err" | tail -6; fi
}
online "(a) selected PID claims: exactly those disclosed, KB-JWT bound to the verifier" "$tmp/policy.toml" '
assert r["verified"] and r["sd_jwt_verified"] and r["vp_token_keys"] == ["pid"], r
assert r["sd_jwt_disclosed"] == ["birthdate", "given_name"], r["sd_jwt_disclosed"]' \
  -d kind=signed -d delivery=post -d mode=direct_post -d only=pid -d pid=given_name,birthdate
online "(b) an mDL and a PID in one request, each verified" "$tmp/policy.toml" '
assert r["verified"] and r["sd_jwt_verified"] and r["vp_token_keys"] == ["mdl", "pid"], r
assert r["sd_jwt_disclosed"] == ["given_name"], r["sd_jwt_disclosed"]
assert r["disclosed"] == {"org.iso.18013.5.1": ["age_over_18", "family_name"]}, r["disclosed"]' \
  -d kind=signed -d delivery=post -d mode=direct_post.jwt -d pid=given_name \
  -d claims=org.iso.18013.5.1:family_name,org.iso.18013.5.1:age_over_18
online "(c) a nested claim: its object comes with it, no sibling Disclosure" "$tmp/policy.toml" '
assert r["sd_jwt_verified"], r
assert r["sd_jwt_disclosed"] == ["address.country", "address.locality"], r["sd_jwt_disclosed"]' \
  -d kind=signed -d delivery=get -d mode=direct_post -d only=pid -d pid=address.locality
printf '[[rule]]\nreader = "trusted"\ndoctype = "org.iso.18013.5.1.mDL"\nallow = ["*"]\n' >"$tmp/no-pid.toml"
online "a declined PID request gets access_denied" "$tmp/no-pid.toml" '
assert r["error"] == "access_denied" and not r.get("sd_jwt_verified"), r' \
  -d kind=signed -d delivery=post -d mode=direct_post -d only=pid -d pid=given_name
kill "$verifier_pid" 2>/dev/null
check "the history names the PID claims sent, never values" bash -c "'$bin/mdoc-holder' history --json --store '$store' \
  | python3 -c 'import json,sys; h = json.load(sys.stdin); pid = [e for e in h if e[\"docType\"] == \"urn:eudi:pid:1\"]; \
  assert [e[\"decision\"] for e in pid] == [\"sent\", \"sent\", \"sent\", \"declined\"], pid; \
  assert pid[0][\"elementsSent\"] == [\"birthdate\", \"given_name\"] or pid[0][\"elementsSent\"] == [\"given_name\", \"birthdate\"], pid[0]; \
  assert \"Erika\" not in json.dumps(h)'"
check "no claim value in the holder's output" bash -c "! grep -q -f '$vc/values.txt' '$tmp/online.out' '$tmp/online.err'"

check "delete removes it" "$bin/mdoc-holder" credentials delete "$id" --store "$store"
check "only the mDL is left after delete" test "$(count "$store")" = 1
tier_summary
