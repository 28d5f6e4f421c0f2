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

# VICAL: trust lists (ISO 18013-5 Annex C.1.7). The public lists of ../shared/vectors/trust-lists
# at a pinned time; lists of our own made here with cbor2 and cryptography (an independent
# signer): the Annex D response verified through a VICAL's IACA, a list scoping that IACA to
# another docType, a tampered list, an untrusted one; the holder importing through a VICAL.
vicals=../shared/vectors/trust-lists/vical
check "vical show: AAMVA verifies and chains at a pinned time" "$bin/mdoc-reader" vical show \
  "$vicals/aamva-vical-2025-11-18-issue-227602.cbor" --vical-anchor "$vicals/aamva-dts-root-ca.pem" \
  --at 2025-11-19T00:00:00Z
cp "$tmp/out" "$tmp/aamva.out"
check "vical show: AAMVA lists 14 IACAs, all usable" grep -qx 'IACAs: 14 (14 usable)' "$tmp/aamva.out"
check "vical show: the AAMVA line says it chains" grep -q '^signature verifies, signer chains' "$tmp/aamva.out"
fails "vical show: AAMVA today is refused (its signer expired)" 1 "$bin/mdoc-reader" vical show \
  "$vicals/aamva-vical-2025-11-18-issue-227602.cbor" --vical-anchor "$vicals/aamva-dts-root-ca.pem"
check "vical show: RDW's signature verifies with no anchor" "$bin/mdoc-reader" vical show \
  "$vicals/rdw-test-vical-2025-02-25-issue-5.cbor"
cp "$tmp/out" "$tmp/rdw.out"
check "vical show: RDW says its signer is not chained" grep -q '^signature verifies, signer not chained' "$tmp/rdw.out"
check "vical show: RDW's RSA entry is skipped, not refused" grep -q 'skipped: RSA key' "$tmp/rdw.out"
.venv-test/bin/python3 - "$tmp" "$tmp/pki/iaca.pem" <<'PY'
import datetime as dt, sys, cbor2
from cryptography import x509
from cryptography.x509.oid import NameOID, ObjectIdentifier
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
out, issuer_iaca = sys.argv[1], sys.argv[2]
def name(cn): return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, cn)])
def cert(subject, key, issuer, issuer_key, ca, eku=None):
    b = (x509.CertificateBuilder().subject_name(name(subject)).issuer_name(name(issuer))
         .public_key(key.public_key()).serial_number(x509.random_serial_number())
         .not_valid_before(dt.datetime(2020, 1, 1)).not_valid_after(dt.datetime(2040, 1, 1))
         .add_extension(x509.BasicConstraints(ca=ca, path_length=0 if ca else None), critical=True)
         .add_extension(x509.KeyUsage(digital_signature=not ca, key_cert_sign=ca, crl_sign=ca, content_commitment=False,
             key_encipherment=False, data_encipherment=False, key_agreement=False, encipher_only=False,
             decipher_only=False), critical=True))
    if eku: b = b.add_extension(x509.ExtendedKeyUsage([ObjectIdentifier(eku)]), critical=True)
    return b.sign(issuer_key, hashes.SHA256())
def der(c): return c.public_bytes(serialization.Encoding.DER)
root_key, signer_key, other_key = (ec.generate_private_key(ec.SECP256R1()) for _ in range(3))
root = cert("CLI VICAL Root", root_key, "CLI VICAL Root", root_key, True)
signer = cert("CLI VICAL Signer", signer_key, "CLI VICAL Root", root_key, False, "1.0.18013.5.1.8")
other = cert("Other VICAL Root", other_key, "Other VICAL Root", other_key, True)
for n, c in (("vical-root", root), ("other-vical-root", other)):
    open(f"{out}/{n}.pem", "wb").write(c.public_bytes(serialization.Encoding.PEM))
