#!/usr/bin/env bash
# mdoc central-client mode over real bluetoothd: the reader (--mode central) serves the mdoc
# service with its Ident on hci1 and advertises it; `present --mode central` scans on hci0,
# reads and checks the Ident, subscribes, writes State 0x01 and sends its response as
# Client2Server writes without response. Reader auth, selective disclosure (document_number
# is not sent), a 100 kB portrait intact, present --once exits 0, one history entry.
#
# --max-chunk-size 377: btvirt (not real controllers) loses every ATT packet the central on
# hci0 sends that needs three or more of its 192-byte ACL fragments. Measured in this VM with
# 100 kB responses: chunks of 377 bytes (ATT PDU 380 + L2CAP header = 2 fragments) all
# arrive; 378 bytes and up (3 fragments) none does, silently (write without response). The
# reader's notifications to the holder (peripheral -> central) are not affected.
# vm-timeout: 180
. "$(dirname "$0")/lib.sh"

store=$(fresh_store big-100000)
start_holder holder "$store" --once --mode central --max-chunk-size 377
uri=$(holder_uri holder)
say "holder shows $uri"
# The holder scans from now on; the reader's advertisement comes after (pitfall 7 of the VM
# runner: btvirt reports an advertisement once), and the reader re-advertises every 3 s.
wait_line "$T/holder.err" 'scanning for a reader' 10 >/dev/null || fail "the holder scans for the reader" "$T/holder.err"
sleep 0.5
run_reader reader "$uri" --mode central "${TRUSTED_READER[@]}" --element org.iso.18013.5.1:family_name \
  --element org.iso.18013.5.1:portrait --element org.iso.18013.5.1:document_number
[ "$READER_EXIT" = 0 ] || fail "the reader verifies the response (exit $READER_EXIT)" "$T/reader.err" "$T/holder.err"
ok "central-client mode: the reader verified the response (reader auth, issuer and device signatures)"
grep -q 'subscribed and started the session' "$T/reader.err" || fail "the holder started the session on the reader's service" "$T/reader.err"
wait_exit "$HOLDER_PID" 30
[ "$EXIT_STATUS" = 0 ] || fail "present --mode central --once exits 0 (exit $EXIT_STATUS)" "$T/holder.err"
grep -q 'over central mode' "$T/holder.err" || fail "the holder reports central-client mode" "$T/holder.err"
ok "present --mode central --once exited 0 after a session in central-client mode"

check_json "$T/reader.out" '
d = r["documents"][0]
ids = sorted(e["identifier"] for e in d["elements"])
assert r["valid"] and ids == ["family_name", "portrait"], ids
assert any("document_number" in n for n in d["notReturned"]), d["notReturned"]
p = [e for e in d["elements"] if e["identifier"] == "portrait"][0]
assert p["digestMatches"] and "(100000 bytes)" in p["value"], p["value"]' ||
  fail "selective disclosure and the 100 kB portrait" "$T/reader.out"
ok "selective disclosure: family_name and portrait sent, document_number not"
ok "the 100 kB portrait arrived intact over Client2Server writes (digest matches)"

history_json "$store" >"$T/history.json"
check_json "$T/history.json" '
assert len(r) == 1 and r[0]["decision"] == "sent" and r[0]["channel"] == "ble", r' ||
  fail "one history entry" "$T/history.json"
ok "one history entry (ble, sent)"
grep -q 'Server2Client subscribed: notifications through the AcquireNotify socket' "$T/reader.err" ||
  fail "the reader's Server2Client notifications went through the AcquireNotify socket (the default)" "$T/reader.err"
ok "the reader (GATT server in central-client mode) notified through bluetoothd's AcquireNotify socket"
echo "info: central-client reader run ${READER_SECONDS} s; $(grep -Eo 'ATT MTU [0-9]+( \(assumed\))?' "$T/reader.err" | head -n 1 || echo 'no MTU reported')"
