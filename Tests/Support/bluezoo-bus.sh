#!/usr/bin/env bash
# A private D-Bus bus with BlueZoo (the BlueZ D-Bus API mock) serving org.bluez on it, with
# two LE adapters that see each other: hci0 (00:00:00:00:AA:01) and hci1 (00:00:00:00:BB:02).
# BLUEZOO_ADAPTERS=N (default 2) adds adapters hci2... (00:00:00:00:CC:02...) up to N in all:
# more readers, each allowed one connection per mock.
#
#   Tests/Support/bluezoo-bus.sh start DIR   # prints the bus address; state and logs in DIR
#   Tests/Support/bluezoo-bus.sh restart-mock DIR  # BlueZoo stops and starts again (as
#                                                  # when bluetoothd restarts)
#   Tests/Support/bluezoo-bus.sh stop-mock DIR     # BlueZoo stops (no bluetoothd); the bus stays
#   Tests/Support/bluezoo-bus.sh stop DIR    # stops both and removes DIR
#
# Pass the printed address to the code under test (BlueZClient.connect(busAddress:)), or
# export DBUS_SYSTEM_BUS_ADDRESS for a child process. BlueZoo comes from the test venv:
# run `make test-deps` first.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
bluezoo="$root/.venv-test/bin/bluezoo"
command="${1:-}"
dir="${2:-}"
[ -n "$command" ] && [ -n "$dir" ] || { echo "usage: $0 start|restart-mock|stop-mock|stop DIR" >&2; exit 2; }

start_mock() {
    local address adapters=(-a 00:00:00:00:AA:01 -a 00:00:00:00:BB:02) count="${BLUEZOO_ADAPTERS:-2}" i
    address="$(cat "$dir/address")"
    for ((i = 2; i < count; i++)); do adapters+=(-a "$(printf '00:00:00:00:CC:%02X' "$i")"); done
    DBUS_SYSTEM_BUS_ADDRESS="$address" "$bluezoo" --auto-enable --scan-interval 1 \
        "${adapters[@]}" >>"$dir/bluezoo.log" 2>&1 </dev/null &
    echo $! >"$dir/bluezoo.pid"
    # Ready when org.bluez is owned and every adapter is exported (each adapter takes time:
    # 30 of them need about 15 s on a loaded machine).
    for _ in $(seq 1 $((200 + 20 * count))); do
        # The reply is read whole before it is searched: `grep -q` quitting at the first match
        # would kill dbus-send with SIGPIPE on a reply larger than a pipe buffer (a dozen
        # adapters), and pipefail would count that as "not there yet".
        local objects
        objects=$(dbus-send --bus="$address" --print-reply --dest=org.bluez / \
            org.freedesktop.DBus.ObjectManager.GetManagedObjects 2>/dev/null || true)
        if grep -q "\"/org/bluez/hci$((count - 1))\"" <<<"$objects"; then
            echo "$address"
            return 0
        fi
        if ! kill -0 "$(cat "$dir/bluezoo.pid")" 2>/dev/null; then
            echo "bluezoo exited; its log:" >&2
            cat "$dir/bluezoo.log" >&2
            return 1
        fi
        sleep 0.05
    done
    echo "org.bluez and its $count adapters did not appear within $((10 + count)) s; bluezoo log:" >&2
    cat "$dir/bluezoo.log" >&2
    return 1
}

stop_mock() {
    local pid
    pid="$(cat "$dir/bluezoo.pid" 2>/dev/null || true)"
    [ -n "$pid" ] || return 0
    kill "$pid" 2>/dev/null || return 0
    for _ in $(seq 1 100); do
        kill -0 "$pid" 2>/dev/null || return 0
        sleep 0.05
    done
    kill -9 "$pid" 2>/dev/null || true
}

if [ "$command" = start ] || [ "$command" = restart-mock ]; then
    if [ ! -x "$bluezoo" ]; then
        echo "BlueZoo not found at $bluezoo: run \`make test-deps\`" >&2
        exit 3
    fi
fi

case "$command" in
start)
    mkdir -p "$dir"
    dir="$(cd "$dir" && pwd)"
    cat >"$dir/bus.conf" <<EOF
<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>session</type>
  <listen>unix:path=$dir/bus</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow send_destination="*" eavesdrop="true"/>
    <allow eavesdrop="true"/>
    <allow own="*"/>
  </policy>
</busconfig>
EOF
    dbus-daemon --config-file="$dir/bus.conf" --fork --print-address=1 --print-pid=1 >"$dir/daemon.out"
    address="$(sed -n 1p "$dir/daemon.out")"
    sed -n 2p "$dir/daemon.out" >"$dir/daemon.pid"
    echo "$address" >"$dir/address"
    : >"$dir/bluezoo.log"
    start_mock
    ;;
restart-mock)
    stop_mock
    start_mock >/dev/null
    ;;
stop-mock)
    stop_mock
    ;;
stop)
    stop_mock
    if [ -s "$dir/daemon.pid" ]; then
        kill "$(cat "$dir/daemon.pid")" 2>/dev/null || true
    fi
    rm -rf "$dir"
    ;;
*)
    echo "usage: $0 start|restart-mock|stop-mock|stop DIR" >&2
    exit 2
    ;;
esac
