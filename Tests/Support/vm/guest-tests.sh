#!/usr/bin/env bash
# Inside the BlueZ VM (run by ble-vm-test.sh through run-in-vm.sh): runs the given VM cases
# (default: every Tests/Support/vm/case-*.sh, sorted), each with a fresh directory and a
# bounded time, and prints one result per case and `vm: N passed, M failed`.
#   guest-tests.sh BIN_DIR DATA_DIR [CASE...]
# A case's `# vm-timeout: SECONDS` line sets its limit (default 180). Between cases
# bluetoothd is checked (and restarted when a case left it down).
set -euo pipefail
[ "${BLUEZ_VM:-}" = 1 ] || { echo "guest-tests.sh runs inside the BlueZ VM (ble-vm-test.sh)" >&2; exit 2; }
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../../.." && pwd)"
bin=$(realpath "$1")
data=$(realpath "$2")
shift 2
cases=("$@")
[ "${#cases[@]}" -gt 0 ] || mapfile -t cases < <(ls "$here"/case-*.sh | sort)
# shellcheck source=bluez.sh
. "$here/bluez.sh"
work=$(mktemp -d /tmp/vm-cases.XXXXXX)
passed=0 failed=0
uptime_s() { awk '{print $1}' /proc/uptime; }
t0=$(uptime_s)
echo "vm: bluetoothd $("$BTD" --version), kernel $(uname -r), $(nproc) vCPUs, main.conf: $(grep -E '^[^#]*Channels' /etc/bluetooth/main.conf 2>/dev/null | tr -d ' ' || echo default)"

run_case() {
  local path=$1 name timeout dir log pid start status
  name=$(basename "$path" .sh)
  timeout=$(sed -n 's/^# vm-timeout: *\([0-9]*\).*/\1/p' "$path" | head -n 1)
  timeout=${timeout:-180}
  dir="$work/$name"
  mkdir -p "$dir"
  log="$dir/case.log"
  start=$(uptime_s)
  # Its own process group, so everything it started can be stopped with it.
  BIN="$bin" FIXTURES="$repo/Fixtures" DATA="$data" CASE_TMP="$dir" REPO="$repo" \
    setsid bash "$path" >"$log" 2>&1 </dev/null &
  pid=$!
  local deadline=$((SECONDS + timeout)) timed_out=0
  while kill -0 "$pid" 2>/dev/null; do
    if [ "$SECONDS" -ge "$deadline" ]; then
      timed_out=1
      {
        echo "FAIL: timed out after ${timeout} s"
        # What each process of the case said last (the case's own fail() never ran).
        for f in "$dir"/*.err; do
          [ -f "$f" ] || continue
          echo "--- $(basename "$f") (last 20 lines)"
          tail -n 20 "$f" | sed 's/^/  /'
        done
      } >>"$log"
      break
    fi
    sleep 0.2
  done
  kill -TERM -- "-$pid" 2>/dev/null || true
  sleep 0.3
  kill -KILL -- "-$pid" 2>/dev/null || true
  status=0
  wait "$pid" 2>/dev/null || status=$?
  [ "$timed_out" = 0 ] || status=124
  local took
  took=$(awk -v a="$start" -v b="$(uptime_s)" 'BEGIN {printf "%.1f", b - a}')
  if [ "$status" = 0 ]; then
    passed=$((passed + 1))
    echo "PASS $name (${took} s)"
    grep -E '^(ok|info):' "$log" | sed 's/^/  /' || true
  else
    failed=$((failed + 1))
    echo "FAIL $name (${took} s, exit $status)"
    sed 's/^/  | /' "$log" | tail -n 80
    echo "  | --- bluetoothd.log (last 15 lines)"
    tail -n 15 /tmp/bluetoothd.log 2>/dev/null | sed 's/^/  | /' || true
  fi
  # The next case starts without links or devices left by this one, with bluetoothd up and
  # both adapters powered.
  forget_devices
  if ! pidof bluetoothd >/dev/null || ! adapters_powered 2; then
    echo "  (bluetoothd or an adapter is down after $name: restarting bluetoothd)"
    { stop_bluetoothd && start_bluetoothd; } || echo "  (bluetoothd did not come back)"
  fi
}

for c in "${cases[@]}"; do run_case "$c"; done
echo "vm: $passed passed, $failed failed ($(awk -v a="$t0" -v b="$(uptime_s)" 'BEGIN {printf "%.1f", b - a}') s in the guest)"
rm -rf "$work"
[ "$failed" -eq 0 ]
