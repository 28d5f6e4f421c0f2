#!/usr/bin/env bash
# L2CAP in mdoc peripheral-server mode over real bluetoothd and the kernel's LE credit-based
# channels: `present --l2cap` listens on a dynamic LE PSM, puts it in the engagement (key 21)
# and the PSM characteristic; `request --l2cap` connects GATT, opens the L2CAP channel to that
# PSM and exchanges 4-byte length-framed messages there: a 100 kB portrait (one frame over
# 64 KiB) intact, reader auth, selective disclosure, present --once exits 0.
# vm-timeout: 180
. "$(dirname "$0")/lib.sh"

store=$(fresh_store big-100000)
start_holder holder "$store" --once --l2cap
uri=$(holder_uri holder)
say "holder shows $uri"
grep -q 'L2CAP not offered' "$T/holder.err" && fail "the holder offers L2CAP in the VM" "$T/holder.err"
wait_line "$T/holder.err" 'L2CAP PSM [0-9]+' 10 >/dev/null || fail "the holder announces its PSM" "$T/holder.err"
psm=$(grep -Eo 'L2CAP PSM [0-9]+' "$T/holder.err" | head -n 1 | grep -Eo '[0-9]+$')
[ "$psm" -ge 128 ] && [ "$psm" -le 255 ] || fail "the PSM $psm is in the LE dynamic range" "$T/holder.err"
ok "the holder listens on LE PSM $psm (engagement key 21)"
run_reader reader "$uri" --l2cap "${TRUSTED_READER[@]}" --element org.iso.18013.5.1:family_name \
  --element org.iso.18013.5.1:portrait --element org.iso.18013.5.1:document_number
[ "$READER_EXIT" = 0 ] || fail "the reader verifies the response (exit $READER_EXIT)" "$T/reader.err" "$T/holder.err"
grep -q "L2CAP channel open to PSM $psm" "$T/reader.err" || fail "the reader used the L2CAP channel" "$T/reader.err"
ok "the reader opened the L2CAP channel and verified the response"
grep -q "L2CAP channel open to PSM $psm (send MTU 4096)" "$T/reader.err" ||
  fail "the holder's receive MTU is the 4096 it asks for (BT_RCVMTU set after bind; 672 when refused)" "$T/reader.err"
ok "the channel runs at the holder's receive MTU of 4096"
wait_exit "$HOLDER_PID" 30
[ "$EXIT_STATUS" = 0 ] || fail "present --l2cap --once exits 0 (exit $EXIT_STATUS)" "$T/holder.err"
grep -q 'over peripheral mode (L2CAP)' "$T/holder.err" || fail "the holder served the session over L2CAP" "$T/holder.err"
ok "present --l2cap --once exited 0 after a session over L2CAP"

check_json "$T/reader.out" '
d = r["documents"][0]
ids = sorted(e["identifier"] for e in d["elements"])
assert r["valid"] and ids == ["family_name", "portrait"], ids
assert any("document_number" in n for n in d["notReturned"]), d["notReturned"]
p = [e for e in d["elements"] if e["identifier"] == "portrait"][0]
assert p["digestMatches"] and "(100000 bytes)" in p["value"], p["value"]' ||
  fail "selective disclosure and the 100 kB portrait" "$T/reader.out"
ok "selective disclosure over L2CAP; the 100 kB portrait (one frame over 64 KiB) arrived intact"
echo "info: L2CAP reader run ${READER_SECONDS} s; $(grep -Eo 'send MTU [0-9]+' "$T/reader.err" | head -n 1 || true)"
