# shellcheck shell=bash
# bluetoothd inside the VM: sourced by lib.sh and guest-tests.sh.
# BlueZ inside the VM (stage2.sh started bluetoothd with these arguments).
BTD=/usr/libexec/bluetooth/bluetoothd
btd_args() { echo "${BVM_BTD_ARGS:--E}"; }

# adapters_powered N: true when bluetoothd exports N powered adapters.
adapters_powered() {
  local n=0 a
  for a in $(busctl --system --list tree org.bluez 2>/dev/null | grep -E '^/org/bluez/hci[0-9]+$'); do
    [ "$(busctl --system get-property org.bluez "$a" org.bluez.Adapter1 Powered 2>/dev/null)" = "b true" ] && n=$((n + 1))
  done
  [ "$n" -ge "$1" ]
}

# stop_bluetoothd: stops bluetoothd and waits (10 s) until it is gone.
stop_bluetoothd() {
  local pid
  pid=$(pidof bluetoothd || true)
  [ -n "$pid" ] || return 0
  kill $pid
  for _ in $(seq 1 100); do pidof bluetoothd >/dev/null || return 0; sleep 0.1; done
  kill -9 $pid 2>/dev/null || true
}

# start_bluetoothd: starts bluetoothd (outside this case's process group, so it outlives the
# case) and waits (30 s) until both adapters are powered.
start_bluetoothd() {
  # shellcheck disable=SC2046
  setsid -f "$BTD" -n $(btd_args) >>/tmp/bluetoothd.log 2>&1 </dev/null
  for _ in $(seq 1 300); do adapters_powered 2 && return 0; sleep 0.1; done
  return 1
}

# forget_devices: every adapter forgets every device it knows (RemoveDevice also
# disconnects), so a case starts without links or cached GATT services left by the last one.
forget_devices() {
  local dev adapter
  for dev in $(busctl --system --list tree org.bluez 2>/dev/null | grep -E '^/org/bluez/hci[0-9]+/dev_[0-9A-F_]+$'); do
    adapter=${dev%/dev_*}
    busctl --system call org.bluez "$adapter" org.bluez.Adapter1 RemoveDevice o "$dev" >/dev/null 2>&1 || true
  done
}

# links: the devices each adapter is connected to, for diagnostics.
links() {
  local dev
  for dev in $(busctl --system --list tree org.bluez 2>/dev/null | grep -E '^/org/bluez/hci[0-9]+/dev_[0-9A-F_]+$'); do
    echo "$dev Connected=$(busctl --system get-property org.bluez "$dev" org.bluez.Device1 Connected 2>/dev/null)"
  done
}
