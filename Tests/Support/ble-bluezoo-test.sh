#!/usr/bin/env bash
# The BlueZoo tier: the real `mdoc-holder present` on hci0 and the real `mdoc-reader request`
# on hci1, over real D-Bus messages to BlueZoo (the BlueZ D-Bus API mock) on a private bus; a
# fresh bus + mock per case. Usage: Tests/Support/ble-bluezoo-test.sh [BIN_DIR]
set -uo pipefail
cd "$(dirname "$0")/../.."
bin=${1:-.build/debug}
. Tests/Support/lib/tier.sh
tier_begin bluezoo
holder_pid=""
tier_track_variables holder_pid

# A store with the test mDL, and one with a 100 kB portrait (issued here by mdoc-issuer).
import_test_mdl "$tmp/wallet.sqlite" || die "import"
head -c 100000 /dev/urandom > "$tmp/big.jpg"
python3 - "$tmp" <<'PY'
import json, sys
claims = json.load(open("Fixtures/mdl-claims.json"))
claims["portrait"] = {"file": sys.argv[1] + "/big.jpg"}
json.dump(claims, open(sys.argv[1] + "/big-claims.json", "w"))
PY
"$bin/mdoc-issuer" issue --claims "$tmp/big-claims.json" --pki Fixtures/pki --out "$tmp/big.cbor" \
  --new-device-key "$tmp/big-key.pem" >/dev/null && "$bin/mdoc-holder" credentials import "$tmp/big.cbor" \
  --device-key "$tmp/big-key.pem" --trust-anchor Fixtures/pki/iaca.pem --store "$tmp/big.sqlite" >/dev/null \
  || { echo "big credential failed"; exit 1; }
write_policy "$tmp/policy.toml" trusted org.iso.18013.5.1.mDL org.iso.18013.5.1:family_name \
  org.iso.18013.5.1:given_name org.iso.18013.5.1:portrait org.iso.18013.5.1:age_over_18

# present CASE STORE UNTRUSTED_POLICY READER_ARGS...: one holder session and one reader request.
# The holder offers the BLE mode in $holder_mode (default peripheral), with $holder_args added.
present() {
  local case=$1 store=$2 untrusted=$3; shift 3
  local bus="$tmp/bus-$case"
  local address
  address=$(tier_bus_start "$bus") || { ko "$case: BlueZoo did not start"; return 1; }
  DBUS_SYSTEM_BUS_ADDRESS="$address" timeout 120 "$bin/mdoc-holder" present --adapter hci0 --once --qr uri \
    --mode "${holder_mode:-peripheral}" ${holder_args:-} \
    --consent "policy:$tmp/policy.toml" --reader-trust Fixtures/pki/reader-ca.pem --untrusted-readers "$untrusted" \
    --store "$store" >"$tmp/$case.holder.out" 2>"$tmp/$case.holder.err" &
  holder_pid=$!
  local uri=""
  for _ in $(seq 1 150); do
    uri=$(grep -m1 '^mdoc:' "$tmp/$case.holder.out" 2>/dev/null) && [ -n "$uri" ] && break
    sleep 0.1
  done
  [ -n "$uri" ] || { ko "$case: the holder printed no mdoc: URI" "$tmp/$case.holder.err"; return 1; }
  DBUS_SYSTEM_BUS_ADDRESS="$address" timeout 120 "$bin/mdoc-reader" request "$uri" --adapter hci1 \
    --trust-anchor Fixtures/pki/iaca.pem --json "$@" >"$tmp/$case.reader.out" 2>"$tmp/$case.reader.err"
  reader_exit=$?
  wait "$holder_pid"; holder_exit=$?
  holder_pid=""
  tier_bus_stop "$bus"
}

# 1. A trusted reader with reader auth gets exactly the elements policy allows, verified.
present trusted "$tmp/wallet.sqlite" refuse --reader-key Fixtures/pki/reader.key.pem --reader-cert Fixtures/pki/reader.pem \
  --element org.iso.18013.5.1:family_name --element org.iso.18013.5.1:portrait --element org.iso.18013.5.1:document_number