def sign(path, iaca_pem, doc_types, date, next_update, provider="CLI Provider"):
    iaca = x509.load_pem_x509_certificate(open(iaca_pem, "rb").read())
    payload = cbor2.dumps({"version": "1.0", "vicalProvider": provider, "date": cbor2.CBORTag(0, date),
        "vicalIssueID": 1, "nextUpdate": cbor2.CBORTag(0, next_update), "certificateInfos": [{
            "certificate": der(iaca), "serialNumber": cbor2.CBORTag(2, iaca.serial_number.to_bytes(20, "big")),
            "ski": b"\x01", "docType": doc_types}]})
    protected = cbor2.dumps({1: -7})
    tbs = cbor2.dumps(["Signature1", protected, b"", payload])
    from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature
    r, s = decode_dss_signature(signer_key.sign(tbs, ec.ECDSA(hashes.SHA256())))
    open(path, "wb").write(cbor2.dumps([protected, {33: der(signer)}, payload, r.to_bytes(32, "big") + s.to_bytes(32, "big")]))
sign(f"{out}/vical-annexd-mdl.cbor", f"{out}/iaca.pem", ["org.iso.18013.5.1.mDL"], "2021-05-01T00:00:00Z", "2021-07-01T00:00:00Z")
sign(f"{out}/vical-annexd-pid.cbor", f"{out}/iaca.pem", ["eu.europa.ec.eudi.pid.1"], "2021-05-01T00:00:00Z", "2021-07-01T00:00:00Z")
now = dt.datetime.now(dt.timezone.utc).replace(microsecond=0)
stamp = lambda t: t.strftime("%Y-%m-%dT%H:%M:%SZ")
sign(f"{out}/vical-pki-mdl.cbor", issuer_iaca, ["org.iso.18013.5.1.mDL"], stamp(now - dt.timedelta(hours=1)), stamp(now + dt.timedelta(days=1)))
sign(f"{out}/vical-pki-pid.cbor", issuer_iaca, ["eu.europa.ec.eudi.pid.1"], stamp(now - dt.timedelta(hours=1)), stamp(now + dt.timedelta(days=1)))
sign(f"{out}/vical-pki-old.cbor", issuer_iaca, ["org.iso.18013.5.1.mDL"], stamp(now - dt.timedelta(days=2)), stamp(now - dt.timedelta(days=1)))
sign(f"{out}/vical-hostile.cbor", f"{out}/iaca.pem", ["org.iso.18013.5.1.mDL"], "2021-05-01T00:00:00Z",
     "2021-07-01T00:00:00Z", provider="Evil\x1b[2J\u202eProvider")
b = bytearray(open(f"{out}/vical-annexd-mdl.cbor", "rb").read())
i = b.find(b"CLI Provider")
b[i] = ord("X")
open(f"{out}/vical-tampered.cbor", "wb").write(b)
PY
annexd=(verify "$tmp/response.cbor" --transcript "$tmp/transcript.hex" --at 2021-06-01T00:00:00Z --reader-key "$tmp/reader.pem")
check "verify --vical: Annex D verified through the VICAL's IACA" "$bin/mdoc-reader" "${annexd[@]}" \
  --vical "$tmp/vical-annexd-mdl.cbor" --vical-anchor "$tmp/vical-root.pem"
check "verify --vical prints the accepted list" grep -qx 'VICAL CLI Provider 2021-05-01T00:00:00Z: 1 IACAs' "$tmp/out"
fails "verify --vical: an IACA listed for the PID does not authenticate the mDL" 1 "$bin/mdoc-reader" "${annexd[@]}" \
  --vical "$tmp/vical-annexd-pid.cbor" --vical-anchor "$tmp/vical-root.pem"
check "verify --vical: the scope is named" grep -q 'trusted for eu.europa.ec.eudi.pid.1 only' "$tmp/out"
fails "verify --vical: a tampered list is refused" 2 "$bin/mdoc-reader" "${annexd[@]}" \
  --vical "$tmp/vical-tampered.cbor" --vical-anchor "$tmp/vical-root.pem"
