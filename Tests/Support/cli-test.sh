#!/usr/bin/env bash
# End-to-end checks of the real command-line tools: mdoc-issuer makes a PKI and an mDL,
# mdoc-holder imports, lists, shows and deletes it, mdoc-reader verifies the standard's
# Annex D response offline. Usage: Tests/Support/cli-test.sh [BIN_DIR] (default .build/debug).
set -uo pipefail
cd "$(dirname "$0")/../.."
bin=${1:-.build/debug}
. Tests/Support/lib/tier.sh
tier_begin cli
store="$tmp/wallet/wallet.sqlite"

check "issuer makes a PKI" "$bin/mdoc-issuer" pki --out "$tmp/pki"
check "issuer issues an mDL" "$bin/mdoc-issuer" issue --claims Fixtures/mdl-claims.json --pki "$tmp/pki" \
  --out "$tmp/mdl.cbor" --new-device-key "$tmp/device.pem"
check "device key is 0600" test "$(stat -c %a "$tmp/device.pem")" = 600
check "holder imports it" "$bin/mdoc-holder" credentials import "$tmp/mdl.cbor" --device-key "$tmp/device.pem" \
  --trust-anchor "$tmp/pki/iaca.pem" --store "$store"
id=$(cat "$tmp/out")
check "the import printed an id" test -n "$id"
check "the store is 0600" test "$(stat -c %a "$store")" = 600
check "list shows it" bash -c "'$bin/mdoc-holder' credentials list --store '$store' | grep -q '$id'"
check "list --json is JSON with the id" bash -c \
  "'$bin/mdoc-holder' credentials list --json --store '$store' | python3 -c 'import json,sys; assert json.load(sys.stdin)[0][\"id\"] == \"$id\"'"
check "show hides values by default" bash -c "! '$bin/mdoc-holder' credentials show '$id' --store '$store' | grep -q 'Jane'"
check "show --values shows them" bash -c "'$bin/mdoc-holder' credentials show '$id' --values --store '$store' | grep -q 'Jane'"
check "list never prints the device key" bash -c "! '$bin/mdoc-holder' credentials show '$id' --json --values --store '$store' | grep -q 'PRIVATE KEY'"
fails "an untrusted issuer is refused" 1 "$bin/mdoc-holder" credentials import "$tmp/mdl.cbor" \
  --device-key "$tmp/device.pem" --trust-anchor Fixtures/pki/reader-ca.pem --store "$tmp/other.sqlite"
python3 - "$tmp/mdl.cbor" "$tmp/tampered.cbor" <<'PY'
import sys
b = bytearray(open(sys.argv[1], "rb").read())
i = b.find(b"Jane")
b[i] = ord("Z")
open(sys.argv[2], "wb").write(b)
PY
fails "a tampered credential is refused" 1 "$bin/mdoc-holder" credentials import "$tmp/tampered.cbor" \
  --device-key "$tmp/device.pem" --trust-anchor "$tmp/pki/iaca.pem" --store "$tmp/other.sqlite"
fails "the wrong device key is refused" 1 "$bin/mdoc-holder" credentials import "$tmp/mdl.cbor" \
  --device-key Fixtures/mdl-device-key.pem --trust-anchor "$tmp/pki/iaca.pem" --store "$tmp/other.sqlite"
check "history starts empty" bash -c "'$bin/mdoc-holder' history --json --store '$store' | python3 -c 'import json,sys; assert json.load(sys.stdin) == []'"
check "delete removes it" "$bin/mdoc-holder" credentials delete "$id" --store "$store"
check "list is empty after delete" bash -c "! '$bin/mdoc-holder' credentials list --store '$store' | grep -q '$id'"
fails "deleting an unknown id fails" 1 "$bin/mdoc-holder" credentials delete "$id" --store "$store"

