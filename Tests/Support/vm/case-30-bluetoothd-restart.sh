#!/usr/bin/env bash
# bluetoothd restarts while the holder waits for a reader: the holder registers its GATT
# application and advertisement again by itself, and a reader then gets a verified response
# with the engagement shown (the same one, or a fresh one the holder printed).
# vm-timeout: 180
. "$(dirname "$0")/lib.sh"

store=$(fresh_store wallet)
start_holder holder "$store" --once
uri1=$(holder_uri holder)
wait_line "$T/holder.err" 'waiting for a reader' 30 >/dev/null || fail "the holder waits for a reader" "$T/holder.err"
sleep 1
say "restarting bluetoothd"
stop_bluetoothd
kill -0 "$HOLDER_PID" 2>/dev/null || fail "the holder survives bluetoothd stopping" "$T/holder.err"
sleep 1
restart_at=$SECONDS
start_bluetoothd || fail "bluetoothd comes back with both adapters powered" /tmp/bluetoothd.log
ok "bluetoothd restarted (adapters powered again in $((SECONDS - restart_at)) s)"
kill -0 "$HOLDER_PID" 2>/dev/null || fail "the holder survives bluetoothd restarting" "$T/holder.err"
# The holder registers again by itself: its application shows up at bluetoothd's side as
# soon as it is registered (no reader needed to see it); give it 20 s.
registered=0
for _ in $(seq 1 200); do
  if busctl --system call org.bluez /org/bluez/hci0 org.freedesktop.DBus.Properties Get ss \
    org.bluez.LEAdvertisingManager1 ActiveInstances 2>/dev/null | grep -qv 'y 0'; then
    registered=1
    break
  fi
  sleep 0.1
done
[ "$registered" = 1 ] || fail "the holder registers its advertisement again" "$T/holder.err"
ok "the holder registered its advertisement again $((SECONDS - restart_at)) s after bluetoothd came back"
uri=$(grep '^mdoc:' "$T/holder.out" | tail -n 1)
[ "$uri" = "$uri1" ] && echo "info: the same engagement stays valid" || echo "info: the holder showed a fresh engagement"
run_reader reader "$uri" "${TRUSTED_READER[@]}" --element org.iso.18013.5.1:family_name \
  --element org.iso.18013.5.1:age_over_18
[ "$READER_EXIT" = 0 ] || { links; fail "a reader gets a verified response after the restart (exit $READER_EXIT)" \
  "$T/reader.err" "$T/holder.err"; }
check_json "$T/reader.out" '
ids = sorted(e["identifier"] for e in r["documents"][0]["elements"])
assert r["valid"] and ids == ["age_over_18", "family_name"], ids' || fail "the response" "$T/reader.out"
ok "a reader got a verified response after the restart"
wait_exit "$HOLDER_PID" 30
holder_exit=$EXIT_STATUS
[ "$holder_exit" = 0 ] || fail "present --once exits 0 (exit $holder_exit)" "$T/holder.err"
ok "present --once exited 0"
