#!/usr/bin/env bash
# The holder and its credentials' status (draft-ietf-oauth-status-list): the real
# `mdoc-holder credentials status` against Status List Tokens made by `mdoc-issuer status-list`
# and served on loopback HTTPS (Tests/Support/status_list_server.py). An mdoc issued by
# `mdoc-issuer issue --status-uri` and an SD-JWT VC received from the OpenID4VCI test issuer
# (Tests/Support/vci_issuer.py, status_uri) are marked valid, then revoked; the revoked mdoc is
# then not released over BlueZoo by `present --once`, the revoked SD-JWT VC not offered by
# `present-online` to the loopback verifier, and the history says why.
# Usage: Tests/Support/status-test.sh [BIN_DIR] (default .build/debug).
set -uo pipefail
cd "$(dirname "$0")/../.."
bin=${1:-.build/debug}
py=.venv-test/bin/python3
. Tests/Support/lib/tier.sh
tier_begin status
holder_pid=""
tier_track_variables holder_pid
unset https_proxy HTTPS_PROXY http_proxy all_proxy ALL_PROXY no_proxy NO_PROXY
store=$tmp/wallet.sqlite
json() { "$py" -c "import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])" "$@"; }  # json FILE KEY

# -- A PKI with a status list signer, loopback HTTPS for the lists, the OpenID4VCI issuer.
"$bin/mdoc-issuer" pki --out "$tmp/pki" >/dev/null && "$bin/mdoc-issuer" status-signer --pki "$tmp/pki" >/dev/null \
  || die "mdoc-issuer pki / status-signer"
mkdir -p "$tmp/tls" "$tmp/lists" "$tmp/issuer"
"$py" -c 'import sys; sys.path.insert(0, "Tests/Support"); from oid4vp_verifier import make_pki
ca, cert, key, *_ = make_pki(sys.argv[1]); print(ca, cert, key)' "$tmp/tls" >"$tmp/tls/paths" || die "TLS test PKI"
read -r tls_ca tls_cert tls_key <"$tmp/tls/paths"
"$py" Tests/Support/status_list_server.py --dir "$tmp/lists" --cert "$tls_cert" --key "$tls_key" --lifetime 300 \
  --ready-file "$tmp/lists.ready" >/dev/null &
tier_track $!
wait_file "$tmp/lists.ready" 20 || die "the status list server did not start"
lport=$(json "$tmp/lists.ready" port)
"$py" Tests/Support/vci_issuer.py --dir "$tmp/issuer" --ds-key "$tmp/pki/ds.key.pem" --ds-cert "$tmp/pki/ds.pem" \
  --lifetime 300 --ready-file "$tmp/issuer/ready" >/dev/null &
tier_track $!
wait_file "$tmp/issuer/ready" 20 || die "the OpenID4VCI test issuer did not start"
iport=$(json "$tmp/issuer/ready" port)
ica=$tmp/issuer/ca.pem sdca=$tmp/issuer/sd-jwt-ca.pem
mdl_uri="https://localhost:$lport/mdl.cwt" pid_uri="https://localhost:$lport/pid.jwt"
# status CWT|JWT SET...: the lists as the issuers publish them (every entry valid but SET, INDEX=VALUE).
mdl_list() { "$bin/mdoc-issuer" status-list --uri "$mdl_uri" --format cwt --bits 2 --pki "$tmp/pki" --out "$tmp/lists/mdl.cwt" \
  "${@/#/--set=}"; }
pid_list() { "$bin/mdoc-issuer" status-list --uri "$pid_uri" --format jwt --bits 2 --signer-cert "$tmp/issuer/sd-jwt-status-list.pem" \
  --signer-key "$tmp/issuer/sd-jwt-status-list.key.pem" --out "$tmp/lists/pid.jwt" "${@/#/--set=}"; }
check "the issuers publish both lists, every entry valid" bash -c "$(declare -f mdl_list pid_list); \
  bin='$bin' tmp='$tmp' mdl_uri='$mdl_uri' pid_uri='$pid_uri'; mdl_list && pid_list"
status() { "$bin/mdoc-holder" credentials status "$@" --trust-anchor "$tmp/pki/iaca.pem" --trust-anchor "$sdca" \
  --tls-ca "$tls_ca" --store "$store"; }
listed() {  # listed PYTHON_EXPR: `credentials list --json` as c satisfies the expression
  "$bin/mdoc-holder" credentials list --json --store "$store" >"$tmp/list.json" &&
    "$py" -c 'import json,sys; c = {x["docType"]: x for x in json.load(open(sys.argv[1]))}; assert eval(sys.argv[2]), c' \
      "$tmp/list.json" "$1"
}

# -- An mDL with a status reference (index 3), and a PID SD-JWT VC received with one (index 7).
check "mdoc-issuer issues an mDL with a status reference" "$bin/mdoc-issuer" issue --claims Fixtures/mdl-claims.json \
  --pki "$tmp/pki" --out "$tmp/mdl.cbor" --new-device-key "$tmp/device.pem" --status-uri "$mdl_uri" --status-index 3
