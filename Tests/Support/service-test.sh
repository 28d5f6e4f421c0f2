#!/usr/bin/env bash
# The service tier: the real `mdoc-holder serve` on a private bus with BlueZoo (hci0 holder,
# hci1 reader), a D-Bus client (Tests/Support/service_client.py) starting presentations and
# acting as the consent agent, and the real `mdoc-reader request` completing them.
# Usage: Tests/Support/service-test.sh [BIN_DIR]
set -uo pipefail
cd "$(dirname "$0")/../.."
bin=${1:-.build/debug}
client="/usr/bin/python3 Tests/Support/service_client.py"
. Tests/Support/lib/tier.sh
tier_begin service
bus="$tmp/bus"
serve_pid="" agent_pid="" verifier_pid="" issuer_pid=""
tier_track_variables agent_pid verifier_pid issuer_pid serve_pid

import_test_mdl "$tmp/wallet.sqlite" || die "import"
address=$(tier_bus_start "$bus") || { echo "BlueZoo did not start"; exit 1; }
export DBUS_SYSTEM_BUS_ADDRESS="$address"

# An OpenID4VP verifier on loopback (its CA is made at start) for PresentOnline.
mkdir -p "$tmp/verifier"
.venv-test/bin/python3 Tests/Support/oid4vp_verifier.py --dir "$tmp/verifier" --iaca Fixtures/pki/iaca.pem \
  --lifetime 300 --ready-file "$tmp/verifier.json" >/dev/null 2>"$tmp/verifier.err" &
verifier_pid=$!
wait_file "$tmp/verifier.json" 10
[ -s "$tmp/verifier.json" ] || { echo "the verifier did not start"; cat "$tmp/verifier.err"; exit 1; }
# An OpenID4VCI test issuer on loopback (its CA is made at start) for ReceiveCredential.
mkdir -p "$tmp/issuer"
.venv-test/bin/python3 Tests/Support/vci_issuer.py --dir "$tmp/issuer" --ds-key Fixtures/pki/ds.key.pem \
  --ds-cert Fixtures/pki/ds.pem --lifetime 600 --ready-file "$tmp/issuer.json" >/dev/null 2>"$tmp/issuer.err" &
issuer_pid=$!
wait_file "$tmp/issuer.json" 20
[ -s "$tmp/issuer.json" ] || { echo "the issuer did not start"; cat "$tmp/issuer.err"; exit 1; }

"$bin/mdoc-holder" serve --consent agent --agent-timeout 20 --reader-trust Fixtures/pki/reader-ca.pem \
  --untrusted-readers ask --online --verifier-trust "$tmp/verifier/ca.pem" --tls-ca "$tmp/verifier/ca.pem" \
  --tls-ca "$tmp/issuer/ca.pem" --trust-anchor Fixtures/pki/iaca.pem --http-timeout 5 \
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

# start_agent MODE [ALLOW [CODE [BROWSE]]]: a consent agent in the background, registered when
# this returns; CODE answers RequestTransactionCode (default: an error, a decline); BROWSE, a CA
# file, makes OpenAuthorization follow the URL as the user's browser (default: an error).
start_agent() {
  : >"$tmp/agent.log"
  $client agent "$1" "$tmp/agent.log" --allow "${2:-}" --code "${3:-decline}" --browse "${4:-decline}" \
    2>"$tmp/agent.err" &
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

# 6b. ReceiveCredential (OpenID4VCI) from the loopback test issuer, which checks every request.
iport=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["port"])' "$tmp/issuer.json")
# offer FORM: a new issuer session; sets $sid and $offer.
offer() {
  curl -sf --cacert "$tmp/issuer/ca.pem" -d "$1" "https://localhost:$iport/start" >"$tmp/start.json"
  sid=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["session"])' "$tmp/start.json")
  offer=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["offer"])' "$tmp/start.json")
}
# received CASE PYTHON: the client's result r (ids, pending, error, message, signals), the
# issuer's record i (no spec violation allowed), the credentials c listed over D-Bus and the
# agent's events a satisfy the assertions.
received() {
  curl -sf --cacert "$tmp/issuer/ca.pem" "https://localhost:$iport/result/$sid" >"$tmp/$1.issuer.json" &&
    $client list >"$tmp/$1.list.json" &&
    python3 - "$tmp/$1.json" "$tmp/$1.issuer.json" "$tmp/$1.list.json" "$tmp/agent.log" "$2" <<'PY'
import json, sys
r, i, c = (json.load(open(p)) for p in sys.argv[1:4])
a = [json.loads(l) for l in open(sys.argv[4])]
assert not i["violations"], i["violations"]
members = [s["member"] for s in r["signals"]]
exec(sys.argv[5])
PY
}
receive() { local case=$1; shift; timeout 150 $client receive "$offer" "$tmp/$case.json" "$@" 2>"$tmp/$case.err"; }
mdl_allow=org.iso.18013.5.1:family_name
before=$($client list | python3 -c 'import json,sys; print(len(json.load(sys.stdin)))')