if [ "$reader_exit" = 0 ]; then ok; else ko "trusted: the reader verifies the response (exit $reader_exit)" "$tmp/trusted.reader.err"; fi
if [ "$holder_exit" = 0 ]; then ok; else ko "trusted: present --once exits 0 (exit $holder_exit)" "$tmp/trusted.holder.err"; fi
if python3 - "$tmp/trusted.reader.out" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
d = r["documents"][0]
ids = sorted(e["identifier"] for e in d["elements"])
assert r["valid"] and ids == ["family_name", "portrait"], ids
assert any("document_number" in n for n in d["notReturned"]), d["notReturned"]
PY
then ok; else ko "trusted: selective disclosure (document_number not sent)" "$tmp/trusted.reader.out"; fi
if "$bin/mdoc-holder" history --json --store "$tmp/wallet.sqlite" | python3 -c '
import json, sys
h = json.load(sys.stdin)
assert len(h) == 1 and h[0]["decision"] == "sent" and h[0]["channel"] == "ble", h'; then ok; else ko "trusted: one history entry"; fi

# 1b. The same credential presented online (OpenID4VP, loopback verifier) from the same store:
# the history then holds two entries, one per channel.
mkdir -p "$tmp/verifier"
.venv-test/bin/python3 Tests/Support/oid4vp_verifier.py --dir "$tmp/verifier" --iaca Fixtures/pki/iaca.pem \
  --lifetime 60 --ready-file "$tmp/verifier.json" >/dev/null 2>"$tmp/verifier.err" &
verifier_pid=$!
wait_file "$tmp/verifier.json" 10
port=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["port"])' "$tmp/verifier.json" 2>/dev/null)
url=$(curl -s --cacert "$tmp/verifier/ca.pem" -X POST "https://localhost:$port/start" \
  -d kind=signed -d delivery=post -d mode=direct_post.jwt -d claims=org.iso.18013.5.1:family_name,org.iso.18013.5.1:age_over_18 \
  | python3 -c 'import json,sys; print(json.load(sys.stdin)["url"])' 2>/dev/null)
if [ -n "$url" ] && "$bin/mdoc-holder" present-online "$url" --consent "policy:$tmp/policy.toml" \
  --verifier-trust "$tmp/verifier/ca.pem" --tls-ca "$tmp/verifier/ca.pem" --store "$tmp/wallet.sqlite" \
  >"$tmp/online.out" 2>"$tmp/online.err"; then ok; else ko "online: present-online sends the same credential" "$tmp/online.err"; fi
kill "$verifier_pid" 2>/dev/null
if "$bin/mdoc-holder" history --json --store "$tmp/wallet.sqlite" | python3 -c '
import json, sys
h = json.load(sys.stdin)
assert sorted(e["channel"] for e in h) == ["ble", "online"] and all(e["decision"] == "sent" for e in h), h'; then ok; else ko "one credential, BLE then online: two history entries"; fi

# 2. An unauthenticated reader is refused by policy: no data.
present untrusted "$tmp/wallet.sqlite" refuse
if [ "$reader_exit" = 1 ]; then ok; else ko "untrusted: the reader gets no documents (exit $reader_exit)" "$tmp/untrusted.reader.err"; fi
if [ "$holder_exit" = 2 ]; then ok; else ko "untrusted: present --once exits 2 (a response that released nothing) (exit $holder_exit)" "$tmp/untrusted.holder.err"; fi
if python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); assert r["documents"] == [] and r["documentErrors"], r' "$tmp/untrusted.reader.out"; then ok; else ko "untrusted: documentErrors only" "$tmp/untrusted.reader.out"; fi

# 2b. A replayed readerAuth: the trusted reader's key signed another session of this engagement and
# that session's ReaderAuthenticationBytes ride along attached. The holder must see an invalid reader
# (not the trusted one it copies) and release nothing under the trusted-readers policy; the same for
# a readerAuth whose alg is only in the unprotected header.
for fault in replayed-reader-auth unprotected-alg; do
  present "$fault" "$tmp/wallet.sqlite" refuse --reader-key Fixtures/pki/reader.key.pem \
    --reader-cert Fixtures/pki/reader.pem --hostile "$fault"
  if [ "$reader_exit" = 1 ] && python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); assert r["documents"] == [] and r["documentErrors"], r' \
    "$tmp/$fault.reader.out"; then ok; else ko "$fault: nothing released (reader exit $reader_exit)" "$tmp/$fault.reader.out"; fi
  if "$bin/mdoc-holder" history --json --store "$tmp/wallet.sqlite" | python3 -c '