check "the holder imports it" "$bin/mdoc-holder" credentials import "$tmp/mdl.cbor" --device-key "$tmp/device.pem" \
  --trust-anchor "$tmp/pki/iaca.pem" --store "$store"
mdl_id=$(cat "$tmp/out")
curl -sf --cacert "$ica" -d "delivery=value&format=sd-jwt&status_uri=$pid_uri&status_index=7" \
  "https://localhost:$iport/start" >"$tmp/start.json" || die "the issuer's /start"
check "the holder receives a PID SD-JWT VC with a status reference" "$bin/mdoc-holder" credentials receive \
  "$(json "$tmp/start.json" offer)" --yes --trust-anchor "$sdca" --tls-ca "$ica" --store "$store"
pid_id=$(head -1 "$tmp/out")
check "before any check, list shows no status" listed \
  "all('lastStatus' not in x for x in c.values()) and len(c) == 2"
check "credentials status: both valid, exit 0" status
cp "$tmp/out" "$tmp/valid.out"
check "one line per credential: doc type, id, valid, checked at" bash -c \
  "grep -q '^org.iso.18013.5.1.mDL  $mdl_id  valid  checked at 20' '$tmp/valid.out' && \
   grep -q '^urn:eudi:pid:1  $pid_id  valid  checked at 20' '$tmp/valid.out' && test \$(wc -l <'$tmp/valid.out') = 2"
check "list --json carries the last known status and when" listed \
  "all(x['lastStatus']['status'] == 'valid' and x['lastStatus']['checkedAt'].startswith('20') for x in c.values())"

# -- The issuers revoke both (the mDL's entry 3, the PID's entry 7) and suspend nothing else.
check "the issuers revoke both" bash -c "$(declare -f mdl_list pid_list); \
  bin='$bin' tmp='$tmp' mdl_uri='$mdl_uri' pid_uri='$pid_uri'; mdl_list 3=1 4=2 && pid_list 7=1 6=2"
check "credentials status marks both invalid" status
cp "$tmp/out" "$tmp/invalid.out"
check "the lines say invalid" bash -c "grep -q '$mdl_id  invalid' '$tmp/invalid.out' && grep -q '$pid_id  invalid' '$tmp/invalid.out'"
check "list --json: both invalid" listed "all(x['lastStatus']['status'] == 'invalid' for x in c.values())"
check "list shows the list status column" bash -c "'$bin/mdoc-holder' credentials list --store '$store' | grep '$mdl_id' | grep -q invalid"
check "show names the status and when it was checked" bash -c \
  "'$bin/mdoc-holder' credentials show '$pid_id' --store '$store' | grep -q 'status list: *invalid (checked at 20'"
check "status ID checks that credential only" status "$mdl_id"
check "... one line" test "$(wc -l <"$tmp/out")" = 1

# -- The list server answers 404: unknown, exit 2, the last known status kept.
mv "$tmp/lists/mdl.cwt" "$tmp/mdl.cwt.away"
fails "an unreadable list: exit 2" 2 status "$mdl_id"
check "... the line says unknown and the last known status" grep -q "$mdl_id  unknown (.*last known invalid at 20" "$tmp/out"
check "... the store keeps invalid" listed "c['org.iso.18013.5.1.mDL']['lastStatus']['status'] == 'invalid'"
mv "$tmp/mdl.cwt.away" "$tmp/lists/mdl.cwt"
fails "a wrong trust anchor: the list does not verify, exit 2" 2 "$bin/mdoc-holder" credentials status "$mdl_id" \
  --trust-anchor Fixtures/pki/reader-ca.pem --tls-ca "$tls_ca" --store "$store"

