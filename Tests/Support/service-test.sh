#!/usr/bin/env bash
# The service tier: the real `mdoc-holder serve` on a private bus with BlueZoo (hci0 holder,
# hci1 reader), a D-Bus client (Tests/Support/service_client.py) starting presentations and
# acting as the consent agent, and the real `mdoc-reader request` completing them.
# Usage: Tests/Support/service-test.sh [BIN_DIR]
set -uo pipefail
cd "$(dirname "$0")/../.."
bin=${1:-.build/debug}
client="/usr/bin/python3 Tests/Support/service_client.py"
tmp=$(mktemp -d)
bus="$tmp/bus"
passed=0 failed=0
serve_pid="" agent_pid="" verifier_pid=""
cleanup() {
  [ -n "$agent_pid" ] && kill "$agent_pid" 2>/dev/null
  [ -n "$verifier_pid" ] && kill "$verifier_pid" 2>/dev/null
  [ -n "$serve_pid" ] && kill "$serve_pid" 2>/dev/null && wait "$serve_pid" 2>/dev/null
  Tests/Support/bluezoo-bus.sh stop "$bus" >/dev/null 2>&1
  rm -rf "$tmp"
}
trap cleanup EXIT
ok() { passed=$((passed + 1)); }
ko() { failed=$((failed + 1)); echo "FAIL: $1"; [ -n "${2:-}" ] && sed 's/^/  /' "$2" | tail -15; }

"$bin/mdoc-holder" credentials import Fixtures/mdl.cbor --device-key Fixtures/mdl-device-key.pem \
  --trust-anchor Fixtures/pki/iaca.pem --store "$tmp/wallet.sqlite" >/dev/null || { echo "import failed"; exit 1; }
address=$(Tests/Support/bluezoo-bus.sh start "$bus") || { echo "BlueZoo did not start"; exit 1; }
export DBUS_SYSTEM_BUS_ADDRESS="$address"

# An OpenID4VP verifier on loopback (its CA is made at start) for PresentOnline.
mkdir -p "$tmp/verifier"
.venv-test/bin/python3 Tests/Support/oid4vp_verifier.py --dir "$tmp/verifier" --iaca Fixtures/pki/iaca.pem \
  --lifetime 300 --ready-file "$tmp/verifier.json" >/dev/null 2>"$tmp/verifier.err" &
verifier_pid=$!
for _ in $(seq 1 100); do [ -s "$tmp/verifier.json" ] && break; sleep 0.1; done
[ -s "$tmp/verifier.json" ] || { echo "the verifier did not start"; cat "$tmp/verifier.err"; exit 1; }

"$bin/mdoc-holder" serve --consent agent --agent-timeout 20 --reader-trust Fixtures/pki/reader-ca.pem \
  --untrusted-readers ask --online --verifier-trust "$tmp/verifier/ca.pem" --tls-ca "$tmp/verifier/ca.pem" \
  --store "$tmp/wallet.sqlite" 2>"$tmp/serve.err" &
serve_pid=$!
owned() {
  dbus-send --bus="$address" --print-reply --dest=org.freedesktop.DBus /org/freedesktop/DBus \
    org.freedesktop.DBus.NameHasOwner string:org.mdocholder 2>/dev/null | grep -q 'boolean true'
}
for _ in $(seq 1 100); do owned && break; sleep 0.1; done
owned || { echo "serve did not take org.mdocholder"; cat "$tmp/serve.err"; exit 1; }

# 1. What the running service exports is dbus/org.mdocholder.Holder1.xml.
if $client introspect dbus/org.mdocholder.Holder1.xml >"$tmp/introspect.out" 2>&1; then ok
else ko "introspection matches dbus/org.mdocholder.Holder1.xml" "$tmp/introspect.out"; fi

# start_agent MODE [ALLOW]: a consent agent in the background, registered when this returns.
start_agent() {
  : >"$tmp/agent.log"
  $client agent "$1" "$tmp/agent.log" --allow "${2:-}" 2>"$tmp/agent.err" &
  agent_pid=$!
  for _ in $(seq 1 100); do grep -q registered "$tmp/agent.log" && return 0; sleep 0.05; done
  ko "the $1 agent registered" "$tmp/agent.err"
}
stop_agent() { [ -n "$agent_pid" ] && kill "$agent_pid" 2>/dev/null; wait "$agent_pid" 2>/dev/null; agent_pid=""; }