start_agent approve "$mdl_allow" 493817
offer "delivery=value"
if receive vci-plain && received vci-plain "
assert r['error'] is None and len(r['ids']) == 1 and r['pending'] == [], r
assert members == ['RequestReceived', 'CredentialReceived', 'Ended'], members
assert r['signals'][0]['args'][1:] == ['Utopia Test DMV', ['org.iso.18013.5.1.mDL']], r['signals'][0]
assert r['signals'][1]['args'][1:] == [r['ids'][0], 'org.iso.18013.5.1.mDL', 1], r['signals'][1]
assert r['signals'][2]['args'][1] == 'completed', r['signals'][2]
assert any(x['id'] == r['ids'][0] and x['doctype'] == 'org.iso.18013.5.1.mDL' for x in c), c
assert i['tx_code_sent'] is False and i['issued'] == 1 and i['notifications'] == ['credential_accepted'], i
q = [e for e in a if e['event'] == 'request'][-1]
assert q['session'] == r['session'] and q['request']['channel'] == 'issuance', q
assert q['request']['requester'] == 'Utopia Test DMV' and q['request']['documents'][0]['held'], q
assert not [e for e in a if e['event'] == 'code_request'], a
"; then ok; else ko "receive: a pre-authorized offer without tx_code, consent from the agent, CredentialReceived, listed" "$tmp/vci-plain.err"; fi

offer "delivery=reference&tx_code=493817&dpop=1"
if receive vci-code && received vci-code "
assert r['error'] is None and len(r['ids']) == 1, r
assert members == ['RequestReceived', 'CredentialReceived', 'Ended'], members
assert i['tx_code_sent'] is True and i['issued'] == 1 and i['dpop_challenges'] == 2, i
q = [e for e in a if e['event'] == 'code_request']
assert len(q) == 1 and q[0]['session'] == r['session'], a
assert q[0]['request'] == {'issuer': 'Utopia Test DMV', 'issuer_id': 'https://localhost:$iport/s/$sid',
    'issuer_host': 'localhost:$iport', 'input_mode': 'numeric', 'length': 6,
    'description': 'the code in your letter'}, q[0]
assert any(x['id'] == r['ids'][0] for x in c), c
"; then ok; else ko "receive: the agent gives the tx_code the issuer asked for (by reference, DPoP)" "$tmp/vci-code.err"; fi

offer "delivery=value&batch_size=2"
if receive vci-batch --batch 2 && received vci-batch "
assert r['error'] is None and len(r['ids']) == 1, r
assert r['signals'][1]['member'] == 'CredentialReceived' and r['signals'][1]['args'][3] == 2, r['signals']
assert i['proofs'] == 2 and i['issued'] == 2, i
"; then ok; else ko "receive: option batch 2 stores two copies" "$tmp/vci-batch.err"; fi

