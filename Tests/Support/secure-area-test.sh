#!/usr/bin/env bash
# Secure areas end to end, with the real binaries: a device key made in a TPM (swtpm on
# loopback), a test credential issued to its public key only, presented over BLE (BlueZoo
# tier) with deviceSignature and once with deviceMac, the real reader verifying both; the TPM
# gone ends the session with status 10 and a log line naming credential and area; the same on
# a PKCS#11 token (softhsm2); the software
# area's store without its key-encryption key lists but refuses to present; no file of the
# store's directory holds a private key.
# Usage: Tests/Support/secure-area-test.sh [BIN_DIR]
set -uo pipefail
cd "$(dirname "$0")/../.."
bin=${1:-.build/debug}
. Tests/Support/lib/tier.sh
tier_begin secure-area-test
holder_pid="" swtpm_pid=""
tier_track_variables holder_pid swtpm_pid
# Nothing of this test touches the user's configuration directory.
export XDG_CONFIG_HOME="$tmp/config"

need_bin swtpm
port=$((20000 + RANDOM % 20000))
start_tpm() {
  swtpm socket --tpm2 --tpmstate dir="$tmp/tpm" --server type=tcp,port=$port,bindaddr=127.0.0.1 \
    --ctrl type=tcp,port=$((port + 1)),bindaddr=127.0.0.1 --flags not-need-init,startup-clear \
    --pid file="$tmp/tpm/pid" --daemon || return 1
  swtpm_pid=$(cat "$tmp/tpm/pid")
}
mkdir -p "$tmp/tpm" "$tmp/store"
start_tpm || { echo "swtpm did not start"; exit 1; }
tcti="swtpm:host=127.0.0.1,port=$port"
store="$tmp/store/wallet.sqlite"
tpm_args=(--secure-area tpm2 --tpm-tcti "$tcti" --store "$store")

# 1. keys create in the TPM, issue to its public key only, import with --key.
key_id=$("$bin/mdoc-holder" keys create "${tpm_args[@]}" --public-key-out "$tmp/tpm-pub.pem" 2>"$tmp/create.err")
if [[ "$key_id" =~ ^[0-9a-f]{16}$ ]] && grep -q "BEGIN PUBLIC KEY" "$tmp/tpm-pub.pem"; then ok; else ko "keys create --secure-area tpm2 prints an ID and writes the public key" "$tmp/create.err"; fi
"$bin/mdoc-issuer" issue --claims Fixtures/mdl-claims.json --pki Fixtures/pki --out "$tmp/tpm.cbor" \
  --device-public-key "$tmp/tpm-pub.pem" >"$tmp/issue.out" 2>&1 || ko "mdoc-issuer issue --device-public-key" "$tmp/issue.out"
if "$bin/mdoc-issuer" issue --claims Fixtures/mdl-claims.json --pki Fixtures/pki --out "$tmp/x.cbor" \
  --device-public-key Fixtures/mdl-device-key.pem >"$tmp/issue2.out" 2>&1; then
  ko "mdoc-issuer --device-public-key refuses a private key"
else ok; fi
cred_id=$("$bin/mdoc-holder" credentials import "$tmp/tpm.cbor" --key "$key_id" --trust-anchor Fixtures/pki/iaca.pem \
  "${tpm_args[@]}" 2>"$tmp/import.err")
if [[ "$cred_id" =~ ^[0-9a-f]{16}$ ]]; then ok; else ko "credentials import --key" "$tmp/import.err"; fi
# A credential issued to another key is refused with --key.
if "$bin/mdoc-holder" credentials import Fixtures/mdl.cbor --key "$key_id" --trust-anchor Fixtures/pki/iaca.pem \
  "${tpm_args[@]}" >/dev/null 2>"$tmp/mismatch.err"; then ko "import --key of another key's credential is refused"
elif grep -q "issued to another device key than key $key_id" "$tmp/mismatch.err"; then ok
else ko "import --key mismatch names the key" "$tmp/mismatch.err"; fi
if "$bin/mdoc-holder" keys list --json "${tpm_args[@]}" | python3 -c '
import json, sys
keys = json.load(sys.stdin)
k, = keys
assert k["id"] == sys.argv[1] and k["secureArea"] == "tpm2" and k["hardwareBound"] and k["credentials"] == [sys.argv[2]], keys
' "$key_id" "$cred_id"; then ok; else ko "keys list --json: tpm2, hardware-bound, bound to the credential"; fi
if "$bin/mdoc-holder" keys delete "$key_id" "${tpm_args[@]}" 2>"$tmp/delete.err"; then ko "keys delete of a key in use is refused"
elif grep -q "credential(s) $cred_id" "$tmp/delete.err"; then ok; else ko "keys delete names the credentials" "$tmp/delete.err"; fi