check "verify --vical: the refusal names the signature" grep -q 'VICAL signature does not verify' "$tmp/err"
fails "verify --vical: a list under another root is refused" 2 "$bin/mdoc-reader" "${annexd[@]}" \
  --vical "$tmp/vical-annexd-mdl.cbor" --vical-anchor "$tmp/other-vical-root.pem"
check "verify --vical: the refusal names the signer" grep -q 'VICAL signer is not trusted' "$tmp/err"
fails "verify --vical: RDW (no anchor for its root) is refused" 2 "$bin/mdoc-reader" "${annexd[@]}" \
  --vical "$vicals/rdw-test-vical-2025-02-25-issue-5.cbor" --vical-anchor "$vicals/aamva-dts-root-ca.pem"
fails "verify --vical: past nextUpdate is refused" 2 "$bin/mdoc-reader" "${annexd[@]/2021-06-01/2021-08-01}" \
  --vical "$tmp/vical-annexd-mdl.cbor" --vical-anchor "$tmp/vical-root.pem"
check "verify --vical: the refusal names nextUpdate" grep -q 'past its nextUpdate' "$tmp/err"
fails "verify --vical without --vical-anchor is refused" 2 "$bin/mdoc-reader" "${annexd[@]}" \
  --vical "$tmp/vical-annexd-mdl.cbor"
check "verify --vical: a provider's control characters are shown escaped" bash -c \
  "'$bin/mdoc-reader' verify '$tmp/response.cbor' --transcript '$tmp/transcript.hex' --at 2021-06-01T00:00:00Z \
   --reader-key '$tmp/reader.pem' --vical '$tmp/vical-hostile.cbor' --vical-anchor '$tmp/vical-root.pem' >'$tmp/hostile.out' \
   && grep -qF 'VICAL Evil\\u{1B}[2J\\u{202E}Provider 2021-05-01T00:00:00Z: 1 IACAs' '$tmp/hostile.out' \
   && ! grep -q \$'\\x1b' '$tmp/hostile.out'"
"$bin/mdoc-holder" engagement --qr uri >"$tmp/engagement.uri" 2>/dev/null
fails "request --vical: a tampered list is refused before any Bluetooth" 2 "$bin/mdoc-reader" request \
  "$(head -1 "$tmp/engagement.uri")" --vical "$tmp/vical-tampered.cbor" --vical-anchor "$tmp/vical-root.pem"
check "request --vical: the refusal names the signature" grep -q 'VICAL signature does not verify' "$tmp/err"
head -c 64 /dev/urandom >"$tmp/not-a-token.cwt"
fails "request --status-list: a file that is no Status List Token is refused before any Bluetooth" 2 \
  "$bin/mdoc-reader" request "$(head -1 "$tmp/engagement.uri")" --trust-anchor Fixtures/pki/iaca.pem \
  --status-list "$tmp/not-a-token.cwt"
check "request --status-list: the refusal names the file" grep -q 'not-a-token.cwt: the status list token is malformed' "$tmp/err"
check "holder imports through a VICAL's IACA" "$bin/mdoc-holder" credentials import "$tmp/mdl.cbor" \
  --device-key "$tmp/device.pem" --vical "$tmp/vical-pki-mdl.cbor" --vical-anchor "$tmp/vical-root.pem" \
  --store "$tmp/vical/wallet.sqlite"
check "the holder's import printed the VICAL line" grep -q '^VICAL CLI Provider .*: 1 IACAs$' "$tmp/out"
fails "holder refuses an mDL whose IACA the VICAL lists for the PID only" 1 "$bin/mdoc-holder" credentials import \
  "$tmp/mdl.cbor" --device-key "$tmp/device.pem" --vical "$tmp/vical-pki-pid.cbor" \
  --vical-anchor "$tmp/vical-root.pem" --store "$tmp/vical-pid/wallet.sqlite"
