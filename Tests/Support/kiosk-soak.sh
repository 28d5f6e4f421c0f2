#!/usr/bin/env bash
# Kiosk soak: ONE `mdoc-holder serve --kiosk` on a private bus with BlueZoo serves
# SESSIONS (default 200) back-to-back presentations to the real `mdoc-reader request`, each
# from the QR code the kiosk wrote (decoded with zbarimg, QR only: with every symbology on it
# reads a spurious linear code in about 1 in 1500 QR images) after the previous session. BlueZoo
# allows one connection per reader adapter per mock: the mock has READERS reader adapters
# (hci1..), used in turn, and restarts after each round (as a bluetoothd restart would), so
# the kiosk re-arms both after a session and after BlueZ comes back. Open fds and RSS of the
# service are printed after a warm-up round and at the end; the run fails if fds grow at all
# or RSS grows by more than RSS_BOUND_KB (default 2048; measured: +0.5 MB over 200 sessions, a
# plateau near +0.8 MB from 300 to 1000 sessions). The QR code is also drawn on a
# pseudo-terminal (--qr-tty), once per engagement.
# Usage: Tests/Support/kiosk-soak.sh [BIN_DIR] [SESSIONS]
set -uo pipefail
cd "$(dirname "$0")/../.."
bin=${1:-.build/debug}
sessions=${2:-200}
readers=10
warmup=$readers
rss_bound_kb=${RSS_BOUND_KB:-2048}
. Tests/Support/lib/tier.sh
tier_begin "kiosk soak"
tier_tail=20
bus="$tmp/bus"
serve_pid="" tty_pid=""
tier_track_variables serve_pid tty_pid

import_test_mdl "$tmp/wallet.sqlite" || die "import"
cat >"$tmp/kiosk.toml" <<'TOML'
[[rule]]
reader = "trusted"
doctype = "org.iso.18013.5.1.mDL"
allow = ["org.iso.18013.5.1:age_over_18"]
TOML
export BLUEZOO_ADAPTERS=$((readers + 1))
address=$(tier_bus_start "$bus") || die "BlueZoo did not start"
export DBUS_SYSTEM_BUS_ADDRESS="$address"
qr="$tmp/qr.png"
# A pseudo-terminal for --qr-tty: its name in tty.name, everything drawn on it in tty.out.
python3 -c '
import os, pty, sys
master, slave = pty.openpty()
print(os.ttyname(slave), flush=True)
with open(sys.argv[1], "wb") as out:
    while True:
        data = os.read(master, 65536)
        if not data:
            break
        out.write(data)
        out.flush()
' "$tmp/tty.out" >"$tmp/tty.name" &
tty_pid=$!
wait_file "$tmp/tty.name" 5
"$bin/mdoc-holder" serve --kiosk --consent "policy:$tmp/kiosk.toml" --reader-trust Fixtures/pki/reader-ca.pem \
  --untrusted-readers refuse --qr "png:$qr" --qr-tty "$(cat "$tmp/tty.name")" --store "$tmp/wallet.sqlite" \
  2>"$tmp/serve.err" &
serve_pid=$!

inode() { stat -c %i "$qr" 2>/dev/null || echo none; }
# wait_new INODE: until the QR file is replaced (the kiosk armed a fresh engagement).
wait_new() {
  for _ in $(seq 1 300); do [ "$(inode)" != "$1" ] && return 0; sleep 0.02; done
  return 1
}
fds() { ls "/proc/$serve_pid/fd" | wc -l; }
rss() { awk '/^VmRSS/ {print $2}' "/proc/$serve_pid/status"; }

wait_new none || die "no QR code within 6 s" "$tmp/serve.err"
echo "kiosk soak: at start (armed, no session yet): $(fds) fds, RSS $(rss) kB"
start=$(date +%s.%N)
for i in $(seq 1 "$sessions"); do
  current=$(inode)
  uri=$(zbarimg -q --raw -Sdisable -Sqrcode.enable "$qr") || die "session $i: the QR code does not decode"
  timeout 60 "$bin/mdoc-reader" request "$uri" --adapter "hci$(((i - 1) % readers + 1))" --trust-anchor Fixtures/pki/iaca.pem --json \
    --reader-key Fixtures/pki/reader.key.pem --reader-cert Fixtures/pki/reader.pem \
    --element org.iso.18013.5.1:age_over_18 >"$tmp/reader.out" 2>"$tmp/reader.err" \
    || die "session $i: the reader did not get a verified response" "$tmp/reader.err"
  # The kiosk arms the next engagement; after a round of readers BlueZoo restarts and it arms again.
  wait_new "$current" || die "session $i: no fresh engagement after the session" "$tmp/serve.err"
  if [ $((i % readers)) = 0 ]; then
    armed=$(inode)
    Tests/Support/bluezoo-bus.sh restart-mock "$bus" >/dev/null || die "session $i: BlueZoo did not restart"
    wait_new "$armed" || die "session $i: the kiosk did not re-arm after BlueZoo restarted" "$tmp/serve.err"
  fi
  if [ "$i" = "$warmup" ]; then fds_start=$(fds); rss_start=$(rss); fi
  if [ $((i % 50)) = 0 ]; then echo "kiosk soak: after $i sessions: $(fds) fds, RSS $(rss) kB"; fi
done
end=$(date +%s.%N)
fds_end=$(fds); rss_end=$(rss)
kill -0 "$serve_pid" 2>/dev/null || die "the service died" "$tmp/serve.err"
restarts=$(grep -c 'bluetoothd left the bus:' "$tmp/serve.err")
sent=$("$bin/mdoc-holder" history --json --store "$tmp/wallet.sqlite" | python3 -c '
import json, sys; print(sum(1 for e in json.load(sys.stdin) if e["decision"] == "sent"))')
awk -v s="$start" -v e="$end" -v n="$sessions" -v sent="$sent" \
  'BEGIN { printf "kiosk soak: %d sessions in %.1f s wall time (%.2f s each), %d sent in the history\n", n, e - s, (e - s) / n, sent }'
echo "kiosk soak: after $warmup sessions: $fds_start fds, RSS $rss_start kB; after $sessions: $fds_end fds, RSS $rss_end kB"
echo "kiosk soak: bounds: fds +0, RSS +$rss_bound_kb kB; BlueZoo restarts seen by the kiosk: $restarts"
[ "$sent" = "$sessions" ] || die "$sent of $sessions presentations in the history"
drawn=$(grep -c $'\e\[2J' "$tmp/tty.out")
echo "kiosk soak: QR codes drawn on $(cat "$tmp/tty.name"): $drawn"
[ "$drawn" -gt "$sessions" ] || die "$drawn QR codes drawn on the terminal for $sessions sessions" "$tmp/serve.err"
# Explicit colours on a terminal (white on black, reset after each line), so the code scans
# on light and dark terminal themes alike.
grep -q $'\e\[97;40m' "$tmp/tty.out" || die "the QR code on the terminal has no explicit colours"
[ "$fds_end" -le "$fds_start" ] || die "open fds grew from $fds_start to $fds_end"
[ $((rss_end - rss_start)) -le "$rss_bound_kb" ] || die "RSS grew by $((rss_end - rss_start)) kB"
ok
tier_summary