# mdoc-reader verify on the standard's Annex D response (certificates expired: fixed time).
python3 - "$tmp" <<'PY'
import json, sys, base64
d = json.load(open("Fixtures/vectors/iso18013-5-annex-d.json"))
out = sys.argv[1]
open(f"{out}/response.cbor", "wb").write(bytes.fromhex(d["DeviceResponse"]["hex"]))
open(f"{out}/transcript.hex", "w").write(d["SessionTranscriptBytes"]["hex"])
der = bytes.fromhex(d["IACA_certificate"]["hex"])
open(f"{out}/iaca.pem", "w").write("-----BEGIN CERTIFICATE-----\n" + base64.encodebytes(der).decode() + "-----END CERTIFICATE-----\n")
PY
.venv-test/bin/python3 - "$tmp" <<'PY'
import json, sys
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
d = json.load(open("Fixtures/vectors/iso18013-5-annex-d.json"))
key = ec.derive_private_key(int(d["EReaderKey_private_d"]["hex"], 16), ec.SECP256R1())
open(f"{sys.argv[1]}/reader.pem", "wb").write(key.private_bytes(
    serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()))
PY
check "reader verifies Annex D with the reader key" "$bin/mdoc-reader" verify "$tmp/response.cbor" \
  --transcript "$tmp/transcript.hex" --trust-anchor "$tmp/iaca.pem" --at 2021-06-01T00:00:00Z --reader-key "$tmp/reader.pem"
fails "reader says not valid without the reader key (deviceMac)" 1 "$bin/mdoc-reader" verify "$tmp/response.cbor" \
  --transcript "$tmp/transcript.hex" --trust-anchor "$tmp/iaca.pem" --at 2021-06-01T00:00:00Z
fails "reader says not valid once expired" 1 "$bin/mdoc-reader" verify "$tmp/response.cbor" \
  --transcript "$tmp/transcript.hex" --trust-anchor "$tmp/iaca.pem" --reader-key "$tmp/reader.pem"
fails "reader refuses a file that is not a response" 2 "$bin/mdoc-reader" verify "$tmp/iaca.pem" \
  --transcript "$tmp/transcript.hex" --trust-anchor "$tmp/iaca.pem"
# Device authentication is checked over the bytes of the transcript given, never over a payload
# the response brings: a deviceSignature made for session A, sent with A's DeviceAuthenticationBytes
# attached, is refused for session B (a cloned response), and an attached deviceMac is refused too.
.venv-test/bin/python3 - "$tmp" <<'PY'
import json, sys
import cbor2
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature
out = sys.argv[1]
key = serialization.load_pem_private_key(open("Fixtures/mdl-device-key.pem", "rb").read(), None)
issuer_signed = cbor2.loads(open("Fixtures/mdl.cbor", "rb").read())
doc_type = "org.iso.18013.5.1.mDL"
def transcript(name):  # [DeviceEngagementBytes, EReaderKeyBytes, null] of two sessions
    reader = ec.generate_private_key(ec.SECP256R1()).public_key().public_numbers()
    key_bytes = cbor2.dumps({1: 2, -1: 1, -2: reader.x.to_bytes(32, "big"), -3: reader.y.to_bytes(32, "big")})
    t = [cbor2.CBORTag(24, cbor2.dumps({0: "1.0", "session": name})), cbor2.CBORTag(24, key_bytes), None]
    open(f"{out}/transcript-{name}.cbor", "wb").write(cbor2.dumps(t))
    return t
a = transcript("a")
transcript("b")
name_spaces = cbor2.CBORTag(24, cbor2.dumps({}))
payload = cbor2.dumps(cbor2.CBORTag(24, cbor2.dumps(["DeviceAuthentication", a, doc_type, name_spaces])))
def response(protected, unprotected, attached):
    sig_structure = cbor2.dumps(["Signature1", protected, b"", payload])
    r, s = decode_dss_signature(key.sign(sig_structure, ec.ECDSA(hashes.SHA256())))
    sign1 = [protected, unprotected, payload if attached else None, r.to_bytes(32, "big") + s.to_bytes(32, "big")]
    doc = {"docType": doc_type, "issuerSigned": issuer_signed,
           "deviceSigned": {"nameSpaces": name_spaces, "deviceAuth": {"deviceSignature": sign1}}}
    return cbor2.dumps({"version": "1.0", "documents": [doc], "status": 0})