# present CASE READER_ARGS...: one holder session (present --once, $holder_args added) and one reader request.
present() {
  local case=$1; shift
  local bus="$tmp/bus-$case" address uri=""
  address=$(tier_bus_start "$bus") || { ko "$case: BlueZoo did not start"; return 1; }
  DBUS_SYSTEM_BUS_ADDRESS="$address" timeout 120 "$bin/mdoc-holder" present --adapter hci0 --once --qr uri \
    --consent "policy:$tmp/policy.toml" --reader-trust Fixtures/pki/reader-ca.pem --untrusted-readers refuse \
    ${holder_args:-} >"$tmp/$case.holder.out" 2>"$tmp/$case.holder.err" &
  holder_pid=$!
  for _ in $(seq 1 150); do
    uri=$(grep -m1 '^mdoc:' "$tmp/$case.holder.out" 2>/dev/null) && [ -n "$uri" ] && break
    sleep 0.1
  done
  [ -n "$uri" ] || { ko "$case: the holder printed no mdoc: URI" "$tmp/$case.holder.err"; kill "$holder_pid"; holder_pid=""; return 1; }
  DBUS_SYSTEM_BUS_ADDRESS="$address" timeout 120 "$bin/mdoc-reader" request "$uri" --adapter hci1 \
    --trust-anchor Fixtures/pki/iaca.pem --reader-key Fixtures/pki/reader.key.pem --reader-cert Fixtures/pki/reader.pem \
    --element org.iso.18013.5.1:family_name --element org.iso.18013.5.1:age_over_18 --json "$@" \
    >"$tmp/$case.reader.out" 2>"$tmp/$case.reader.err"
  reader_exit=$?
  wait "$holder_pid"; holder_exit=$?
  holder_pid=""
  tier_bus_stop "$bus"
}
cat > "$tmp/policy.toml" <<'TOML'
[[rule]]
reader = "trusted"
doctype = "org.iso.18013.5.1.mDL"
allow = ["org.iso.18013.5.1:family_name", "org.iso.18013.5.1:age_over_18"]
TOML
verified() { # verified CASE KIND: the reader verified both elements with KIND (deviceSignature / deviceMac)
  python3 - "$tmp/$1.reader.out" "$2" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
d, = r["documents"]
ids = sorted(e["identifier"] for e in d["elements"])
assert r["valid"] and ids == ["age_over_18", "family_name"], r
assert d["deviceAuthentication"] == sys.argv[2] + " verified", d["deviceAuthentication"]
PY
}

# 2. Over BLE with the key in the TPM: deviceSignature, then deviceMac (ECDH in the TPM).
holder_args="${tpm_args[*]}" present tpm-signature
if [ "$reader_exit" = 0 ] && [ "$holder_exit" = 0 ] && verified tpm-signature deviceSignature; then ok
else ko "TPM key, deviceSignature: the reader verifies (reader $reader_exit, holder $holder_exit)" "$tmp/tpm-signature.reader.err"; fi
holder_args="${tpm_args[*]} --device-auth mac" present tpm-mac
if [ "$reader_exit" = 0 ] && [ "$holder_exit" = 0 ] && verified tpm-mac deviceMac; then ok
else ko "TPM key, deviceMac: the reader verifies (reader $reader_exit, holder $holder_exit)" "$tmp/tpm-mac.reader.err"; fi

# 3. The TPM gone: the session answers status 10 and ends; the holder names credential and area.
kill "$swtpm_pid"; swtpm_pid=""
sleep 0.3
holder_args="${tpm_args[*]}" present tpm-absent
if [ "$holder_exit" != 0 ] && grep -q "credential $cred_id" "$tmp/tpm-absent.holder.err" \
  && grep -q "tpm2 secure area" "$tmp/tpm-absent.holder.err" && grep -q "status 10" "$tmp/tpm-absent.holder.err"; then ok
else ko "TPM absent: the holder ends with status 10 naming credential and area (holder $holder_exit)" "$tmp/tpm-absent.holder.err"; fi
if [ "$reader_exit" != 0 ]; then ok; else ko "TPM absent: the reader does not report success"; fi
start_tpm || ko "swtpm restarted on the same state"
holder_args="${tpm_args[*]}" present tpm-restarted
if [ "$reader_exit" = 0 ] && verified tpm-restarted deviceSignature; then ok
else ko "TPM restarted on the same state: the key works again" "$tmp/tpm-restarted.holder.err"; fi

# 4. A PKCS#11 token (softhsm2): key made on the token, credential issued to it, presented over
# BLE with deviceSignature and deviceMac (CKM_ECDSA, CKM_ECDH1_DERIVE on the token).
mkdir -p "$tmp/softhsm/tokens"
printf 'directories.tokendir = %s\nlog.level = ERROR\n' "$tmp/softhsm/tokens" >"$tmp/softhsm/softhsm2.conf"
export SOFTHSM2_CONF="$tmp/softhsm/softhsm2.conf"
echo 246810 >"$tmp/pin"
softhsm2-util --init-token --free --label holder-token --pin 246810 --so-pin 135790 >/dev/null \
  || ko "softhsm2-util --init-token"