# present CASE READER_ARGS...: a D-Bus client starts a presentation (in mode $MODE, default
# the service's: peripheral), the reader completes it.
present() {
  local case=$1; shift
  $client start "$tmp/$case.signals.json" --adapter hci0 ${MODE:+--mode "$MODE"} \
    >"$tmp/$case.client.out" 2>"$tmp/$case.client.err" &
  local client_pid=$! uri=""
  for _ in $(seq 1 150); do
    uri=$(grep -m1 '^mdoc:' "$tmp/$case.client.out" 2>/dev/null) && [ -n "$uri" ] && break
    sleep 0.1
  done
  if [ -z "$uri" ]; then ko "$case: StartProximity returned an mdoc: URI" "$tmp/$case.client.err"; kill $client_pid; return 1; fi
  timeout 120 "$bin/mdoc-reader" request "$uri" --adapter hci1 --trust-anchor Fixtures/pki/iaca.pem --json "$@" \
    >"$tmp/$case.reader.out" 2>"$tmp/$case.reader.err"
  reader_exit=$?
  wait "$client_pid"
  # BlueZoo serves one connection per mock: a fresh one for the next case.
  Tests/Support/bluezoo-bus.sh restart-mock "$bus" >/dev/null 2>&1
}

# signals CASE EXPECTED_REASON: the session's signals, in order, ending with that reason.
check_signals() {
  python3 - "$tmp/$1.signals.json" "$2" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
members = [s["member"] for s in r["signals"]]
expected = ["EngagementReady", "ReaderConnected", "RequestReceived", "ResponseSent", "Ended"]
assert members == expected, members
ended = r["signals"][-1]["args"]
assert ended[1] == sys.argv[2], ended
assert r["signals"][2]["args"][2] == ["org.iso.18013.5.1.mDL"], r["signals"][2]
assert r["signals"][0]["args"][1].startswith("mdoc:"), r["signals"][0]
PY
}

reader_auth=(--reader-key Fixtures/pki/reader.key.pem --reader-cert Fixtures/pki/reader.pem)
elements=(--element org.iso.18013.5.1:family_name --element org.iso.18013.5.1:given_name
  --element org.iso.18013.5.1:age_over_18)

# 2. The agent is asked and approves two of three elements: the reader gets exactly those.
start_agent approve org.iso.18013.5.1:family_name,org.iso.18013.5.1:age_over_18
present approved "${reader_auth[@]}" "${elements[@]}"
if [ "$reader_exit" = 0 ] && python3 - "$tmp/approved.reader.out" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
ids = sorted(e["identifier"] for e in r["documents"][0]["elements"])
assert r["valid"] and ids == ["age_over_18", "family_name"], ids
PY
then ok; else ko "approved: the reader gets the two approved elements, verified" "$tmp/approved.reader.err"; fi
if python3 - "$tmp/agent.log" "$tmp/approved.signals.json" <<'PY'
import json, sys
events = [json.loads(l) for l in open(sys.argv[1])]
requests = [e for e in events if e["event"] == "request"]
assert len(requests) == 1, events
q = requests[0]
assert q["session"] == json.load(open(sys.argv[2]))["session"], q
r = q["request"]
assert r["channel"] == "ble" and r["authentication"] == "trusted", r
doc = r["documents"][0]
assert doc["doctype"] == "org.iso.18013.5.1.mDL" and doc["held"], doc
assert sorted(e[1] for e in doc["elements"]) == ["age_over_18", "family_name", "given_name"], doc
PY
then ok; else ko "approved: the agent is asked with the session, the requester and the elements" "$tmp/agent.log"; fi
if check_signals approved completed 2>"$tmp/approved.check"; then ok
else ko "approved: EngagementReady, ReaderConnected, RequestReceived, ResponseSent, Ended(completed)" "$tmp/approved.check"; fi
if python3 -c 'import json,sys; s=json.load(open(sys.argv[1]))["signals"][3]["args"]; assert s[1:] == [["org.iso.18013.5.1.mDL"], 2], s' \
  "$tmp/approved.signals.json" 2>/dev/null; then ok; else ko "approved: ResponseSent names the doc type and 2 elements"; fi