protected = cbor2.dumps({1: -7})
open(f"{out}/signed-detached.cbor", "wb").write(response(protected, {}, False))
open(f"{out}/signed-attached.cbor", "wb").write(response(protected, {}, True))
open(f"{out}/signed-unprotected-alg.cbor", "wb").write(response(b"", {1: -7}, False))
d = json.load(open("Fixtures/vectors/iso18013-5-annex-d.json"))
annex = cbor2.loads(bytes.fromhex(d["DeviceResponse"]["hex"]))
mac = annex["documents"][0]["deviceSigned"]["deviceAuth"]["deviceMac"]
mac[2] = bytes.fromhex(d["DeviceAuthenticationBytes"]["hex"])
open(f"{out}/mac-attached.cbor", "wb").write(cbor2.dumps(annex))
PY
check "reader verifies a detached deviceSignature in its own session" "$bin/mdoc-reader" verify "$tmp/signed-detached.cbor" \
  --transcript "$tmp/transcript-a.cbor" --trust-anchor Fixtures/pki/iaca.pem
fails "reader refuses that deviceSignature in another session" 1 "$bin/mdoc-reader" verify "$tmp/signed-detached.cbor" \
  --transcript "$tmp/transcript-b.cbor" --trust-anchor Fixtures/pki/iaca.pem
fails "reader refuses it replayed with session A's bytes attached, in session B" 1 "$bin/mdoc-reader" verify \
  "$tmp/signed-attached.cbor" --transcript "$tmp/transcript-b.cbor" --trust-anchor Fixtures/pki/iaca.pem
cp "$tmp/out" "$tmp/replayed.out"
check "the refusal says the payload was attached" grep -q "attached" "$tmp/replayed.out"
fails "reader refuses an attached deviceSignature even in its own session" 1 "$bin/mdoc-reader" verify \
  "$tmp/signed-attached.cbor" --transcript "$tmp/transcript-a.cbor" --trust-anchor Fixtures/pki/iaca.pem
fails "reader refuses a deviceSignature whose alg is only unprotected" 1 "$bin/mdoc-reader" verify \
  "$tmp/signed-unprotected-alg.cbor" --transcript "$tmp/transcript-a.cbor" --trust-anchor Fixtures/pki/iaca.pem
fails "reader refuses the Annex D deviceMac with its payload attached" 1 "$bin/mdoc-reader" verify "$tmp/mac-attached.cbor" \
  --transcript "$tmp/transcript.hex" --trust-anchor "$tmp/iaca.pem" --at 2021-06-01T00:00:00Z --reader-key "$tmp/reader.pem"
check "engagement --qr uri prints one mdoc: line" bash -c "'$bin/mdoc-holder' engagement --qr uri | grep -qx 'mdoc:[A-Za-z0-9_-]*'"

# Bounded input: an endless stdin, an endless device, a FIFO nobody writes to and a directory
# are refused at once (well under the 10 s bound), with a message that says what is wrong.
within() {  # within NAME SECONDS PATTERN COMMAND...: fails in time, exit 1, stderr matching PATTERN
  local name=$1 limit=$2 pattern=$3; shift 3
  local start; start=$(date +%s%N)
  timeout "$((limit + 5))" "$@" >"$tmp/out" 2>"$tmp/err"; local got=$?
  local ms=$((($(date +%s%N) - start) / 1000000))
  if [ "$got" = 1 ] && [ "$ms" -le $((limit * 1000)) ] && grep -q -- "$pattern" "$tmp/err"; then ok
  else ko "$name (exit $got after $ms ms)" "$tmp/err" 3; fi
}
within "an endless stdin stops at 16 MiB" 10 "larger than 16 MiB" bash -c \
  "'$bin/mdoc-holder' credentials import - --device-key '$tmp/device.pem' --store '$tmp/limits.sqlite' </dev/zero"
within "an endless credential file stops at 16 MiB" 10 "larger than 16 MiB" "$bin/mdoc-holder" credentials import \
  /dev/zero --device-key "$tmp/device.pem" --store "$tmp/limits.sqlite"
within "an endless device key stops at 8 KiB" 10 "device key /dev/zero is larger than 8 KiB" "$bin/mdoc-holder" \
  credentials import "$tmp/mdl.cbor" --device-key /dev/zero --store "$tmp/limits.sqlite"
within "an endless trust anchor stops at 64 KiB" 10 "larger than 64 KiB" "$bin/mdoc-holder" credentials import \
  "$tmp/mdl.cbor" --device-key "$tmp/device.pem" --trust-anchor /dev/zero --store "$tmp/limits.sqlite"
mkfifo "$tmp/fifo"
within "a FIFO without a writer is refused at once" 3 "named pipe with no writer" "$bin/mdoc-holder" credentials \
  import "$tmp/fifo" --device-key "$tmp/device.pem" --store "$tmp/limits.sqlite"