p11_store="$tmp/p11/wallet.sqlite"
p11_args=(--secure-area pkcs11 --pkcs11-module /usr/lib/softhsm/libsofthsm2.so --pkcs11-token holder-token
  --pkcs11-pin-file "$tmp/pin" --store "$p11_store")
p11_key=$("$bin/mdoc-holder" keys create "${p11_args[@]}" --public-key-out "$tmp/p11-pub.pem" 2>"$tmp/p11-create.err")
"$bin/mdoc-issuer" issue --claims Fixtures/mdl-claims.json --pki Fixtures/pki --out "$tmp/p11.cbor" \
  --device-public-key "$tmp/p11-pub.pem" >/dev/null 2>&1
if [[ "$p11_key" =~ ^[0-9a-f]{16}$ ]] && "$bin/mdoc-holder" credentials import "$tmp/p11.cbor" --key "$p11_key" \
  --trust-anchor Fixtures/pki/iaca.pem "${p11_args[@]}" >/dev/null 2>"$tmp/p11-import.err"; then ok
else ko "pkcs11: keys create and credentials import --key" "$tmp/p11-create.err"; fi
if python3 - "$tmp/p11" <<'PY'
import os, sys
for name in os.listdir(sys.argv[1]):
    data = open(os.path.join(sys.argv[1], name), "rb").read()
    assert b"PRIVATE KEY" not in data, name
    assert b"pkcs11:token=holder-token;" in data or not name.endswith(".sqlite"), name
PY
then ok; else ko "pkcs11: the store keeps the key's PKCS#11 URI, no private key"; fi
holder_args="${p11_args[*]}" present p11-signature
if [ "$reader_exit" = 0 ] && verified p11-signature deviceSignature; then ok
else ko "pkcs11 key, deviceSignature: the reader verifies" "$tmp/p11-signature.holder.err"; fi
holder_args="${p11_args[*]} --device-auth mac" present p11-mac
if [ "$reader_exit" = 0 ] && verified p11-mac deviceMac; then ok
else ko "pkcs11 key, deviceMac: the reader verifies" "$tmp/p11-mac.holder.err"; fi

# 5. The software area: --device-key goes in wrapped under the KEK; nothing in the store's
# directory holds the private key; without its KEK the store lists but refuses to present.
sw_store="$tmp/sw/wallet.sqlite"
sw_args=(--kek-file "$tmp/kek" --store "$sw_store")
head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$tmp/kek"; echo >>"$tmp/kek"
"$bin/mdoc-holder" credentials import Fixtures/mdl.cbor --device-key Fixtures/mdl-device-key.pem \
  --trust-anchor Fixtures/pki/iaca.pem "${sw_args[@]}" >"$tmp/sw-import.out" 2>&1 || ko "software import" "$tmp/sw-import.out"
scalar=$(openssl pkey -in Fixtures/mdl-device-key.pem -text -noout 2>/dev/null | sed -n '/^priv:/,/^pub:/p' | sed '1d;$d' | tr -d ' :\n')
if python3 - "$tmp/sw" "$scalar" <<'PY'
import os, sys
d, scalar = sys.argv[1], bytes.fromhex(sys.argv[2])
assert len(scalar) >= 31, len(scalar)
for name in os.listdir(d):
    data = open(os.path.join(d, name), "rb").read()
    assert scalar[-31:] not in data and b"PRIVATE KEY" not in data, name
PY
then ok; else ko "no file of the software store's directory holds the private scalar or PRIVATE KEY"; fi
if python3 - "$tmp/store" <<'PY'
import os, sys
for name in os.listdir(sys.argv[1]):
    assert b"PRIVATE KEY" not in open(os.path.join(sys.argv[1], name), "rb").read(), name
PY
then ok; else ko "no file of the TPM store's directory holds PRIVATE KEY"; fi
holder_args="${sw_args[*]}" present software
if [ "$reader_exit" = 0 ] && verified software deviceSignature; then ok
else ko "software key: the reader verifies" "$tmp/software.holder.err"; fi
mv "$tmp/kek" "$tmp/kek.away"
if "$bin/mdoc-holder" credentials list "${sw_args[@]}" | grep -q org.iso.18013.5.1.mDL; then ok; else ko "without its KEK the store still lists"; fi
if "$bin/mdoc-holder" history "${sw_args[@]}" >/dev/null 2>&1; then ok; else ko "without its KEK the store still shows history"; fi
if DBUS_SYSTEM_BUS_ADDRESS="unix:path=$tmp/no-bus" timeout 20 "$bin/mdoc-holder" present --once --qr uri \
  --consent "policy:$tmp/policy.toml" "${sw_args[@]}" >/dev/null 2>"$tmp/nokek.err"; then ko "without its KEK present is refused"
elif grep -q "key-encryption key $tmp/kek is missing" "$tmp/nokek.err" && grep -q -- "--kek-file" "$tmp/nokek.err"; then ok
else ko "without its KEK: the error names the key and how to give it" "$tmp/nokek.err"; fi

tier_summary