offer "delivery=value&deferred=5"; deferred_sid=$sid
if receive vci-deferred --wait 0 && received vci-deferred "
assert r['error'] is None and r['ids'] == [] and len(r['pending']) == 1, r
assert members == ['RequestReceived', 'Ended'] and r['signals'][-1]['args'][1] == 'pending', r['signals']
"; then ok; else ko "receive: a deferred issuance with wait 0 answers its pending id, Ended(pending)" "$tmp/vci-deferred.err"; fi
count=$($client list | python3 -c 'import json,sys; print(len(json.load(sys.stdin)))')

# The service's exchanges end at serve --http-timeout; endpoints the issuer names cannot point inward.
offer "delivery=value&trickle=credential"
if receive vci-trickle && received vci-trickle "
assert r['error'] is not None and 'the credential request failed: localhost did not answer within 5 s' in r['message'], r
assert r['signals'][-1]['member'] == 'Ended' and r['signals'][-1]['args'][1].startswith('error: '), r['signals']
assert len(c) == $count, c
"; then ok; else ko "receive: a credential answer that trickles ends at --http-timeout, nothing stored" "$tmp/vci-trickle.err"; fi
offer "delivery=value&credential_at=169.254.169.254:443"
if receive vci-inward && received vci-inward "
assert r['error'] is not None and 'refusing to connect to 169.254.169.254: it resolves to 169.254.169.254, a link-local address' in r['message'], r
assert len(c) == $count and i['issued'] == 0, (c, i)
"; then ok; else ko "receive: a credential endpoint on 169.254.169.254 is refused, nothing stored" "$tmp/vci-inward.err"; fi

offer "delivery=value&tx_code=1111"
stop_agent; start_agent approve "$mdl_allow" 9999
if receive vci-wrong && received vci-wrong "
assert r['error'] == 'org.mdocholder.Error.IssuerRefused', r
assert 'invalid_grant' in r['message'] and 'check the code' in r['message'] and '9999' not in r['message'], r
assert r['signals'][-1]['member'] == 'Ended' and r['signals'][-1]['args'][1].startswith('error: '), r['signals']
assert len(c) == $count, c
assert i['token_errors'] == ['invalid_grant'] and i['issued'] == 0, i
"; then ok; else ko "receive: a wrong tx_code gives IssuerRefused naming invalid_grant, nothing stored" "$tmp/vci-wrong.err"; fi

offer "delivery=value&tx_code=1111"
stop_agent; start_agent approve "$mdl_allow" decline
if receive vci-nocode && received vci-nocode "
assert r['error'] == 'org.mdocholder.Error.TransactionCode', r
assert 'declined' in r['message'] and 'org.example.Error.Declined' in r['message'], r
assert len(c) == $count and i['token_requests'] == 0 and i['issued'] == 0, (c, i)
"; then ok; else ko "receive: the agent declining the tx_code gives TransactionCode, nothing requested or stored" "$tmp/vci-nocode.err"; fi

offer "delivery=value"
stop_agent; start_agent decline
if receive vci-declined && received vci-declined "
assert r['error'] == 'org.mdocholder.Error.Declined' and 'nothing was requested' in r['message'], r
assert members == ['RequestReceived', 'Ended'] and r['signals'][-1]['args'][1] == 'declined', r['signals']
assert len(c) == $count and i['token_requests'] == 0 and i['nonce_requests'] == 0, (c, i)
"; then ok; else ko "receive: the agent declining consent gives Declined, nothing requested or stored" "$tmp/vci-declined.err"; fi
stop_agent

offer "delivery=value&signer=untrusted"
start_agent approve "$mdl_allow"
if receive vci-untrusted && received vci-untrusted "
assert r['error'] == 'org.mdocholder.Error.CredentialRefused' and 'issuer data authentication' in r['message'], r
assert len(c) == $count and i['issued'] == 1 and i['notifications'] == ['credential_failure'], (c, i)
"; then ok; else ko "receive: a credential under an untrusted IACA gives CredentialRefused, nothing stored" "$tmp/vci-untrusted.err"; fi
stop_agent