within "a directory is refused with what to do" 3 "it is a directory" "$bin/mdoc-holder" credentials import \
  "$tmp" --device-key "$tmp/device.pem" --store "$tmp/limits.sqlite"
within "an endless policy file stops at 1 MiB" 10 "larger than 1 MiB" "$bin/mdoc-holder" present --once \
  --consent policy:/dev/zero --store "$tmp/limits.sqlite"
check "none of these created a store" test ! -e "$tmp/limits.sqlite"
check "a credential piped on stdin imports" bash -c \
  "'$bin/mdoc-holder' credentials import - --device-key '$tmp/device.pem' --trust-anchor '$tmp/pki/iaca.pem' --store '$tmp/stdin.sqlite' <'$tmp/mdl.cbor'"

# A failed import into a new store path creates nothing: no file, no directory.
fails "an untrusted import into a new store fails" 1 "$bin/mdoc-holder" credentials import "$tmp/mdl.cbor" \
  --device-key "$tmp/device.pem" --trust-anchor Fixtures/pki/reader-ca.pem --store "$tmp/new/dir/wallet.sqlite"
check "and creates neither the store nor its directory" test ! -e "$tmp/new"
check "a store path that is a directory says so" bash -c \
  "'$bin/mdoc-holder' credentials import '$tmp/mdl.cbor' --device-key '$tmp/device.pem' --trust-anchor '$tmp/pki/iaca.pem' --store '$tmp/pki' 2>&1 | grep -q 'it is a directory; give the path of the store file'"

# A full disk and a read-only file system get a message that says so and what to do (needs
# to mount a small tmpfs: root, as in CI; said when not possible).
mnt="$tmp/mnt"
mkdir -p "$mnt"
if mount -t tmpfs -o size=64k tmpfs "$mnt" 2>/dev/null; then
  check "a full disk says so" bash -c "'$bin/mdoc-holder' credentials import '$tmp/mdl.cbor' --device-key '$tmp/device.pem' \
    --trust-anchor '$tmp/pki/iaca.pem' --store '$mnt/wallet.sqlite' 2>&1 | grep -q 'is full; free some space'"
  umount "$mnt"
  mount -t tmpfs -o size=1m tmpfs "$mnt"
  "$bin/mdoc-holder" credentials import "$tmp/mdl.cbor" --device-key "$tmp/device.pem" \
    --trust-anchor "$tmp/pki/iaca.pem" --store "$mnt/wallet.sqlite" >/dev/null
  mount -o remount,ro "$mnt"
  check "a read-only file system says so" bash -c "'$bin/mdoc-holder' credentials delete 0123456789abcdef \
    --store '$mnt/wallet.sqlite' 2>&1 | grep -q 'is read-only'"
  umount "$mnt"
else
  echo "cli: the full-disk and read-only cases did not run: cannot mount a tmpfs here"
fi

# Four processes creating the same new store at once, CREATORS_ROUNDS times (default 150:
# 600 creations, enough to see a 1 % failure rate with 99.8 % probability): every import succeeds.
for i in 1 2 3 4; do
  "$bin/mdoc-issuer" issue --claims Fixtures/mdl-claims.json --pki "$tmp/pki" --out "$tmp/c$i.cbor" \
    --new-device-key "$tmp/k$i.pem" >/dev/null || echo "FAIL: issuing credential $i"
done
rounds=${CREATORS_ROUNDS:-150} lost=0
for r in $(seq 1 "$rounds"); do
  for i in 1 2 3 4; do
    "$bin/mdoc-holder" credentials import "$tmp/c$i.cbor" --device-key "$tmp/k$i.pem" --trust-anchor "$tmp/pki/iaca.pem" \
      --store "$tmp/race$r/wallet.sqlite" >/dev/null 2>"$tmp/race.err$i" &
  done
  for i in 1 2 3 4; do wait -n || { lost=$((lost + 1)); cat "$tmp"/race.err* | head -2; }; done
  rm -rf "$tmp/race$r"
done
echo "cli: four concurrent creators, $rounds rounds: $lost of $((rounds * 4)) imports failed"
if [ "$lost" = 0 ]; then ok; else ko "concurrent creators"; fi

tier_summary