fails "holder refuses a VICAL past its nextUpdate" 1 "$bin/mdoc-holder" credentials import "$tmp/mdl.cbor" \
  --device-key "$tmp/device.pem" --vical "$tmp/vical-pki-old.cbor" --vical-anchor "$tmp/vical-root.pem" \
  --store "$tmp/vical-old/wallet.sqlite"

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

# status list: Token Status Lists (draft-ietf-oauth-status-list) on `verify`. An mDL whose MSO
# refers to index 3 of a list on a loopback HTTPS server (status_list_server.py, a TLS certificate
# made by openssl), tokens made by `mdoc-issuer status-list` and signed by the status list signer
# under the IACA (Fixtures/pki/status-list.pem): fetched, supplied offline, revoked, suspended,
# from a stranger, expired; the server down.
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 1 -subj /CN=localhost \
  -addext subjectAltName=DNS:localhost,IP:127.0.0.1 -keyout "$tmp/sl-tls.key" -out "$tmp/sl-tls.pem" 2>/dev/null
mkdir -p "$tmp/lists"
python3 Tests/Support/status_list_server.py --dir "$tmp/lists" --cert "$tmp/sl-tls.pem" --key "$tmp/sl-tls.key" \
  --ready-file "$tmp/sl-ready.json" --lifetime 300 >/dev/null 2>&1 &
sl_pid=$!
tier_track "$sl_pid"
wait_file "$tmp/sl-ready.json" 20 || die "the status list server did not start"
sl_uri="https://localhost:$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["port"])' "$tmp/sl-ready.json")/mdl.cwt"
check "issuer puts a status reference into the MSO" "$bin/mdoc-issuer" issue --claims Fixtures/mdl-claims.json \
  --pki Fixtures/pki --out "$tmp/sl-mdl.cbor" --new-device-key "$tmp/sl-device.pem" \
  --status-uri "$sl_uri" --status-index 3
check "the issuer names the reference" grep -q "status list $sl_uri index 3" "$tmp/out"
sl_list() { # NAME ARGS...: a CWT for $sl_uri signed by the fixtures' status list signer
  local name=$1
  shift
  "$bin/mdoc-issuer" status-list --uri "$sl_uri" --pki Fixtures/pki --out "$tmp/$name" "$@" >/dev/null
}
sl_list valid.cwt --bits 2 --set 2=1 --set 4=2
sl_list revoked.cwt --set 3=1
sl_list suspended.cwt --bits 2 --set 3=2
sl_list expired.cwt --set 2=1 --issued-at $(($(date +%s) - 7200)) --valid-seconds 3600
"$bin/mdoc-issuer" status-list --uri "$sl_uri" --pki Fixtures/pki --format jwt --set 3=1 --out "$tmp/revoked.jwt" >/dev/null
check "an independent reader (cbor2, cryptography, zlib) verifies the issuer's CWT and JWT" \
  .venv-test/bin/python3 - "$tmp/revoked.cwt" "$tmp/revoked.jwt" "$sl_uri" <<'PY'
import base64, json, sys, zlib
import cbor2
from cryptography import x509
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature
def verify(cert_der, message, raw):
    signature = encode_dss_signature(int.from_bytes(raw[:32], "big"), int.from_bytes(raw[32:], "big"))
    x509.load_der_x509_certificate(cert_der).public_key().verify(signature, message, ec.ECDSA(hashes.SHA256()))