import json, sys
e = json.load(sys.stdin)[-1]
assert e["elementsSent"] == [] and e["authentication"].startswith("authentication failed"), e
assert ("attached" if sys.argv[1] == "replayed-reader-auth" else "protected header") in e["authentication"], e' "$fault"
  then ok; else ko "$fault: the history names the reader as invalid, nothing sent"; fi
done

# 3. A 100 kB portrait arrives intact.
present big "$tmp/big.sqlite" refuse --reader-key Fixtures/pki/reader.key.pem --reader-cert Fixtures/pki/reader.pem \
  --element org.iso.18013.5.1:portrait
if [ "$reader_exit" = 0 ] && python3 - "$tmp/big.reader.out" "$tmp/big.jpg" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
e = r["documents"][0]["elements"][0]
assert e["identifier"] == "portrait" and e["digestMatches"] and r["valid"], e
assert "(100000 bytes)" in e["value"], e["value"]
PY
then ok; else ko "big: a 100 kB portrait arrives intact" "$tmp/big.reader.err"; fi

# 3b. A damaged row is not presented: a second mDL (family_name "Damaged-Row", imported last, so
# presentation would take it first) whose element-list column no longer reads, while its
# IssuerSigned and key still do. `credentials list` marks it, the reader gets the whole one, the
# holder's log names it once (its id and why, no value).
python3 - "$tmp" <<'PY'
import json, os, sys
claims = json.load(open("Fixtures/mdl-claims.json"))
claims["family_name"] = "Damaged-Row"
claims["portrait"] = {"file": os.path.abspath("Fixtures/portrait.jpg")}
json.dump(claims, open(sys.argv[1] + "/damaged-claims.json", "w"))
PY
cp "$tmp/wallet.sqlite" "$tmp/damaged.sqlite"
"$bin/mdoc-issuer" issue --claims "$tmp/damaged-claims.json" --pki Fixtures/pki --out "$tmp/damaged.cbor" \
  --new-device-key "$tmp/damaged-key.pem" >/dev/null && "$bin/mdoc-holder" credentials import "$tmp/damaged.cbor" \
  --device-key "$tmp/damaged-key.pem" --trust-anchor Fixtures/pki/iaca.pem --store "$tmp/damaged.sqlite" >/dev/null
damaged_id=$("$bin/mdoc-holder" credentials list --json --store "$tmp/damaged.sqlite" \
  | python3 -c 'import json,sys; print(json.load(sys.stdin)[-1]["id"])')
python3 -c 'import sqlite3,sys; db=sqlite3.connect(sys.argv[1]); db.execute("UPDATE credentials SET elements = ? WHERE id = ?", ("not json", sys.argv[2])); db.commit()' \
  "$tmp/damaged.sqlite" "$damaged_id"
if "$bin/mdoc-holder" credentials list --json --store "$tmp/damaged.sqlite" | python3 -c '
import json, sys
c = {x["id"]: x for x in json.load(sys.stdin)}
assert len(c) == 2 and "element list is not readable" in c[sys.argv[1]].get("problem", ""), c
assert [i for i in c if c[i].get("problem")] == [sys.argv[1]], c' "$damaged_id"; then ok
else ko "damaged: credentials list marks the row whose element list does not read"; fi
present damaged "$tmp/damaged.sqlite" refuse --reader-key Fixtures/pki/reader.key.pem --reader-cert Fixtures/pki/reader.pem \
  --element org.iso.18013.5.1:family_name