# 2a. The same in mdoc central-client mode: the holder scans for the reader's service.
MODE=central present central "${reader_auth[@]}" "${elements[@]}"
if [ "$reader_exit" = 0 ] && python3 - "$tmp/central.reader.out" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
ids = sorted(e["identifier"] for e in r["documents"][0]["elements"])
assert r["valid"] and ids == ["age_over_18", "family_name"], ids
PY
then ok; else ko "central: StartProximity mode=central, the reader gets the two approved elements" "$tmp/central.reader.err"; fi
if check_signals central completed 2>"$tmp/central.check"; then ok
else ko "central: EngagementReady, ReaderConnected, RequestReceived, ResponseSent, Ended(completed)" "$tmp/central.check"; fi

# 2b. PresentOnline: the same agent answers an OpenID4VP verifier's request; the verifier
# gets what the agent approved.
port=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["port"])' "$tmp/verifier.json")
url=$(curl -s --cacert "$tmp/verifier/ca.pem" -X POST "https://localhost:$port/start" -d kind=signed -d delivery=post \
  -d mode=direct_post.jwt -d claims=org.iso.18013.5.1:family_name,org.iso.18013.5.1:age_over_18 \
  | python3 -c 'import json,sys; print(json.load(sys.stdin)["url"])' 2>/dev/null)
if [ -n "$url" ] && timeout 60 $client online "$url" "$tmp/online.signals.json" 2>"$tmp/online.err" \
  && python3 - "$tmp/online.signals.json" "$tmp/agent.log" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
members = [s["member"] for s in r["signals"]]
assert members == ["RequestReceived", "ResponseSent", "Ended"], members
assert r["signals"][1]["args"][1:] == [["org.iso.18013.5.1.mDL"], 2], r["signals"][1]
assert r["signals"][2]["args"][1] == "completed", r["signals"][2]
asked = [json.loads(l) for l in open(sys.argv[2]) if '"request"' in l]
assert asked[-1]["session"] == r["session"] and asked[-1]["request"]["channel"] == "online", asked[-1]
PY
then ok; else ko "online: PresentOnline asks the agent, RequestReceived, ResponseSent, Ended(completed)" "$tmp/serve.err"; fi
stop_agent

# 3. No agent and no policy: declined, the reader gets no data.
present noagent "${reader_auth[@]}" "${elements[@]}"
if [ "$reader_exit" != 0 ] && python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); assert r["documents"] == [] and r["documentErrors"], r' \
  "$tmp/noagent.reader.out"; then ok; else ko "no agent: the reader gets documentErrors only" "$tmp/noagent.reader.out"; fi
if check_signals noagent declined 2>"$tmp/noagent.check"; then ok; else ko "no agent: Ended(declined)" "$tmp/noagent.check"; fi

# 4. An agent that leaves the bus while asked: declined at once, no data.
start_agent disconnect
started=$(date +%s)
present vanished "${reader_auth[@]}" "${elements[@]}"
if [ "$reader_exit" != 0 ] && python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); assert r["documents"] == [] and r["documentErrors"], r' \
  "$tmp/vanished.reader.out"; then ok; else ko "vanished agent: the reader gets documentErrors only" "$tmp/vanished.reader.out"; fi
if grep -q '"request"' "$tmp/agent.log" && check_signals vanished declined 2>"$tmp/vanished.check" \
  && [ $(($(date +%s) - started)) -lt 15 ]; then ok
else ko "vanished agent: it was asked, Ended(declined) well before the 20 s agent timeout" "$tmp/vanished.check"; fi
wait "$agent_pid" 2>/dev/null; agent_pid=""

# 5. One session per adapter: a second StartProximity is refused (Busy); Cancel ends the first.
if $client busy-cancel --adapter hci0 >"$tmp/busy.out" 2>&1 && python3 - "$tmp/busy.out" <<'PY'
import json, sys
r = json.loads(open(sys.argv[1]).read())
assert r["uri"] and r["second"] == "org.mdocholder.Error.Busy", r
assert "Cancel" in r["second_message"], r
assert [s["member"] for s in r["signals"]] == ["EngagementReady", "Ended"], r
assert r["signals"][-1]["args"][1] == "cancelled", r
assert r["cancel_again"] == "org.mdocholder.Error.NotFound", r
assert r["unknown_adapter"].startswith("org.mdocholder.Error.Bluetooth: ") and "hci9" in r["unknown_adapter"], r
PY
then ok; else ko "busy: Busy for a second session on hci0, Ended(cancelled) after Cancel, Bluetooth error for hci9" "$tmp/busy.out"; fi