if [ "$count" = $((before + 3)) ] && $client history >"$tmp/vci-history.json" && python3 - "$tmp/vci-history.json" <<'PY'
import json, sys
h = [e for e in json.load(open(sys.argv[1])) if e["channel"] == "issuance"]
# (the two "failed" before the receipts: the trickling answer and the link-local endpoint)
assert [e["outcome"] for e in h] == ["failed", "declined", "failed", "failed", "failed", "failed", "received", "received",
                                     "received"], h
assert [e.get("copies") for e in h if e["outcome"] == "received"] == [2, 1, 1], h
assert all(e["requester"] == "Utopia Test DMV" for e in h), h
PY
then ok; else ko "receive: three credentials stored in all, the history lists each issuance over D-Bus ($before -> $count)" "$tmp/vci-history.json"; fi
if ! grep -qE '493817|9999|1111' "$tmp/serve.err"; then ok; else ko "receive: no transaction code in the service log" "$tmp/serve.err"; fi

# 6c. The service answers while offers are being handled: one offer waits on a hanging agent, two
# offers of about 1 MiB naming 150,000 configuration ids each arrive, and ListCredentials is
# called every 100 ms until both are answered: each call is answered within 2 s.
start_agent hang
offer "delivery=value"; pending_offer=$offer
offer "delivery=reference&many_ids=150000"; huge_offer=$offer
if timeout 90 $client busy-receive "$pending_offer" "$huge_offer" 2 "$tmp/busy-receive.json" 2>"$tmp/busy-receive.err" &&
  python3 - "$tmp/busy-receive.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
huge = ", ".join("%.2f" % h["s"] for h in r["huge"])
print("service: %d ListCredentials calls beside two 150,000-id offers (refused after %s s) and one offer "
      "waiting on consent, each answered within %.2f s" % (len(r["list_s"]), huge, max(r["list_s"] or [99])))
assert isinstance(r["listed"], int) and r["list_s"] and max(r["list_s"]) < 2, r
assert r["pending_s"] is None, r  # the waiting offer had not finished when the lists came
assert len(r["huge"]) == 2 and all(h["s"] < 5 for h in r["huge"]), r
assert all("credential_configuration_ids names 150001 configurations, more than the 64" in (h["message"] or "")
           for h in r["huge"]), r
PY
then ok; else ko "receive: ListCredentials answers within 2 s while offers are handled; 150,000-id offers refused" "$tmp/busy-receive.err"; fi
stop_agent

# 6d. The authorization code flow through the service: the agent is asked to open the URL, the
# scripted user's browser follows it to the service's loopback listener, the credential is stored.
start_agent approve "$mdl_allow" decline "$tmp/issuer/ca.pem"
offer "grant=code&par=1&dpop=1"
if receive vci-authcode && received vci-authcode "
assert r['error'] is None and len(r['ids']) == 1 and r['pending'] == [], r
assert members == ['RequestReceived', 'CredentialReceived', 'Ended'] and r['signals'][-1]['args'][1] == 'completed', members
assert any(x['id'] == r['ids'][0] and x['doctype'] == 'org.iso.18013.5.1.mDL' for x in c), c
o = [e for e in a if e['event'] == 'open']
assert len(o) == 1 and o[0]['session'] == r['session'], a
assert o[0]['scheme'] == 'https' and o[0]['host'] == 'localhost:$iport' and o[0]['path'].endswith('/authorize'), o
assert o[0]['query'] == ['client_id', 'request_uri'], o
assert [e['status'] for e in a if e['event'] == 'followed'] == [200], a
names = [e['event'] for e in a]
assert names.index('request') < names.index('open'), names
assert i['par_requests'] == 2 and i['authorization_requests'] == 1 and i['pkce_checked'], i
assert i['redirect_uri'].startswith('http://127.0.0.1:') and i['notifications'] == ['credential_accepted'], i
" && ! grep -q '/authorize' "$tmp/serve.err"; then ok
else ko "receive: an authorization code offer, the agent opens the URL (not logged), the browser returns to the service, stored and listed" "$tmp/vci-authcode.err"; fi
stop_agent

