#!/usr/bin/env bash
# Peripheral-server mode over real bluetoothd: a trusted reader with reader authentication
# (over the default engagement, "1.1": a DeviceRequest "1.1" with readerAuthAll)
# gets exactly what the policy allows (document_number is not sent), a 100 kB portrait
# arrives intact and verified, the holder (--once) exits 0 and records one history entry.
# vm-timeout: 180
. "$(dirname "$0")/lib.sh"

store=$(fresh_store big-100000)
start_holder holder "$store" --once
uri=$(holder_uri holder)
say "holder shows $uri"
run_reader reader "$uri" "${TRUSTED_READER[@]}" --element org.iso.18013.5.1:family_name \
  --element org.iso.18013.5.1:portrait --element org.iso.18013.5.1:document_number
[ "$READER_EXIT" = 0 ] || fail "the reader verifies the response (exit $READER_EXIT)" "$T/reader.err" "$T/holder.err"
ok "the reader verified the response (reader auth, issuer and device signatures)"
grep -q "holder engagement 1.1, capabilities: ReaderAuthAll, extended requests" "$T/reader.err" &&
  grep -q "sending DeviceRequest 1.1 with readerAuthAll" "$T/reader.err" ||
  fail "the default engagement is 1.1 with capabilities and the reader signs with readerAuthAll" "$T/reader.err"
ok "engagement 1.1 (ReaderAuthAll, extended requests): the reader sent DeviceRequest 1.1 with readerAuthAll"
wait_exit "$HOLDER_PID" 30
holder_exit=$EXIT_STATUS
[ "$holder_exit" = 0 ] || fail "present --once exits 0 (exit $holder_exit)" "$T/holder.err"
ok "present --once exited 0"

check_json "$T/reader.out" '
d = r["documents"][0]
ids = sorted(e["identifier"] for e in d["elements"])
assert r["valid"] and ids == ["family_name", "portrait"], ids
assert any("document_number" in n for n in d["notReturned"]), d["notReturned"]
p = [e for e in d["elements"] if e["identifier"] == "portrait"][0]
assert p["digestMatches"] and "(100000 bytes)" in p["value"], p["value"]' ||
  fail "selective disclosure and the 100 kB portrait" "$T/reader.out"
ok "selective disclosure: family_name and portrait sent, document_number not"
ok "the 100 kB portrait arrived intact (digest matches)"

history_json "$store" >"$T/history.json"
check_json "$T/history.json" '
assert len(r) == 1 and r[0]["decision"] == "sent" and r[0]["channel"] == "ble", r' ||
  fail "one history entry" "$T/history.json"
ok "one history entry (ble, sent)"
grep -q 'Server2Client subscribed: notifications through the AcquireNotify socket' "$T/holder.err" ||
  fail "the holder's Server2Client notifications went through the AcquireNotify socket (the default)" "$T/holder.err"
ok "the holder notified through bluetoothd's AcquireNotify socket"
grep -q 'Client2Server writes through the AcquireWrite socket' "$T/reader.err" ||
  fail "the reader's request went through bluetoothd's AcquireWrite socket (the default)" "$T/reader.err"
ok "the reader wrote its request through bluetoothd's AcquireWrite socket"
echo "info: reader run ${READER_SECONDS} s; $(grep -Eo 'ATT MTU [0-9]+( \(assumed\))?' "$T/reader.err" | head -n 1 || echo 'no MTU reported')"