# 6. History over D-Bus: newest first, no values.
if $client history >"$tmp/history.json" && python3 - "$tmp/history.json" <<'PY'
import json, sys
h = json.load(open(sys.argv[1]))
assert [(e["channel"], e["outcome"]) for e in h] == [
    ("ble", "declined"), ("ble", "declined"), ("online", "sent"), ("ble", "sent"), ("ble", "sent")], h
for e in h[2:]:
    assert sorted(e["elements"]) == ["org.iso.18013.5.1:age_over_18", "org.iso.18013.5.1:family_name"], e
PY
then ok; else ko "history: five entries (BLE both modes and online), newest first" "$tmp/history.json"; fi

# 7. A second service on the bus: a clear error (name taken), exit 1; journald priorities.
JOURNAL_STREAM=8:1 "$bin/mdoc-holder" serve --store "$tmp/wallet.sqlite" >/dev/null 2>"$tmp/second.err"
second_exit=$?
if [ "$second_exit" = 1 ] && grep -q '^<3>.*already owned' "$tmp/second.err"; then ok
else ko "a second serve: exit 1, '<3>... already owned' (exit $second_exit)" "$tmp/second.err"; fi

# 7b. A bus whose policy refuses the name: a clear error, exit 1.
mkdir -p "$tmp/strict"
cat >"$tmp/strict/bus.conf" <<EOF2
<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>session</type>
  <listen>unix:path=$tmp/strict/bus</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow send_destination="*" eavesdrop="true"/>
    <allow eavesdrop="true"/>
    <allow own="*"/>
    <deny own="org.mdocholder"/>
  </policy>
</busconfig>
EOF2
dbus-daemon --config-file="$tmp/strict/bus.conf" --fork --print-pid=1 >"$tmp/strict/pid"
DBUS_SYSTEM_BUS_ADDRESS="unix:path=$tmp/strict/bus" "$bin/mdoc-holder" serve --store "$tmp/wallet.sqlite" \
  >/dev/null 2>"$tmp/strict.err"
strict_exit=$?
kill "$(cat "$tmp/strict/pid")" 2>/dev/null
if [ "$strict_exit" = 1 ] && grep -q 'bus policy does not let this user own org.mdocholder' "$tmp/strict.err"; then ok
else ko "a bus policy refusing the name: exit 1 and a message naming the policy (exit $strict_exit)" "$tmp/strict.err"; fi

# 8. The log holds no claim value.
if python3 - "$tmp/serve.err" <<'PY'
import json, sys
log = open(sys.argv[1]).read()
claims = json.load(open("Fixtures/mdl-claims.json"))
values = [v for v in claims.values() if isinstance(v, str) and len(v) >= 3]
leaked = [v for v in values if v in log]
assert not leaked, leaked
assert "session" in log
PY
then ok; else ko "the service log holds no claim value" "$tmp/serve.err"; fi

# 9. SIGTERM: the service stops cleanly and gives the name back.
kill -TERM "$serve_pid"; wait "$serve_pid"; serve_exit=$?; serve_pid=""
if [ "$serve_exit" = 0 ] && ! owned; then ok; else ko "SIGTERM: exit 0 (exit $serve_exit) and the name released" "$tmp/serve.err"; fi

# 10. Under systemd with the key-encryption key not provisioned (the unit's SetCredential=
# placeholder in $CREDENTIALS_DIRECTORY): the service starts, says at once which key is missing
# and how to provide it, and still answers History.
mkdir -p "$tmp/creds"
echo unprovisioned >"$tmp/creds/mdoc-holder-kek"
CREDENTIALS_DIRECTORY="$tmp/creds" "$bin/mdoc-holder" serve --consent agent --store "$tmp/wallet.sqlite" \
  2>"$tmp/nokek.err" &
serve_pid=$!
for _ in $(seq 1 100); do owned && break; sleep 0.1; done
if owned && grep -qF "device keys cannot be used: the software secure area's key-encryption key $tmp/creds/mdoc-holder-kek is missing" "$tmp/nokek.err" \
  && grep -q "systemd-creds encrypt" "$tmp/nokek.err" && $client history >/dev/null 2>&1; then ok
else ko "without its key-encryption key the service starts, names the missing key and answers History" "$tmp/nokek.err"; fi
kill -TERM "$serve_pid"; wait "$serve_pid"; serve_pid=""

echo "service: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