if [ "$reader_exit" = 0 ] && python3 - "$tmp/damaged.reader.out" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
assert r["valid"] and len(r["documents"]) == 1, r
values = [e["value"] for e in r["documents"][0]["elements"] if e["identifier"] == "family_name"]
assert values == ['"Doe"'], values
PY
then ok; else ko "damaged: the reader gets the whole credential, not the damaged one" "$tmp/damaged.reader.out"; fi
if [ "$(grep -c "not presented: credential $damaged_id cannot be read (its element list is not readable)" "$tmp/damaged.holder.err")" = 1 ] \
  && ! grep -q "Damaged-Row" "$tmp/damaged.holder.err"; then ok
else ko "damaged: the holder's log names the damaged credential once, and why" "$tmp/damaged.holder.err"; fi
# The fd path is the default: BlueZoo, like bluetoothd, takes AcquireNotify when offered.
if grep -q 'Server2Client subscribed: notifications through the AcquireNotify socket' "$tmp/big.holder.err"; then ok
else ko "big: Server2Client notifications went through the AcquireNotify socket" "$tmp/big.holder.err"; fi

# 4. mdoc central-client mode: the reader serves the mdoc service (with its Ident) on hci1, the
# holder scans for it on hci0, checks the Ident, subscribes and writes. Reader auth and
# selective disclosure as in 1.
holder_mode=central present central "$tmp/wallet.sqlite" refuse --reader-key Fixtures/pki/reader.key.pem \
  --reader-cert Fixtures/pki/reader.pem --element org.iso.18013.5.1:family_name \
  --element org.iso.18013.5.1:portrait --element org.iso.18013.5.1:document_number --verbose
if [ "$reader_exit" = 0 ]; then ok; else ko "central: the reader verifies the response (exit $reader_exit)" "$tmp/central.reader.err"; fi
if [ "$holder_exit" = 0 ]; then ok; else ko "central: present --mode central --once exits 0 (exit $holder_exit)" "$tmp/central.holder.err"; fi
if grep -q "central mode" "$tmp/central.holder.err" && grep -q "started the session" "$tmp/central.reader.err"; then ok
else ko "central: the session ran in central-client mode" "$tmp/central.holder.err"; fi
if python3 - "$tmp/central.reader.out" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
d = r["documents"][0]
ids = sorted(e["identifier"] for e in d["elements"])
assert r["valid"] and ids == ["family_name", "portrait"], ids
assert any("document_number" in n for n in d["notReturned"]), d["notReturned"]
PY
then ok; else ko "central: selective disclosure (document_number not sent)" "$tmp/central.reader.out"; fi

# 5. Central-client mode: a 100 kB portrait arrives intact (Client2Server writes, in order).
holder_mode=central present central-big "$tmp/big.sqlite" refuse --reader-key Fixtures/pki/reader.key.pem \
  --reader-cert Fixtures/pki/reader.pem --element org.iso.18013.5.1:portrait
if [ "$reader_exit" = 0 ] && [ "$holder_exit" = 0 ] && python3 - "$tmp/central-big.reader.out" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
e = r["documents"][0]["elements"][0]
assert e["identifier"] == "portrait" and e["digestMatches"] and r["valid"], e
assert "(100000 bytes)" in e["value"], e["value"]
PY
then ok; else ko "central-big: a 100 kB portrait arrives intact in central-client mode" "$tmp/central-big.reader.err"; fi

# 6. A holder offering both modes: the reader picks (auto: peripheral-server; --mode central).
holder_mode=both present both-auto "$tmp/wallet.sqlite" refuse --reader-key Fixtures/pki/reader.key.pem \
  --reader-cert Fixtures/pki/reader.pem --element org.iso.18013.5.1:family_name
if [ "$reader_exit" = 0 ] && [ "$holder_exit" = 0 ] && grep -q "peripheral mode" "$tmp/both-auto.holder.err"; then ok
else ko "both-auto: a holder offering both modes serves a reader in peripheral-server mode" "$tmp/both-auto.holder.err"; fi
holder_mode=both present both-central "$tmp/wallet.sqlite" refuse --reader-key Fixtures/pki/reader.key.pem \
  --reader-cert Fixtures/pki/reader.pem --element org.iso.18013.5.1:family_name --mode central
