#!/usr/bin/env bash
# Serve soak: ONE `mdoc-holder serve` on a private bus with BlueZoo runs SESSIONS (default
# 4000) back-to-back StartProximity/Cancel sessions from a D-Bus client
# (Tests/Support/serve_soak.py), which samples the service's RSS every 50 sessions, fits a
# least-squares slope over the last half, prints it and fails above BOUND bytes per session
# (default 256; the leak this guards against was about 4,200); above it, as many sessions again
# decide (a leak grows in every window, a one-off RSS step does not). Open fds must not grow either.
# Usage: Tests/Support/serve-soak.sh [BIN_DIR] [SESSIONS]
set -uo pipefail
cd "$(dirname "$0")/../.."
bin=${1:-.build/debug}
sessions=${2:-4000}
bound=${SOAK_BOUND_BYTES:-256}
. Tests/Support/lib/tier.sh
tier_begin "serve soak"
tier_tail=20
bus="$tmp/bus"
serve_pid=""
tier_track_variables serve_pid

import_test_mdl "$tmp/wallet.sqlite" || die "import"
address=$(tier_bus_start "$bus") || die "BlueZoo did not start"
export DBUS_SYSTEM_BUS_ADDRESS="$address"
"$bin/mdoc-holder" serve --consent agent --store "$tmp/wallet.sqlite" 2>"$tmp/serve.err" &
serve_pid=$!
owned() {
  dbus-send --bus="$address" --print-reply --dest=org.freedesktop.DBus /org/freedesktop/DBus \
    org.freedesktop.DBus.NameHasOwner string:org.mdocholder 2>/dev/null | grep -q 'boolean true'
}
for _ in $(seq 1 100); do owned && break; sleep 0.1; done
owned || die "serve did not take org.mdocholder" "$tmp/serve.err"
fds() { ls "/proc/$serve_pid/fd" | wc -l; }

# Warm-up: the first sessions allocate what stays (the adapter's links, caches).
/usr/bin/python3 Tests/Support/serve_soak.py "$serve_pid" 100 1000000000 >/dev/null || die "warm-up" "$tmp/serve.err"
fds_start=$(fds)
/usr/bin/python3 Tests/Support/serve_soak.py "$serve_pid" "$sessions" "$bound" || die "RSS grows per session" "$tmp/serve.err"
fds_end=$(fds)
kill -0 "$serve_pid" 2>/dev/null || die "the service died" "$tmp/serve.err"
echo "serve soak: open fds $fds_start after warm-up, $fds_end at the end"
[ "$fds_end" -le "$fds_start" ] || die "open fds grew from $fds_start to $fds_end"
ok
tier_summary
