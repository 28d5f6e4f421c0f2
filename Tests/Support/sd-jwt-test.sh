#!/usr/bin/env bash
# SD-JWT VCs made by an independent library (the IETF reference implementation, PyPI sd-jwt, in
# the test venv; Tests/Support/sd_jwt_issue.py) through `mdoc-holder credentials import|list|
# show|delete`: a good one is stored, altered or foreign ones are refused with nothing stored.
# Usage: Tests/Support/sd-jwt-test.sh [BIN_DIR] (default .build/debug).
set -uo pipefail
cd "$(dirname "$0")/../.."
bin=${1:-.build/debug}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0 failed=0
check() {  # check NAME COMMAND...: passes when the command succeeds
  local name=$1; shift
  if "$@" >"$tmp/out" 2>"$tmp/err"; then passed=$((passed + 1)); else failed=$((failed + 1)); echo "FAIL: $name"; sed 's/^/  /' "$tmp/err" | head -5; fi
}
refused() {  # refused NAME MESSAGE_PART FILE [ARGS...]: the import exits 1 saying MESSAGE_PART
  local name=$1 want=$2 file=$3; shift 3
  "$bin/mdoc-holder" credentials import "$file" "$@" >"$tmp/out" 2>"$tmp/err"; local got=$?
  if [ "$got" = 1 ] && grep -q -- "$want" "$tmp/err"; then passed=$((passed + 1)); else
    failed=$((failed + 1)); echo "FAIL: $name (exit $got)"; sed 's/^/  /' "$tmp/err" | head -3; fi
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
check "delete removes it" "$bin/mdoc-holder" credentials delete "$id" --store "$store"
check "the store is empty after delete" test "$(count "$store")" = 0
echo "sd-jwt: $passed passed, $failed failed"
[ "$failed" = 0 ]