if [ "$reader_exit" = 0 ] && [ "$holder_exit" = 0 ] && grep -q "central mode" "$tmp/both-central.holder.err"; then ok
else ko "both-central: a holder offering both modes serves a reader in central-client mode" "$tmp/both-central.holder.err"; fi

# 7. L2CAP asked for on both sides where the kernel has no Bluetooth sockets (this tier): the
# holder says so and offers GATT only, the reader finds no PSM and uses GATT.
holder_args=--l2cap present l2cap-fallback "$tmp/wallet.sqlite" refuse --reader-key Fixtures/pki/reader.key.pem \
  --reader-cert Fixtures/pki/reader.pem --element org.iso.18013.5.1:family_name --l2cap --verbose
if [ "$reader_exit" = 0 ] && [ "$holder_exit" = 0 ] \
  && grep -q "L2CAP not offered, GATT only" "$tmp/l2cap-fallback.holder.err" \
  && grep -q "offers no L2CAP PSM; using GATT" "$tmp/l2cap-fallback.reader.err"; then ok
else ko "l2cap-fallback: --l2cap without Bluetooth sockets falls back to GATT" "$tmp/l2cap-fallback.holder.err"; fi

# 8. The same in central-client mode: the reader cannot listen, serves no PSM characteristic;
# the holder finds none and uses the reader's GATT characteristics.
holder_mode=central holder_args=--l2cap present l2cap-central-fallback "$tmp/wallet.sqlite" refuse \
  --reader-key Fixtures/pki/reader.key.pem --reader-cert Fixtures/pki/reader.pem \
  --element org.iso.18013.5.1:family_name --mode central --l2cap --verbose
if [ "$reader_exit" = 0 ] && [ "$holder_exit" = 0 ] \
  && grep -q "L2CAP not offered, GATT only" "$tmp/l2cap-central-fallback.reader.err" \
  && grep -q "subscribed and started the session" "$tmp/l2cap-central-fallback.reader.err"; then ok
else ko "l2cap-central-fallback: --l2cap in central-client mode falls back to GATT" "$tmp/l2cap-central-fallback.reader.err"; fi

# 8b. The second edition. Case 1's holder engaged with "1.1" (the default): keys 5 (no
# OriginInfos) and 6 (ReaderAuthAll and extended request support); the reader, which has a
# key, sent a "1.1" request signed with readerAuthAll alone, and the holder trusted it.
if .venv-test/bin/python3 - "$(grep -m1 '^mdoc:' "$tmp/trusted.holder.out")" <<'PY'
import base64, cbor2, sys
b = sys.argv[1][len("mdoc:"):]
e = cbor2.loads(base64.urlsafe_b64decode(b + "=" * (-len(b) % 4)))
assert e[0] == "1.1" and e[5] == [] and e[6] == {3: True, 4: True}, e
PY
then ok; else ko "engagement-1.1: present engages with 1.1, OriginInfos [] and Capabilities {3: true, 4: true}" "$tmp/trusted.holder.out"; fi
if grep -q "holder engagement 1.1, capabilities: ReaderAuthAll, extended requests" "$tmp/trusted.reader.err" \
  && grep -q "sending DeviceRequest 1.1 with readerAuthAll" "$tmp/trusted.reader.err" \
  && "$bin/mdoc-holder" history --json --store "$tmp/wallet.sqlite" | python3 -c '
import json, sys
e = json.load(sys.stdin)[0]
assert e["channel"] == "ble" and e["authentication"].startswith("trusted by"), e'
then ok; else ko "engagement-1.1: the reader sends 1.1 with readerAuthAll, the holder trusts it" "$tmp/trusted.reader.err"; fi

# present --engagement-version 1.0: a first-edition engagement (no keys 5 and 6); the reader
# then sends "1.0" with per-document readerAuth, trusted as before.
holder_args="--engagement-version 1.0" present engagement-1.0 "$tmp/wallet.sqlite" refuse \
  --reader-key Fixtures/pki/reader.key.pem --reader-cert Fixtures/pki/reader.pem --element org.iso.18013.5.1:family_name