# -- present --once over BlueZoo: the reader asks for the revoked mDL and gets documentErrors.
write_policy "$tmp/policy.toml" trusted org.iso.18013.5.1.mDL org.iso.18013.5.1:family_name
bus="$tmp/bus"
if address=$(tier_bus_start "$bus"); then
  DBUS_SYSTEM_BUS_ADDRESS="$address" timeout 120 "$bin/mdoc-holder" present --adapter hci0 --once --qr uri \
    --mode peripheral --consent "policy:$tmp/policy.toml" --reader-trust "$tmp/pki/reader-ca.pem" \
    --untrusted-readers refuse --store "$store" >"$tmp/ble.holder.out" 2>"$tmp/ble.holder.err" &
  holder_pid=$!
  uri=""
  for _ in $(seq 1 150); do
    uri=$(grep -m1 '^mdoc:' "$tmp/ble.holder.out" 2>/dev/null) && [ -n "$uri" ] && break
    sleep 0.1
  done
  if [ -n "$uri" ]; then
    DBUS_SYSTEM_BUS_ADDRESS="$address" timeout 120 "$bin/mdoc-reader" request "$uri" --adapter hci1 \
      --trust-anchor "$tmp/pki/iaca.pem" --reader-key "$tmp/pki/reader.key.pem" --reader-cert "$tmp/pki/reader.pem" \
      --element org.iso.18013.5.1:family_name --json >"$tmp/ble.reader.out" 2>"$tmp/ble.reader.err"
    reader_exit=$?
  else
    reader_exit=none
    ko "the holder printed no mdoc: URI" "$tmp/ble.holder.err"
  fi
  wait "$holder_pid"; holder_exit=$?
  holder_pid=""
  tier_bus_stop "$bus"
  if [ "$reader_exit" = 1 ]; then ok; else ko "BLE: the reader gets no document (exit $reader_exit)" "$tmp/ble.reader.err"; fi
  if [ "$holder_exit" = 2 ]; then ok; else ko "BLE: present --once releases nothing (exit $holder_exit)" "$tmp/ble.holder.err"; fi
  if "$py" -c 'import json,sys; r=json.load(open(sys.argv[1])); assert r["documents"] == [] and r["documentErrors"], r' \
    "$tmp/ble.reader.out"; then ok; else ko "BLE: documentErrors for the mDL, no document" "$tmp/ble.reader.out"; fi
  check "BLE: the holder says why" grep -q "credential $mdl_id (org.iso.18013.5.1.mDL) is not presented: .* invalid" \
    "$tmp/ble.holder.err"
else
  ko "BlueZoo did not start"
fi

# -- present-online: the loopback verifier asks for the PID; the revoked one is not offered.
mkdir -p "$tmp/verifier"
"$py" Tests/Support/oid4vp_verifier.py --dir "$tmp/verifier" --iaca "$tmp/pki/iaca.pem" --sd-jwt-ca "$sdca" \
  --lifetime 120 --ready-file "$tmp/verifier.ready" >/dev/null 2>"$tmp/verifier.err" &
tier_track $!
wait_file "$tmp/verifier.ready" 20 || die "the verifier did not start"
vport=$(json "$tmp/verifier.ready" port)
printf '[[rule]]\nreader = "trusted"\ndoctype = "urn:eudi:pid:1"\nallow = ["given_name"]\n' >"$tmp/pid.toml"
curl -sf --cacert "$tmp/verifier/ca.pem" -d "kind=signed&delivery=post&mode=direct_post&only=pid&pid=given_name" \
  "https://localhost:$vport/start" >"$tmp/vp.json" || die "the verifier's /start"
"$bin/mdoc-holder" present-online "$(json "$tmp/vp.json" url)" --consent "policy:$tmp/pid.toml" \
  --verifier-trust "$tmp/verifier/ca.pem" --tls-ca "$tmp/verifier/ca.pem" --store "$store" \
  >"$tmp/online.out" 2>"$tmp/online.err"
online_exit=$?
if [ "$online_exit" != 0 ]; then ok; else ko "online: present-online does not succeed (exit 0)" "$tmp/online.err"; fi
if curl -sf --cacert "$tmp/verifier/ca.pem" "https://localhost:$vport/result/$(json "$tmp/vp.json" session)" |
  "$py" -c 'import json,sys; r=json.load(sys.stdin); assert not r.get("sd_jwt_verified") and r.get("error"), r' \
  2>"$tmp/result.err"; then ok; else ko "online: the verifier gets an error, no SD-JWT VC" "$tmp/result.err"; fi
check "online: the holder says why" grep -q "credential $pid_id (urn:eudi:pid:1) is not presented: .* invalid" \
  "$tmp/online.err"

# -- The history keeps both refusals with why.
check "the history says why, for BLE and online" bash -c "'$bin/mdoc-holder' history --json --store '$store' | '$py' -c '
import json, sys
h = [e for e in json.load(sys.stdin) if e[\"channel\"] in (\"ble\", \"online\")]
ble = [e for e in h if e[\"channel\"] == \"ble\"]
online = [e for e in h if e[\"channel\"] == \"online\"]
assert len(ble) == 1 and ble[0][\"decision\"] == \"failed\" and \"$mdl_id\" in ble[0][\"failureReason\"] \
  and \"invalid\" in ble[0][\"failureReason\"] and ble[0][\"elementsSent\"] == [], ble
assert len(online) == 1 and online[0][\"decision\"] == \"failed\" and \"$pid_id\" in online[0][\"failureReason\"] \
  and \"invalid\" in online[0][\"failureReason\"], online
'"

# -- Valid again (a suspension lifted): the mDL is presented again.
check "the issuer reinstates the mDL" bash -c "$(declare -f mdl_list); bin='$bin' tmp='$tmp' mdl_uri='$mdl_uri'; mdl_list"
check "credentials status: valid again" status "$mdl_id"
check "list: the mDL valid" listed "c['org.iso.18013.5.1.mDL']['lastStatus']['status'] == 'valid'"
tier_summary