start_agent approve "$mdl_allow"
offer "grant=code&par=0"
started=$(date +%s)
if receive vci-noauth && received vci-noauth "
assert r['error'] == 'org.mdocholder.Error.Declined', r
assert r['message'] == 'the authorization URL was not opened: the consent agent declined to open it (org.example.Error.Declined)', r
assert r['signals'][-1]['member'] == 'Ended' and r['signals'][-1]['args'][1] == 'declined', r['signals']
assert [e['event'] for e in a if e['event'] in ('open', 'followed')] == ['open'], a
assert i['token_requests'] == 0 and i['issued'] == 0, i
" && [ $(($(date +%s) - started)) -lt 15 ]; then ok
else ko "receive: the agent refusing to open the authorization URL gives Declined at once, nothing requested" "$tmp/vci-noauth.err"; fi
stop_agent

# 6e. Pending issuances through Holder1: the deferred one of 6b is listed and resumed.
pending_id=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["pending"][0])' "$tmp/vci-deferred.json")
if $client pending >"$tmp/pending.json" && python3 - "$tmp/pending.json" "$pending_id" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))
assert [(x["id"], x["doctype"], x["issuer"]) for x in p] == [(sys.argv[2], "org.iso.18013.5.1.mDL", "Utopia Test DMV")], p
assert set(p[0]) == {"id", "doctype", "issuer", "issuer_id", "since"}, p
PY
then ok; else ko "pending: ListPending lists the deferred issuance kept pending (id, doctype, issuer, no secret)" "$tmp/pending.json"; fi
sid=$deferred_sid
if timeout 150 $client resume "$tmp/vci-resume.json" --wait 30 2>"$tmp/vci-resume.err" && received vci-resume "
assert r['error'] is None and len(r['ids']) == 1 and r['pending'] == [] and r['failures'] == [], r
assert members == ['CredentialReceived', 'Ended'] and r['signals'][-1]['args'][1] == 'completed', r['signals']
assert r['signals'][0]['args'][1:] == [r['ids'][0], 'org.iso.18013.5.1.mDL', 1], r['signals']
assert any(x['id'] == r['ids'][0] for x in c), c
assert i['issued'] == 1 and i['deferred_polls'] == 6 and i['notifications'] == ['credential_accepted'], i
" && [ "$($client pending)" = "[]" ]; then ok
else ko "pending: ResumePending stores the deferred credential, CredentialReceived, listed, nothing pending" "$tmp/vci-resume.err"; fi

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
# ... and without --online it refuses ReceiveCredential as it refuses PresentOnline.
offer "delivery=value"
if receive vci-offline && python3 - "$tmp/vci-offline.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
assert r["error"] == "org.mdocholder.Error.NotSupported" and "--online" in r["message"] and r["signals"] == [], r
PY
then ok; else ko "receive: refused with NotSupported without --online" "$tmp/vci-offline.err"; fi
kill -TERM "$serve_pid"; wait "$serve_pid"; serve_pid=""

# 11. A kiosk answers from a policy file: nobody opens an authorization URL, so an offer without a
# pre-authorized code is refused before consent, saying so.
: >"$tmp/kiosk.toml"
"$bin/mdoc-holder" serve --consent "policy:$tmp/kiosk.toml" --online --tls-ca "$tmp/issuer/ca.pem" \
  --trust-anchor Fixtures/pki/iaca.pem --store "$tmp/wallet.sqlite" 2>"$tmp/kiosk.err" &
serve_pid=$!
for _ in $(seq 1 100); do owned && break; sleep 0.1; done
offer "grant=code&par=0"
if receive vci-kiosk && received vci-kiosk "
assert r['error'] == 'org.mdocholder.Error.NotSupported', r
assert 'the offer has no pre-authorized code: it needs the authorization code flow (a browser), which is not offered here' in r['message'], r
assert 'RequestReceived' not in members and i['par_requests'] == 0 and i['authorization_requests'] == 0, (members, i)
"; then ok; else ko "kiosk: an authorization code offer is NotSupported before consent, nothing sent" "$tmp/vci-kiosk.err"; fi
kill -TERM "$serve_pid"; wait "$serve_pid"; serve_pid=""

tier_summary