if [ "$reader_exit" = 0 ] && [ "$holder_exit" = 0 ] && .venv-test/bin/python3 - "$(grep -m1 '^mdoc:' "$tmp/engagement-1.0.holder.out")" <<'PY'
import base64, cbor2, sys
b = sys.argv[1][len("mdoc:"):]
e = cbor2.loads(base64.urlsafe_b64decode(b + "=" * (-len(b) % 4)))
assert e[0] == "1.0" and 5 not in e and 6 not in e, e
PY
then ok; else ko "engagement-1.0: --engagement-version 1.0 engages without keys 5 and 6 (reader exit $reader_exit)" "$tmp/engagement-1.0.reader.err"; fi
if grep -q "holder engagement 1.0$" "$tmp/engagement-1.0.reader.err" \
  && grep -q "sending DeviceRequest 1.0 with readerAuth per document" "$tmp/engagement-1.0.reader.err" \
  && "$bin/mdoc-holder" history --json --store "$tmp/wallet.sqlite" | python3 -c '
import json, sys
e = json.load(sys.stdin)[-1]
assert e["authentication"].startswith("trusted by") and e["elementsSent"], e'
then ok; else ko "engagement-1.0: the reader sends a first-edition request the holder trusts" "$tmp/engagement-1.0.reader.err"; fi

# A first-edition reader against the 1.1 engagement: `--request-version 1.0` sends "1.0" with
# per-document readerAuth; the holder reads it (keys it does not need ignored) and trusts it.
present request-1.0 "$tmp/wallet.sqlite" refuse --reader-key Fixtures/pki/reader.key.pem \
  --reader-cert Fixtures/pki/reader.pem --element org.iso.18013.5.1:family_name --request-version 1.0
if [ "$reader_exit" = 0 ] && [ "$holder_exit" = 0 ] \
  && grep -q "holder engagement 1.1, capabilities: ReaderAuthAll, extended requests" "$tmp/request-1.0.reader.err" \
  && grep -q "sending DeviceRequest 1.0 with readerAuth per document" "$tmp/request-1.0.reader.err" \
  && python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); assert r["valid"] and r["documents"], r' "$tmp/request-1.0.reader.out" \
  && "$bin/mdoc-holder" history --json --store "$tmp/wallet.sqlite" | python3 -c '
import json, sys
e = json.load(sys.stdin)[-1]
assert e["authentication"].startswith("trusted by") and e["elementsSent"], e'
then ok; else ko "request-1.0: --request-version 1.0 against the 1.1 engagement, trusted, verified (exit $reader_exit)" "$tmp/request-1.0.reader.err"; fi

# uuid_of URI: the peripheral-server service UUID of an mdoc: engagement URI.
uuid_of() {
  .venv-test/bin/python3 -c '
import base64, cbor2, sys, uuid
b = sys.argv[1][len("mdoc:"):]
e = cbor2.loads(base64.urlsafe_b64decode(b + "=" * (-len(b) % 4)))
print(uuid.UUID(bytes=[m for m in e[2] if m[0] == 2][0][2][10]))' "$1"
}

# 9. A hostile reader writes State 0x01 and a request but never subscribes to Server2Client,
# so the holder's answer can never leave: the session still ends (drain timeout, 10 s), the
# link is dropped, and `present --once` exits 1 (nothing delivered).
bus="$tmp/bus-hostile"
if address=$(tier_bus_start "$bus"); then
  start=$(date +%s)
  DBUS_SYSTEM_BUS_ADDRESS="$address" timeout 60 "$bin/mdoc-holder" present --adapter hci0 --once --qr uri \
    --consent "policy:$tmp/policy.toml" --store "$tmp/wallet.sqlite" >"$tmp/hostile.holder.out" 2>"$tmp/hostile.holder.err" &
  holder_pid=$!
  uri=""
  for _ in $(seq 1 150); do uri=$(grep -m1 '^mdoc:' "$tmp/hostile.holder.out" 2>/dev/null) && [ -n "$uri" ] && break; sleep 0.1; done
  DBUS_SYSTEM_BUS_ADDRESS="$address" timeout 70 /usr/bin/python3 Tests/Support/hostile_reader.py hci1 "$(uuid_of "$uri")" \
    no-subscribe 40 >"$tmp/hostile.reader.out" 2>"$tmp/hostile.reader.err" &
  reader_pid=$!
  wait "$holder_pid"; holder_exit=$?
  holder_pid=""
  elapsed=$(($(date +%s) - start))
  wait "$reader_pid"
  if [ "$holder_exit" = 1 ] && [ "$elapsed" -le 30 ] && grep -q "did not take the holder's message" "$tmp/hostile.holder.err"
  then ok; else ko "hostile: a reader that never subscribes cannot hold present --once (exit $holder_exit after ${elapsed} s)" "$tmp/hostile.holder.err"; fi
  if grep -q '"released": true' "$tmp/hostile.reader.out"; then ok
  else ko "hostile: the holder dropped the reader's link" "$tmp/hostile.reader.out"; cat "$tmp/hostile.reader.err"; fi
  tier_bus_stop "$bus"
