#!/usr/bin/env bash
# L2CAP in mdoc central-client mode over real bluetoothd and the kernel's LE credit-based
# channels: `request --mode central --l2cap` serves the mdoc service with its Ident and an
# L2CAP PSM characteristic (a dynamic LE PSM it listens on); `present --mode central --l2cap`
# finds it, checks the Ident, reads the PSM and opens the channel instead of subscribing:
# 4-byte length-framed messages, a 100 kB portrait intact, reader auth, present --once exits 0.
# vm-timeout: 180
. "$(dirname "$0")/lib.sh"

store=$(fresh_store big-100000)
start_holder holder "$store" --once --mode central --l2cap
uri=$(holder_uri holder)
say "holder shows $uri"
wait_line "$T/holder.err" 'scanning for a reader' 10 >/dev/null || fail "the holder scans for the reader" "$T/holder.err"
sleep 0.5
run_reader reader "$uri" --mode central --l2cap "${TRUSTED_READER[@]}" --element org.iso.18013.5.1:family_name \
  --element org.iso.18013.5.1:portrait --element org.iso.18013.5.1:document_number
[ "$READER_EXIT" = 0 ] || fail "the reader verifies the response (exit $READER_EXIT)" "$T/reader.err" "$T/holder.err"
psm=$(grep -Eo 'serving L2CAP PSM [0-9]+' "$T/reader.err" | grep -Eo '[0-9]+$' || true)
[ -n "$psm" ] && [ "$psm" -ge 128 ] && [ "$psm" -le 255 ] || fail "the reader serves a dynamic LE PSM" "$T/reader.err"
grep -q 'opened our L2CAP channel' "$T/reader.err" || fail "the holder opened the reader's L2CAP channel" "$T/reader.err"
ok "the reader served PSM $psm; the holder opened the channel; the response verified"
wait_exit "$HOLDER_PID" 30
[ "$EXIT_STATUS" = 0 ] || fail "present --mode central --l2cap --once exits 0 (exit $EXIT_STATUS)" "$T/holder.err"
grep -q 'over central mode (L2CAP)' "$T/holder.err" || fail "the holder served the session over L2CAP" "$T/holder.err"
ok "present --mode central --l2cap --once exited 0 after a session over the reader's L2CAP channel"

check_json "$T/reader.out" '
d = r["documents"][0]
ids = sorted(e["identifier"] for e in d["elements"])
assert r["valid"] and ids == ["family_name", "portrait"], ids
assert any("document_number" in n for n in d["notReturned"]), d["notReturned"]
p = [e for e in d["elements"] if e["identifier"] == "portrait"][0]
assert p["digestMatches"] and "(100000 bytes)" in p["value"], p["value"]' ||
  fail "selective disclosure and the 100 kB portrait" "$T/reader.out"
ok "selective disclosure over the reader's L2CAP channel; the 100 kB portrait arrived intact"
echo "info: central L2CAP reader run ${READER_SECONDS} s"