def entry(lst, bits, index):
    data = zlib.decompress(lst)
    return (data[index * bits // 8] >> (index * bits % 8)) & ((1 << bits) - 1)
tag = cbor2.loads(open(sys.argv[1], "rb").read())
assert tag.tag == 18
protected, unprotected, payload, signature = tag.value
header = cbor2.loads(protected)
assert header[1] == -7 and header[16] == "application/statuslist+cwt", header
verify(header[33], cbor2.dumps(["Signature1", protected, b"", payload]), signature)
claims = cbor2.loads(payload)
assert claims[2] == sys.argv[3] and claims[4] > claims[6] and claims[65534] == 300, claims
assert entry(claims[65533]["lst"], claims[65533]["bits"], 3) == 1 and entry(claims[65533]["lst"], 1, 2) == 0
b64 = lambda t: base64.urlsafe_b64decode(t + "=" * (-len(t) % 4))
head, body, sig = open(sys.argv[2]).read().strip().split(".")
h, c = json.loads(b64(head)), json.loads(b64(body))
assert h["typ"] == "statuslist+jwt" and h["alg"] == "ES256", h
verify(base64.b64decode(h["x5c"][0]), (head + "." + body).encode(), b64(sig))
assert c["sub"] == sys.argv[3] and entry(b64(c["status_list"]["lst"]), c["status_list"]["bits"], 3) == 1, c
PY
check "a status list signer under another IACA" "$bin/mdoc-issuer" status-signer --pki "$tmp/pki"
"$bin/mdoc-issuer" status-list --uri "$sl_uri" --pki "$tmp/pki" --out "$tmp/stranger.cwt" >/dev/null
.venv-test/bin/python3 - "$tmp" <<'PY'
import sys
import cbor2
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature
out = sys.argv[1]
key = serialization.load_pem_private_key(open(f"{out}/sl-device.pem", "rb").read(), None)
issuer_signed = cbor2.loads(open(f"{out}/sl-mdl.cbor", "rb").read())
doc_type = "org.iso.18013.5.1.mDL"
reader = ec.generate_private_key(ec.SECP256R1()).public_key().public_numbers()
reader_key = cbor2.dumps({1: 2, -1: 1, -2: reader.x.to_bytes(32, "big"), -3: reader.y.to_bytes(32, "big")})
transcript = [cbor2.CBORTag(24, cbor2.dumps({0: "1.0", "session": "status"})), cbor2.CBORTag(24, reader_key), None]
open(f"{out}/sl-transcript.cbor", "wb").write(cbor2.dumps(transcript))
name_spaces = cbor2.CBORTag(24, cbor2.dumps({}))
payload = cbor2.dumps(cbor2.CBORTag(24, cbor2.dumps(["DeviceAuthentication", transcript, doc_type, name_spaces])))
protected = cbor2.dumps({1: -7})
r, s = decode_dss_signature(key.sign(cbor2.dumps(["Signature1", protected, b"", payload]), ec.ECDSA(hashes.SHA256())))
sign1 = [protected, {}, None, r.to_bytes(32, "big") + s.to_bytes(32, "big")]
doc = {"docType": doc_type, "issuerSigned": issuer_signed,
       "deviceSigned": {"nameSpaces": name_spaces, "deviceAuth": {"deviceSignature": sign1}}}
open(f"{out}/sl-response.cbor", "wb").write(cbor2.dumps({"version": "1.0", "documents": [doc], "status": 0}))
PY
sl_verify=(verify "$tmp/sl-response.cbor" --transcript "$tmp/sl-transcript.cbor" --trust-anchor Fixtures/pki/iaca.pem)
cp "$tmp/valid.cwt" "$tmp/lists/mdl.cwt"
check "verify fetches the status list: valid" "$bin/mdoc-reader" "${sl_verify[@]}" --tls-ca "$tmp/sl-tls.pem"
check "verify prints status: valid" grep -q "^  status: valid" "$tmp/out"
check "the list was fetched once" test "$(grep -c 'GET /mdl.cwt' "$tmp/lists/requests.log")" = 1
cp "$tmp/revoked.cwt" "$tmp/lists/mdl.cwt"
fails "verify: a revoked credential is not valid" 1 "$bin/mdoc-reader" "${sl_verify[@]}" --tls-ca "$tmp/sl-tls.pem"
check "verify prints status: invalid" grep -q "^  status: invalid" "$tmp/out"
check "verify: without --tls-ca the server is not trusted: unknown, still valid" "$bin/mdoc-reader" "${sl_verify[@]}"
check "verify prints status: unknown, naming TLS" grep -q "^  status: unknown (.*TLS" "$tmp/out"
fails "verify --json carries the status" 1 "$bin/mdoc-reader" "${sl_verify[@]}" --tls-ca "$tmp/sl-tls.pem" --json
check "the JSON status is invalid" python3 -c \
  'import json,sys; d=json.load(open(sys.argv[1]))["documents"][0]; assert d["status"]=="invalid" and not d["valid"], d' "$tmp/out"
fails "verify --status-list (offline): suspended is not valid" 1 "$bin/mdoc-reader" "${sl_verify[@]}" \
  --status-list "$tmp/suspended.cwt"
check "verify prints status: suspended" grep -q "^  status: suspended" "$tmp/out"
kill "$sl_pid" 2>/dev/null
wait "$sl_pid" 2>/dev/null
check "verify with the server down: unknown, exit 0" "$bin/mdoc-reader" "${sl_verify[@]}" --tls-ca "$tmp/sl-tls.pem"
check "verify prints status: unknown, naming the connection" grep -q "^  status: unknown (.*cannot connect" "$tmp/out"
fails "verify --require-status with the server down: not valid" 1 "$bin/mdoc-reader" "${sl_verify[@]}" \
  --tls-ca "$tmp/sl-tls.pem" --require-status
check "verify --status-list (offline), server down: valid" "$bin/mdoc-reader" "${sl_verify[@]}" \
  --status-list "$tmp/valid.cwt" --require-status
check "verify prints status: valid from the offline list" grep -q "^  status: valid" "$tmp/out"
check "a list signed under another IACA: unknown" "$bin/mdoc-reader" "${sl_verify[@]}" --status-list "$tmp/stranger.cwt"
check "the reason names the signer" grep -q "^  status: unknown (.*signer is not trusted" "$tmp/out"
check "an expired list: unknown" "$bin/mdoc-reader" "${sl_verify[@]}" --status-list "$tmp/expired.cwt"
check "the reason names the expiry" grep -q "^  status: unknown (.*expired" "$tmp/out"
fails "an unreadable --status-list file is bad input" 2 "$bin/mdoc-reader" "${sl_verify[@]}" \
  --status-list Fixtures/pki/iaca.pem
check "a credential without a status reference prints no status" bash -c \
  "! '$bin/mdoc-reader' verify '$tmp/signed-detached.cbor' --transcript '$tmp/transcript-a.cbor' --trust-anchor Fixtures/pki/iaca.pem | grep -q '^  status:'"
fails "... and is not valid under --require-status" 1 "$bin/mdoc-reader" verify "$tmp/signed-detached.cbor" \
  --transcript "$tmp/transcript-a.cbor" --trust-anchor Fixtures/pki/iaca.pem --require-status

# present starts OpenSSL on a thread of its own before the command line is parsed; an exit
# while that thread works (an argument error, a policy file that is not there) must still be
# a clean exit, every time. (Without OPENSSL_INIT_NO_ATEXIT about 1 in 60 policy errors
# crashed in OpenSSL's exit handler; a race, so many runs.)
check "40 argument errors of present: each exits 64, none crashes" bash -c \
  'for i in $(seq 40); do "$0" present --no-such-option 2>/dev/null; [ $? -eq 64 ] || exit 1; done' "$bin/mdoc-holder"
check "120 missing policy files of present: each exits 1, none crashes" env DBUS_SYSTEM_BUS_ADDRESS=unix:path=/nonexistent \
  bash -c 'for i in $(seq 120); do "$0" present --qr uri --consent policy:/nonexistent/p.toml 2>/dev/null; [ $? -eq 1 ] || exit 1; done' \
  "$bin/mdoc-holder"

tier_summary