else ko "hostile: BlueZoo did not start"; fi

# 10. The same reader against a kiosk (`serve --kiosk`): the session ends and the kiosk arms a
# fresh engagement within the drain timeout.
bus="$tmp/bus-hostile-kiosk"
if address=$(tier_bus_start "$bus"); then
  DBUS_SYSTEM_BUS_ADDRESS="$address" "$bin/mdoc-holder" serve --kiosk --consent "policy:$tmp/policy.toml" \
    --qr "png:$tmp/kiosk.png" --store "$tmp/wallet.sqlite" 2>"$tmp/hostile-kiosk.err" &
  holder_pid=$!
  wait_file "$tmp/kiosk.png" 10
  first=$(stat -c %i "$tmp/kiosk.png" 2>/dev/null)
  uri=$(zbarimg -q --raw -Sdisable -Sqrcode.enable "$tmp/kiosk.png" 2>/dev/null)
  DBUS_SYSTEM_BUS_ADDRESS="$address" timeout 70 /usr/bin/python3 Tests/Support/hostile_reader.py hci1 "$(uuid_of "$uri")" \
    no-subscribe 40 >"$tmp/hostile-kiosk.reader.out" 2>"$tmp/hostile-kiosk.reader.err"
  rearmed=no
  for _ in $(seq 1 100); do
    [ -n "$first" ] && [ "$(stat -c %i "$tmp/kiosk.png" 2>/dev/null)" != "$first" ] && { rearmed=yes; break; }
    sleep 0.1
  done
  kill "$holder_pid" 2>/dev/null; wait "$holder_pid" 2>/dev/null
  holder_pid=""
  if [ "$rearmed" = yes ] && grep -q '"released": true' "$tmp/hostile-kiosk.reader.out" \
    && grep -q "ended (timeout)" "$tmp/hostile-kiosk.err"; then ok
  else ko "hostile-kiosk: the kiosk drops a reader that never subscribes and re-arms" "$tmp/hostile-kiosk.err"
    cat "$tmp/hostile-kiosk.reader.out" "$tmp/hostile-kiosk.reader.err"; fi
  tier_bus_stop "$bus"
else ko "hostile-kiosk: BlueZoo did not start"; fi

# hc: extended requests (this block is helper hc's; the cases above are hb's)
# 11. A second-edition request ("1.1", readerAuthAll) with a mandatory use case and an
# alternative: the credential has no age_over_16, so the holder answers with the alternative it
# holds and the policy allows (age_over_18); age_over_16 is reported as not returned.
present extended "$tmp/wallet.sqlite" refuse --reader-key Fixtures/pki/reader.key.pem \
  --reader-cert Fixtures/pki/reader.pem --request-version 1.1 \
  --element org.iso.18013.5.1:family_name --element org.iso.18013.5.1:age_over_16 \
  --alternative org.iso.18013.5.1:age_over_16=org.iso.18013.5.1:age_over_18 --use-case mandatory,org.example=1
