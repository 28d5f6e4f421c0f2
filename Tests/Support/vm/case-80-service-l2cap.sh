#!/usr/bin/env bash
# `mdoc-holder serve --l2cap` over real bluetoothd and the kernel's LE credit-based channels:
# a StartProximity session is built from the same options as `present --l2cap` (Proximity's
# ProximityOptions), so it listens on a dynamic LE PSM and puts it in the engagement; the
# reader (`request --l2cap`) gets a verified response over the channel. Then `busctl tree`
# finds the service's objects (Introspect on / and /org lists their children). The D-Bus
# policy from dbus/ is installed in the guest's RAM root with root as the service user.
# vm-timeout: 300
# (Measured under TCG on the loaded 2-core CI machine: 74-144 s; 180 s was once exceeded there
# with no failing check before it.)
. "$(dirname "$0")/lib.sh"

sed -e 's|@SERVICE_USER@|root|g' -e 's|@HOLDER_GROUP@|root|g' "$REPO/dbus/org.mdocholder.conf" \
  >/etc/dbus-1/system.d/org.mdocholder.conf
busctl call org.freedesktop.DBus /org/freedesktop/DBus org.freedesktop.DBus ReloadConfig >/dev/null ||
  fail "the system bus reloads its policy"

store=$(fresh_store big-100000)
"$BIN/mdoc-holder" serve --adapter hci0 --l2cap --consent "policy:$DATA/policy.toml" \
  --reader-trust "$FIXTURES/pki/reader-ca.pem" --untrusted-readers refuse --store "$store" \
  >"$T/serve.out" 2>"$T/serve.err" &
SERVE_PID=$!
track "$SERVE_PID"
for _ in $(seq 1 100); do
  busctl status org.mdocholder >/dev/null 2>&1 && break
  sleep 0.1
done
reply=$(busctl call org.mdocholder /org/mdocholder org.mdocholder.Holder1 StartProximity 'a{sv}' 0) ||
  fail "StartProximity answers" "$T/serve.err"
uri=$(sed -n 's/^ts [0-9]* "\(mdoc:[^"]*\)"$/\1/p' <<<"$reply")
[ -n "$uri" ] || fail "StartProximity returns the engagement URI (reply: $reply)" "$T/serve.err"
grep -q 'L2CAP not offered' "$T/serve.err" && fail "the service offers L2CAP in the VM" "$T/serve.err"
say "service session shows $uri"

run_reader reader "$uri" --l2cap "${TRUSTED_READER[@]}" --element org.iso.18013.5.1:family_name \
  --element org.iso.18013.5.1:portrait
[ "$READER_EXIT" = 0 ] || fail "the reader verifies the service's response (exit $READER_EXIT)" "$T/reader.err" "$T/serve.err"
psm=$(grep -Eo 'L2CAP channel open to PSM [0-9]+' "$T/reader.err" | grep -Eo '[0-9]+$' || true)
[ -n "$psm" ] && [ "$psm" -ge 128 ] && [ "$psm" -le 255 ] ||
  fail "the reader used the service's L2CAP channel on a dynamic LE PSM" "$T/reader.err"
ok "serve --l2cap: the StartProximity session offered LE PSM $psm and answered over L2CAP"
echo "info: reader run ${READER_SECONDS} s"
wait_line "$T/serve.err" 'ended \(' 30 >/dev/null || fail "the service ends the session" "$T/serve.err"
echo "info: $(grep -E 'session [0-9]+: ended' "$T/serve.err" | tail -n 1)"

say "session ended"
tree=$(busctl tree --list org.mdocholder 2>&1)
grep -qx '/org/mdocholder' <<<"$tree" || fail "busctl tree finds /org/mdocholder (got: $tree)" "$T/serve.err"
ok "busctl tree org.mdocholder lists / , /org and /org/mdocholder"
kill "$SERVE_PID"
say "SIGTERM sent"
wait_exit "$SERVE_PID" 30
say "serve exited"
[ "$EXIT_STATUS" = 0 ] || fail "serve stops on SIGTERM with status 0 (exit $EXIT_STATUS)" "$T/serve.err"