if [ "$reader_exit" = 0 ] && [ "$holder_exit" = 0 ] && python3 - "$tmp/extended.reader.out" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
d = r["documents"][0]
ids = sorted(e["identifier"] for e in d["elements"])
assert r["valid"] and ids == ["age_over_18", "family_name"], ids
assert any("age_over_16" in n for n in d["notReturned"]), d["notReturned"]
PY
then ok; else ko "extended: the holder answers the alternative of a use-case request" "$tmp/extended.reader.out"
  cat "$tmp/extended.reader.err" "$tmp/extended.holder.err"; fi
# hc: end of extended requests

# hf: status list. The reader checks the Token Status List the mDL's MSO refers to (index 5 of a
# CWT on a loopback HTTPS server, status_list_server.py; TLS certificate made by openssl, tokens by
# `mdoc-issuer status-list` under the fixtures' IACA): valid, then revoked (exit 1), then the list
# server down (unknown, exit 0).
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 1 -subj /CN=localhost \
  -addext subjectAltName=DNS:localhost,IP:127.0.0.1 -keyout "$tmp/sl-tls.key" -out "$tmp/sl-tls.pem" 2>/dev/null
mkdir -p "$tmp/lists"
python3 Tests/Support/status_list_server.py --dir "$tmp/lists" --cert "$tmp/sl-tls.pem" --key "$tmp/sl-tls.key" \
  --ready-file "$tmp/sl-ready.json" --lifetime 600 >/dev/null 2>&1 &
sl_pid=$!
tier_track "$sl_pid"
if wait_file "$tmp/sl-ready.json" 20; then
  sl_uri="https://localhost:$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["port"])' "$tmp/sl-ready.json")/mdl.cwt"
  "$bin/mdoc-issuer" issue --claims Fixtures/mdl-claims.json --pki Fixtures/pki --out "$tmp/status-mdl.cbor" \
    --new-device-key "$tmp/status-key.pem" --status-uri "$sl_uri" --status-index 5 >/dev/null \
    && "$bin/mdoc-holder" credentials import "$tmp/status-mdl.cbor" --device-key "$tmp/status-key.pem" \
      --trust-anchor Fixtures/pki/iaca.pem --store "$tmp/status.sqlite" >/dev/null \
    || ko "status: issuing and importing an mDL with a status reference"
  sl_present() { # CASE: one session, the reader checking the status (--tls-ca: the list server's certificate)
    present "$1" "$tmp/status.sqlite" refuse --reader-key Fixtures/pki/reader.key.pem --reader-cert Fixtures/pki/reader.pem \
      --element org.iso.18013.5.1:family_name --tls-ca "$tmp/sl-tls.pem"
  }
  sl_status() { # CASE: the status the reader's JSON gives the document
    python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["documents"][0].get("status"))' \
      "$tmp/$1.reader.out" 2>/dev/null
  }
  "$bin/mdoc-issuer" status-list --uri "$sl_uri" --pki Fixtures/pki --bits 2 --set 4=1 --set 6=2 --out "$tmp/lists/mdl.cwt" >/dev/null
  sl_present status-valid
  if [ "$reader_exit" = 0 ] && [ "$(sl_status status-valid)" = valid ]; then ok
  else ko "status: a valid credential gives status valid (exit $reader_exit)" "$tmp/status-valid.reader.out"; fi
  "$bin/mdoc-issuer" status-list --uri "$sl_uri" --pki Fixtures/pki --set 5=1 --out "$tmp/lists/mdl.cwt" >/dev/null
  sl_present status-revoked
  if [ "$reader_exit" = 1 ] && [ "$(sl_status status-revoked)" = invalid ]; then ok
  else ko "status: a revoked credential gives status invalid and exit 1 (exit $reader_exit)" "$tmp/status-revoked.reader.out"; fi
  kill "$sl_pid" 2>/dev/null
  wait "$sl_pid" 2>/dev/null
  sl_present status-down
  if [ "$reader_exit" = 0 ] && [ "$(sl_status status-down)" = unknown ] \
    && grep -q "cannot connect" "$tmp/status-down.reader.out"; then ok
  else ko "status: the list server down gives status unknown and exit 0 (exit $reader_exit)" "$tmp/status-down.reader.out"; fi
else
  ko "status: the status list server did not start"
fi

tier_summary
