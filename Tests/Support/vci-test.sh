#!/usr/bin/env bash
# Receiving credentials with OpenID4VCI 1.0: the real `mdoc-holder credentials receive` against
# an independent test issuer on loopback HTTPS (Tests/Support/vci_issuer.py, which checks every
# request the holder sends against the spec), then a received credential presented over
# OpenID4VP to the loopback verifier (Tests/Support/oid4vp_verifier.py) and verified there;
# mso_mdoc and dc+sd-jwt (SD-JWT VCs made by the IETF reference library) configurations.
# Usage: Tests/Support/vci-test.sh [BIN_DIR] (default .build/debug).
set -uo pipefail
cd "$(dirname "$0")/../.."
bin=${1:-.build/debug}
py=.venv-test/bin/python3
[ -x "$py" ] || Tests/Support/python-venv.sh
. Tests/Support/lib/tier.sh
tier_begin vci-test
netns= veth=
tier_at_exit 'if [ -n "$netns" ]; then ip link del "$veth" 2>/dev/null; ip netns del "$netns" 2>/dev/null; fi'
export XDG_CONFIG_HOME=$tmp/config XDG_DATA_HOME=$tmp/data
# Loopback servers only: a proxy of the environment (curl and the holder read it) is not used; the
# https_proxy section sets its own.
unset https_proxy HTTPS_PROXY http_proxy all_proxy ALL_PROXY no_proxy NO_PROXY
wait_ready() { wait_file "$1" 20 || die "a test server did not start"; }  # wait_ready FILE

mkdir -p "$tmp/issuer" "$tmp/verifier"
"$py" Tests/Support/vci_issuer.py --dir "$tmp/issuer" --ds-key Fixtures/pki/ds.key.pem --ds-cert Fixtures/pki/ds.pem \
  --lifetime 300 --ready-file "$tmp/issuer/ready" >/dev/null &
tier_track $!
wait_ready "$tmp/issuer/ready"
# The verifier checks SD-JWT VCs against the CA the test issuer signs them under.
"$py" Tests/Support/oid4vp_verifier.py --dir "$tmp/verifier" --iaca Fixtures/pki/iaca.pem \
  --sd-jwt-ca "$tmp/issuer/sd-jwt-ca.pem" --lifetime 300 --ready-file "$tmp/verifier/ready" >/dev/null &
tier_track $!
wait_ready "$tmp/verifier/ready"
iport=$("$py" -c 'import json,sys; print(json.load(open(sys.argv[1]))["port"])' "$tmp/issuer/ready")
vport=$("$py" -c 'import json,sys; print(json.load(open(sys.argv[1]))["port"])' "$tmp/verifier/ready")
ica=$tmp/issuer/ca.pem vca=$tmp/verifier/ca.pem

offer() {  # offer FORM: starts an issuer session; sets $sid and $url
  curl -sf --cacert "$ica" -d "$1" "https://localhost:$iport/start" >"$tmp/start.json" || { echo "FAIL: /start"; exit 1; }
  sid=$("$py" -c 'import json,sys; print(json.load(open(sys.argv[1]))["session"])' "$tmp/start.json")
  url=$("$py" -c 'import json,sys; print(json.load(open(sys.argv[1]))["offer"])' "$tmp/start.json")
}
saw() {  # saw PYTHON_EXPR: the issuer's record r of session $sid satisfies the expression
  curl -sf --cacert "$ica" "https://localhost:$iport/result/$sid" >"$tmp/result.json" &&
    "$py" - "$tmp/result.json" "$1" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
if r["violations"]:
    sys.exit("the holder broke the spec: " + "; ".join(r["violations"]))
if not eval(sys.argv[2]):
    sys.exit(f"not {sys.argv[2]}: {json.dumps(r)}")
PY
}
store=$tmp/wallet.sqlite
receive() {  # receive STORE OFFER ARGS...: mdoc-holder credentials receive with the test trust
  local s=$1 o=$2; shift 2
  "$bin/mdoc-holder" credentials receive "$o" --trust-anchor Fixtures/pki/iaca.pem --tls-ca "$ica" \
    --store "$s" "$@"
}
listed() {  # listed STORE PYTHON_EXPR: `credentials list --json` as c satisfies the expression
  "$bin/mdoc-holder" credentials list --json --store "$1" >"$tmp/list.json" &&
    "$py" -c 'import json,sys; c = json.load(open(sys.argv[1])); assert eval(sys.argv[2]), c' "$tmp/list.json" "$2"
}

# -- pre-authorized code, offer by value, no transaction code, Bearer token
offer "delivery=value"
check "receives an offer by value" receive "$store" "$url" --yes
id1=$(head -1 "$tmp/out") sid1=$sid
check "it printed the new credential id" test -n "$id1"
check "the issuer saw a correct exchange and was told credential_accepted" \
  saw 'r["notifications"] == ["credential_accepted"] and r["proofs"] == 1 and r["request_target"] == "configuration" and r["tx_code_sent"] is False and r["dpop_challenges"] == 0'
check "list shows it" listed "$store" "any(x['id'] == '$id1' and x['docType'] == 'org.iso.18013.5.1.mDL' and x['receivedFrom'].endswith('/s/$sid') for x in c)"
check "history records the issuance, no values" bash -c \
  "'$bin/mdoc-holder' history --json --store '$store' | '$py' -c 'import json,sys; h=json.load(sys.stdin); e=h[-1]; assert e[\"channel\"]==\"issuance\" and e[\"decision\"]==\"received\" and e[\"copies\"]==1 and e[\"requesterName\"]==\"Utopia Test DMV\", h; assert \"Mustermann\" not in json.dumps(h)'"

check "deleting it tells the issuer credential_deleted" "$bin/mdoc-holder" credentials delete "$id1" --tls-ca "$ica" --store "$store"
check "and deletes the key made for it" bash -c "'$bin/mdoc-holder' keys list --json --store '$store' | grep -qx '\[\]'"
check "the issuer got credential_deleted" saw 'r["notifications"] == ["credential_accepted", "credential_deleted"]'

# -- by reference, transaction code from a file, DPoP with nonce challenges at both servers
offer "delivery=reference&tx_code=493817&dpop=1"
printf '493817\n' >"$tmp/txcode"
check "receives by reference with a tx_code file and DPoP" receive "$store" "$url" --yes --tx-code-file "$tmp/txcode"
check "the issuer checked DPoP (htm, htu, iat, jti, ath, nonce) and saw both nonce challenges answered" \
  saw 'r["offer_fetches"] == 1 and r["tx_code_sent"] is True and r["dpop_challenges"] == 2 and r["notifications"] == ["credential_accepted"]'
check "the transaction code is never printed" bash -c "! grep -q 493817 '$tmp/out' '$tmp/err'"

# -- an https offer URL, the code on standard input, credential_identifier, OpenID configuration fallback
offer "delivery=https&tx_code=2468&identifiers=1&as_metadata=openid"
check "receives an https offer with the code on stdin" bash -c \
  "printf '2468\n' | '$bin/mdoc-holder' credentials receive '$url' --yes --tx-code-file - --trust-anchor Fixtures/pki/iaca.pem --tls-ca '$ica' --store '$store'"
check "it used credential_identifier and the openid-configuration fallback" \
  saw 'r["request_target"] == "identifier" and r["as_metadata_fetches"] == 1'

# -- a wrong transaction code: the issuer's invalid_grant, nothing stored
offer "delivery=value&tx_code=1111"
printf '9999\n' >"$tmp/wrong"
fails "a wrong tx_code fails" 1 receive "$tmp/wrong.sqlite" "$url" --yes --tx-code-file "$tmp/wrong"
check "the message names the issuer's error and what to do" grep -q "invalid_grant.*check the code" "$tmp/err"
check "and never the code" bash -c "! grep -q 9999 '$tmp/err'"
check "nothing was stored" listed "$tmp/wrong.sqlite" "c == []"
check "no key was left behind" bash -c "'$bin/mdoc-holder' keys list --json --store '$tmp/wrong.sqlite' | grep -qx '\[\]'"
check "the issuer issued nothing" saw 'r["token_errors"] == ["invalid_grant"] and r["issued"] == 0'
check "the history records the failure with the issuer's error code" bash -c \
  "'$bin/mdoc-holder' history --json --store '$tmp/wrong.sqlite' | grep -q 'the token endpoint answered invalid_grant'"
fails "a code of the wrong shape is refused before it is sent" 1 bash -c \
  "printf 'abcd\n' | '$bin/mdoc-holder' credentials receive '$url' --yes --tx-code-file - --trust-anchor Fixtures/pki/iaca.pem --tls-ca '$ica' --store '$tmp/wrong.sqlite'"
check "that says digits only" grep -q "digits only" "$tmp/err"

# -- a credential signed under an IACA the holder does not trust
offer "delivery=value&signer=untrusted"
fails "an untrusted IACA is refused" 1 receive "$tmp/untrusted.sqlite" "$url" --yes
check "the message says issuer data authentication failed and the issuer was told" \
  bash -c "grep -q 'issuer data authentication' '$tmp/err' && grep -q 'credential_failure' '$tmp/err'"
check "nothing was stored" listed "$tmp/untrusted.sqlite" "c == []"
check "no key was left behind" bash -c "'$bin/mdoc-holder' keys list --json --store '$tmp/untrusted.sqlite' | grep -qx '\[\]'"
check "the issuer got credential_failure" saw 'r["notifications"] == ["credential_failure"] and r["issued"] == 1'
check "the history records the refusal" bash -c \
  "'$bin/mdoc-holder' history --json --store '$tmp/untrusted.sqlite' | grep -q 'issuer data authentication failed'"

# -- an issuer whose words would drive a terminal (escape sequences, a bidi override, a newline,
# a C1 CSI in its names, configuration id, doc type, error answer): shown escaped, never raw.
no_raw() {  # no_raw FILE...: no ESC, BEL, C1 or bidirectional control in the files
  "$py" -c '
import re, sys
for path in sys.argv[1:]:
    t = open(path, encoding="utf-8", errors="replace").read()
    if re.search("[\x1b\x07\x80-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]", t):
        sys.exit(path + " holds a raw control character")' "$@"
}
hostile='\u{1B}[2J\u{1B}[H\nFrom: Trusted Police Issuer\u{202E}\u{9B}31m'
offer "delivery=value&hostile_text=names&batch_size=3"
check "an issuer with hostile names and configuration id is received from" receive "$tmp/hostile.sqlite" "$url" --yes --batch 3
cat "$tmp/out" "$tmp/err" >"$tmp/hostile.txt"  # what the next checks read (each check replaces out and err)
check "its name is shown escaped" grep -qF "Issuer: Utopia$hostile" "$tmp/hostile.txt"
check "no raw control character reaches the output" no_raw "$tmp/hostile.txt"
"$bin/mdoc-holder" history --store "$tmp/hostile.sqlite" >"$tmp/hostile-history.txt" 2>&1
check "history shows the issuer's name escaped, nothing raw" bash -c \
  "grep -qF '\"Utopia$hostile\"' '$tmp/hostile-history.txt' && [ \"\$(wc -l <'$tmp/hostile-history.txt')\" = 2 ]"
check "history holds no raw control character" no_raw "$tmp/hostile-history.txt"
"$bin/mdoc-holder" credentials list --store "$tmp/hostile.sqlite" >"$tmp/hostile-list.txt" 2>&1
check "credentials list holds no raw control character" no_raw "$tmp/hostile-list.txt"
offer "delivery=value&hostile_text=doctype"
fails "a hostile doc type in the metadata, not the credential's, is refused" 1 receive "$tmp/hostile.sqlite" "$url" --yes
cat "$tmp/out" "$tmp/err" >"$tmp/hostile.txt"
check "the refusal shows that doc type escaped" grep -qF "the org.iso.18013.5.1.mDL$hostile credential the issuer sent was refused" "$tmp/hostile.txt"
check "and holds no raw control character" no_raw "$tmp/hostile.txt"
offer "delivery=value&hostile_text=error"
fails "an error answer with escape sequences fails the receive" 1 receive "$tmp/hostile-error.sqlite" "$url" --yes
cat "$tmp/out" "$tmp/err" >"$tmp/hostile.txt"
# The error code is cut at 64 characters (an ellipsis), the description at 300.
check "the error code and description are shown escaped" \
  grep -qF 'invalid_grant\u{1B}[2J\u{1B}[H\nFrom: Trusted Police Issuer…: refused'"$hostile" "$tmp/hostile.txt"
check "the error output holds no raw control character" no_raw "$tmp/hostile.txt"
"$bin/mdoc-holder" history --store "$tmp/hostile-error.sqlite" >"$tmp/hostile-history.txt" 2>&1
check "the history of the failure holds no raw control character" no_raw "$tmp/hostile-history.txt"

# -- signed metadata (OpenID4VCI 1.0 section 12.2.3): asked for as application/jwt, verified, used
offer "delivery=value&signed_metadata=trusted"
check "receives with signed metadata" receive "$tmp/signed.sqlite" "$url" --yes
check "it asked for the signed form" saw '"application/jwt" in r["metadata_accept"] and r["issued"] == 1'
check "the signed metadata's display name is the issuer's name" bash -c \
  "'$bin/mdoc-holder' history --json --store '$tmp/signed.sqlite' | grep -q 'Utopia Test DMV (signed)'"
offer "delivery=value&signed_metadata=tampered"
fails "signed metadata changed after signing is refused" 1 receive "$tmp/signed-bad.sqlite" "$url" --yes
check "the message says the signature does not verify" grep -q "signature does not verify" "$tmp/err"
check "nothing was asked of the issuer after the metadata" saw 'r["token_requests"] == 0 and r["issued"] == 0'
offer "delivery=value&signed_metadata=untrusted"
fails "signed metadata under a CA the holder does not trust is refused" 1 receive "$tmp/signed-bad.sqlite" "$url" --yes
check "the message says not trusted and what to do" grep -q "not trusted.*--trust-anchor" "$tmp/err"
check "nothing was stored" listed "$tmp/signed-bad.sqlite" "c == []"

# -- batch of 3: three keys, three copies, one credential
offer "delivery=value&batch_size=3&dpop=1"
check "receives a batch of 3" receive "$store" "$url" --yes --batch 3
idb=$(head -1 "$tmp/out")
check "three proofs, three copies" saw 'r["proofs"] == 3 and r["issued"] == 3'
check "list shows 3 unused copies of one credential" listed "$store" "[(x['copies'], x['unusedCopies']) for x in c if x['id'] == '$idb'] == [(3, 3)]"
check "three new keys are bound to it" bash -c \
  "'$bin/mdoc-holder' keys list --json --store '$store' | '$py' -c 'import json,sys; k=json.load(sys.stdin); assert sum(\"$idb\" in x[\"credentials\"] for x in k) == 3, k'"
offer "delivery=value&batch_size=2"
fails "more copies than batch_size are refused before any request" 1 receive "$tmp/big.sqlite" "$url" --yes --batch 3
check "that says batch_size" grep -q "batch_size" "$tmp/err"
check "no token was asked for" saw 'r["token_requests"] == 0'

# -- deferred issuance: ready while waiting; kept pending, then resumed with --pending (DPoP-bound)
offer "delivery=value&deferred=1"
check "a deferred credential ready within --wait is stored" receive "$tmp/deferred.sqlite" "$url" --yes --wait 10
check "the issuer was polled at its interval" saw 'r["deferred_polls"] == 2 and r["issued"] == 1 and r["notifications"] == ["credential_accepted"]'
check "it is listed" listed "$tmp/deferred.sqlite" "len(c) == 1"
offer "delivery=value&deferred=1&dpop=1"
check "a deferred credential not ready within --wait 0 is kept pending" receive "$tmp/deferred.sqlite" "$url" --yes --wait 0
check "it said so" grep -q "kept pending" "$tmp/err"
check "credentials list shows it pending" bash -c "'$bin/mdoc-holder' credentials list --store '$tmp/deferred.sqlite' | grep -q '^pending '"
check "no credential yet" listed "$tmp/deferred.sqlite" "len(c) == 1"
check "--pending resumes it (first poll: not ready; the next: stored)" receive "$tmp/deferred.sqlite" --pending --wait 10
check "the resumed credential is stored" listed "$tmp/deferred.sqlite" "len(c) == 2"
check "nothing is pending any more" bash -c "! '$bin/mdoc-holder' credentials list --store '$tmp/deferred.sqlite' | grep -q '^pending '"
check "the resumed requests kept DPoP (same key, ath, nonce) and notified" \
  saw 'r["deferred_polls"] == 2 and r["issued"] == 1 and r["notifications"] == ["credential_accepted"]'
check "--pending with nothing pending says so" receive "$tmp/deferred.sqlite" --pending
check "that is a message" grep -q "No pending issuances" "$tmp/err"

# -- encrypted requests and responses (JWE, ECDH-ES), immediate and deferred
offer "delivery=value&encrypt=1"
check "receives with encrypted request and response" receive "$tmp/jwe.sqlite" "$url" --yes
check "the issuer decrypted the request and encrypted its answer to our key" \
  saw 'r["encrypted_requests"] == 1 and r["encrypted_responses"] == 1 and r["issued"] == 1'
offer "delivery=value&encrypt=1&deferred=1&dpop=1"
check "receives a deferred credential with encryption and DPoP" receive "$tmp/jwe.sqlite" "$url" --yes --wait 10
check "every request and answer was encrypted, the 202s too" \
  saw 'r["encrypted_requests"] == 3 and r["encrypted_responses"] == 3 and r["deferred_polls"] == 2'
check "both are stored" listed "$tmp/jwe.sqlite" "len(c) == 2"

# -- issue 30: a wrong code refused as invalid_request with `description`; key attestations; the hint
offer "delivery=value&tx_code=1111&tx_code_error=description"
printf '9999\n' >"$tmp/wrong"
fails "a wrong tx_code answered invalid_request fails" 1 receive "$tmp/wrong2.sqlite" "$url" --yes --tx-code-file "$tmp/wrong"
check "the message says the code may be wrong, what to do, and the issuer's description" grep -qF \
  "the issuer's token endpoint refused: invalid_request: invalid tx_code (the transaction code may be wrong: check the code, or ask the issuer for a new offer)" "$tmp/err"
check "and never the code" bash -c "! grep -q 9999 '$tmp/err'"
check "the issuer refused it so" saw 'r["token_errors"] == ["invalid_request"] and r["issued"] == 0'
offer "delivery=value&key_attestations=required"
fails "an issuer requiring key attestations is refused" 1 receive "$tmp/attest.sqlite" "$url" --yes
check "the message names key_attestations_required and that no secure area here attests keys" grep -qF \
  "not supported: configuration mdl requires key attestations (key_attestations_required): the issuer takes a key proof only with an attestation of the key signed by a wallet provider, and no secure area here (software, TPM 2.0, PKCS#11) can attest its keys; nothing was asked of the issuer" "$tmp/err"
check "before any request" saw 'r["token_requests"] == 0 and r["nonce_requests"] == 0 and r["credential_requests"] == 0'
check "no key was made" bash -c "'$bin/mdoc-holder' keys list --json --store '$tmp/attest.sqlite' | grep -qx '\[\]'"
offer "delivery=value&signer=untrusted"
fails "an untrusted IACA is refused (the hint)" 1 receive "$tmp/untrusted2.sqlite" "$url" --yes
check "the hint names --trust-anchor" grep -qF "Give the issuer's IACA certificate with --trust-anchor IACA.pem." "$tmp/err"
check "not an option receive does not have" bash -c "! grep -q -- '--no-verify-issuer' '$tmp/err'"
keys() { "$bin/mdoc-holder" keys list --json --store "$1" | "$py" -c "import json,sys; k=json.load(sys.stdin); assert $2, k"; }
offer "delivery=value&encrypt=1&deferred=1&deferred_key=first"
check "an encrypted deferred issuance not ready within --wait 0 is kept pending" receive "$tmp/jwe-first.sqlite" "$url" --yes --wait 0
check "--pending resumes it, the answer encrypted to the first request's key" receive "$tmp/jwe-first.sqlite" --pending --wait 10
check "the credential is stored" listed "$tmp/jwe-first.sqlite" "len(c) == 1"
check "the issuer encrypted every answer" saw 'r["deferred_polls"] == 2 and r["encrypted_responses"] == 3 and r["issued"] == 1'
check "nothing is pending" bash -c "! '$bin/mdoc-holder' credentials list --store '$tmp/jwe-first.sqlite' | grep -q '^pending '"
check "only the credential's key is left (the kept response key went)" keys "$tmp/jwe-first.sqlite" "len(k) == 1"
offer "delivery=value&encrypt=1&deferred=1&deferred_key=other"
check "kept pending again" receive "$tmp/jwe-other.sqlite" "$url" --yes --wait 0
check "the pending entry keeps its key and the response key, both wrapped" keys "$tmp/jwe-other.sqlite" \
  "len(k) == 2 and all(x['secureArea'] == 'software' for x in k)"
fails "--pending with an answer encrypted to a key nobody has fails" 1 receive "$tmp/jwe-other.sqlite" --pending --wait 10
check "saying so" grep -qF "ended: the issuer's deferred credential endpoint answer cannot be used: the encrypted answer cannot be decrypted: decryption failed" "$tmp/err"
check "nothing half-stored: no credential, nothing pending" bash -c "! '$bin/mdoc-holder' credentials list --store '$tmp/jwe-other.sqlite' | grep -q ."
check "no key left" keys "$tmp/jwe-other.sqlite" "k == []"

# -- consent: a policy without an issuer rule declines; one with it accepts
printf '[[rule]]\nreader = "any"\ndoctype = "*"\nallow = ["*"]\n' >"$tmp/readers.toml"
offer "delivery=value"
fails "a policy with reader rules only declines an offer" 1 receive "$tmp/declined.sqlite" "$url" --consent "policy:$tmp/readers.toml"
check "declining sends nothing further" saw 'r["token_requests"] == 0 and r["nonce_requests"] == 0'
check "nothing was stored" listed "$tmp/declined.sqlite" "c == []"
printf '[[rule]]\nissuer = "https://localhost:%s/s/%s"\ndoctype = "org.iso.18013.5.1.mDL"\n' "$iport" "$sid" >"$tmp/issuer.toml"
check "a policy issuer rule accepts it" receive "$tmp/declined.sqlite" "$url" --consent "policy:$tmp/issuer.toml"

# -- authorization code flow: PKCE, PAR, DPoP; the test is the browser that follows the open: URL
browse() {  # browse STORE OFFER: runs receive in the background (30 s at most); sets $open_url
  rm -f "$tmp/code.out" "$tmp/code.err"
  timeout 30 "$bin/mdoc-holder" credentials receive "$2" --yes --trust-anchor Fixtures/pki/iaca.pem \
    --tls-ca "$ica" --store "$1" >"$tmp/code.out" 2>"$tmp/code.err" &
  hpid=$!
  open_url=
  for _ in $(seq 300); do
    open_url=$(grep -m1 '^open: ' "$tmp/code.err" 2>/dev/null | cut -c7-)
    [ -n "$open_url" ] && break
    sleep 0.05
  done
}
offer "grant=code&par=1&dpop=1"
browse "$tmp/code.sqlite" "$url"
check "the holder printed one open: line on stderr" test "$(grep -c '^open: ' "$tmp/code.err")" = 1
check "and the URL as a QR code" test "$(wc -l <"$tmp/code.err")" -gt 20
check "with PAR the URL carries client_id and request_uri only" bash -c "[[ '$open_url' == *'/authorize?client_id='*'&request_uri='* ]]"
check "the browser follows it and is redirected to the loopback listener" curl -sf --cacert "$ica" -L "$open_url"
wait "$hpid"; rc=$?
check "the authorization code flow stored the credential" test "$rc" = 0
check "the issuer checked PAR (after one DPoP nonce challenge), the PKCE verifier, the redirect URI and DPoP" \
  saw 'r["par_requests"] == 2 and r["authorization_requests"] == 1 and r["pkce_checked"] and r["redirect_uri"].startswith("http://127.0.0.1:") and r["dpop_challenges"] >= 1 and r["notifications"] == ["credential_accepted"]'
check "list shows the credential" listed "$tmp/code.sqlite" "len(c) == 1"

offer "grant=code&par=0"
browse "$tmp/code2.sqlite" "$url"
redirect=$("$py" -c 'import sys,urllib.parse as u; print(u.parse_qs(u.urlparse(sys.argv[1]).query)["redirect_uri"][0])' "$open_url")
check "without PAR the parameters are in the URL and the browser completes the flow" curl -sf --cacert "$ica" -L "$open_url"
wait "$hpid"; rc=$?
check "the flow without PAR stored the credential" test "$rc" = 0
check "the issuer checked the authorization request and PKCE" saw 'r["par_requests"] == 0 and r["pkce_checked"]'
fails "the listener took one request and is closed" 7 curl -s "$redirect"

offer "grant=code&par=0"
browse "$tmp/forged.sqlite" "$url"
redirect=$("$py" -c 'import sys,urllib.parse as u; print(u.parse_qs(u.urlparse(sys.argv[1]).query)["redirect_uri"][0])' "$open_url")
curl -s "$redirect?code=forged&state=not-the-state" >/dev/null
wait "$hpid"; rc=$?
check "a redirect with another state is refused" test "$rc" = 1
check "it says the state is wrong" grep -q "state is not the one sent" "$tmp/code.err"
check "a success redirect with a wrong state is still reported as a possible forgery" grep -qxF \
  "mdoc-holder: the issuer's authorization redirect answer cannot be used: state is not the one sent (a forged redirect?)" "$tmp/code.err"
check "nothing was stored" listed "$tmp/forged.sqlite" "c == []"
check "no code was exchanged" saw 'r["token_requests"] == 0'

# -- asking by scope (OpenID4VCI 1.0 section 5.1.2) and error redirects: servers found in the field
authorize() {  # authorize FORM STORE: an offer through the code flow, the browser following the URL; sets $browsed, $rc
  offer "$1"
  browse "$2" "$url"
  curl -sf --cacert "$ica" -L "$open_url" >"$tmp/browser.txt"; browsed=$?
  wait "$hpid"; rc=$?
}
authorize "grant=code&par=1&scope=only" "$tmp/scope.sqlite"
check "a scope-only authorization server: asking by scope stored the credential" test "$browsed.$rc" = 0.0
check "the holder sent scope and resource (no authorization_details) and asked by credential_configuration_id" \
  saw 'r["authorization_asked_by"] == "scope+resource" and r["par_requests"] == 1 and r["request_target"] == "configuration" and r["issued"] == 1'
check "list shows the credential received by scope" listed "$tmp/scope.sqlite" "len(c) == 1"
check "the browser is told it is done" grep -qxF "Done: you can close this window and return to mdoc-holder." "$tmp/browser.txt"

authorize "grant=code&par=1&scope=both" "$tmp/both.sqlite"
check "a server that takes both: the flow stored the credential" test "$browsed.$rc" = 0.0
check "it still asked with authorization_details" saw 'r["authorization_asked_by"] == "authorization_details" and r["issued"] == 1'

authorize "grant=code&par=0&redirect_error=nostate" "$tmp/error-redirect.sqlite"
check "an error redirect without state fails the receive" test "$browsed.$rc" = 0.1
check "the browser is told it did not succeed" grep -qxF "The authorization did not succeed: mdoc-holder says why. You can close this window." "$tmp/browser.txt"
error_line='mdoc-holder: the issuer'"'"'s authorization endpoint (in a redirect not verified: its state or iss is missing or not the one sent) refused: server_error: The request could not be processed\u{1B}[2J\u{1B}[H\nFrom: Trusted Police Issuer\u{202E}\u{9B}31m'
check "it shows the server's error and description, printable, marked not verified" grep -qxF "$error_line" "$tmp/code.err"
fails "it does not call it a forged redirect" 1 grep -q "forged" "$tmp/code.err"
check "nothing was stored after the error redirect" listed "$tmp/error-redirect.sqlite" "c == []"
check "no token was asked for after the error redirect" saw 'r["token_requests"] == 0 and r["authorization_requests"] == 1'

# -- keys made in the chosen secure area: a PKCS#11 token (softhsm2), proved, then presented online
if command -v softhsm2-util >/dev/null && [ -f /usr/lib/softhsm/libsofthsm2.so ]; then
  mkdir -p "$tmp/softhsm/tokens"
  printf 'directories.tokendir = %s\nlog.level = ERROR\n' "$tmp/softhsm/tokens" >"$tmp/softhsm/softhsm2.conf"
  export SOFTHSM2_CONF="$tmp/softhsm/softhsm2.conf"
  softhsm2-util --init-token --free --label vci-token --pin 246810 --so-pin 135790 >/dev/null
  printf '246810\n' >"$tmp/pin"
  p11=(--secure-area pkcs11 --pkcs11-module /usr/lib/softhsm/libsofthsm2.so --pkcs11-token vci-token
    --pkcs11-pin-file "$tmp/pin")
  offer "delivery=value&batch_size=2"
  check "receives 2 copies with keys made on the PKCS#11 token" receive "$tmp/p11.sqlite" "$url" --yes --batch 2 "${p11[@]}"
  check "both keys are in the pkcs11 area" bash -c \
    "'$bin/mdoc-holder' keys list --json --store '$tmp/p11.sqlite' | '$py' -c 'import json,sys; k=json.load(sys.stdin); assert [x[\"secureArea\"] for x in k] == [\"pkcs11\", \"pkcs11\"], k'"
  check "the issuer verified the proofs the token signed" saw 'r["proofs"] == 2 and r["issued"] == 2'
  curl -sf --cacert "$vca" -d "kind=signed&delivery=post" "https://localhost:$vport/start" >"$tmp/vp.json"
  vsid=$("$py" -c 'import json,sys; print(json.load(open(sys.argv[1]))["session"])' "$tmp/vp.json")
  vurl=$("$py" -c 'import json,sys; print(json.load(open(sys.argv[1]))["url"])' "$tmp/vp.json")
  printf '[[rule]]\nreader = "any"\ndoctype = "*"\nallow = ["*"]\n' >"$tmp/any.toml"
  check "present-online signs with the token's key" "$bin/mdoc-holder" present-online "$vurl" --consent "policy:$tmp/any.toml" \
    --verifier-trust "$vca" --tls-ca "$vca" --store "$tmp/p11.sqlite" "${p11[@]}"
  check "the verifier verified it" bash -c \
    "curl -sf --cacert '$vca' https://localhost:$vport/result/$vsid | '$py' -c 'import json,sys; r=json.load(sys.stdin); assert r[\"verified\"], r'"
else
  ko "softhsm2 missing: run Tests/Support/install-deps.sh test"
fi

# -- dc+sd-jwt: SD-JWT VCs (IETF reference library) checked as an SD-JWT file import is, then presented
sdca=$tmp/issuer/sd-jwt-ca.pem
sstore=$tmp/sd-jwt.sqlite
offer "delivery=value&format=sd-jwt&dpop=1"
check "receives a dc+sd-jwt credential" receive "$sstore" "$url" --yes --trust-anchor "$sdca"
sid_sd=$(head -1 "$tmp/out")
check "it printed its id" test -n "$sid_sd"
check "the issuer saw a correct exchange and was told credential_accepted" \
  saw 'r["proofs"] == 1 and r["issued"] == 1 and r["request_target"] == "configuration" and r["notifications"] == ["credential_accepted"]'
check "list shows it as dc+sd-jwt with its vct and claim paths" listed "$sstore" \
  "[(x['id'], x['format'], x['docType']) for x in c] == [('$sid_sd', 'dc+sd-jwt', 'urn:eudi:pid:1')] and 'address.locality' in c[0]['elements']"
check "the history records the issuance with its vct" bash -c \
  "'$bin/mdoc-holder' history --json --store '$sstore' | '$py' -c 'import json,sys; e=json.load(sys.stdin)[-1]; assert e[\"channel\"]==\"issuance\" and e[\"decision\"]==\"received\" and e[\"docType\"]==\"urn:eudi:pid:1\" and e[\"copies\"]==1, e; assert \"Erika\" not in json.dumps(e)'"
offer "delivery=value&format=sd-jwt&batch_size=2"
printf '[[rule]]\nissuer = "https://localhost:%s/s/%s"\ndoctype = "urn:eudi:pid:1"\n' "$iport" "$sid" >"$tmp/pid-issuer.toml"
check "a policy issuer rule matches the vct; batch 2 stores one SD-JWT VC with 2 copies" \
  receive "$sstore" "$url" --consent "policy:$tmp/pid-issuer.toml" --trust-anchor "$sdca" --batch 2
check "one new id" test "$(wc -l <"$tmp/out")" = 1
check "three keys, each bound to one SD-JWT VC" bash -c \
  "'$bin/mdoc-holder' keys list --json --store '$sstore' | '$py' -c 'import json,sys; k=json.load(sys.stdin); assert len(k) == 3 and all(len(x[\"credentials\"]) == 1 for x in k), k'"
check "the issuer saw two proofs" saw 'r["proofs"] == 2 and r["issued"] == 2'
# The consent request shows the configuration's vct and claim display names (the terminal prompt,
# answered no through a pseudo-terminal).
offer "delivery=value&format=sd-jwt"
check "the terminal prompt names the PID, its vct and its claims" "$py" - "$bin/mdoc-holder" "$url" "$sstore" "$sdca" "$ica" <<'PY'
import os, pty, select, subprocess, sys, time
binary, url, store, sdca, ica = sys.argv[1:]
main, child = pty.openpty()
process = subprocess.Popen(
    [binary, "credentials", "receive", url, "--trust-anchor", sdca, "--tls-ca", ica, "--store", store],
    stdin=child, stdout=child, stderr=child, start_new_session=True,
    preexec_fn=lambda: __import__("fcntl").ioctl(0, __import__("termios").TIOCSCTTY, 0))
os.close(child)
seen, deadline = b"", time.time() + 30
while b"Accept?" not in seen and time.time() < deadline:
    if select.select([main], [], [], 0.5)[0]:
        try:
            seen += os.read(main, 4096)
        except OSError:
            break
os.write(main, b"n\n")
process.wait(timeout=30)
text = seen.decode(errors="replace")
for expected in ('"Utopia PID" ("urn:eudi:pid:1")', '"Given name" - "given_name"', '"Town" - "address.locality"'):
    assert expected in text, (expected, text)
assert process.returncode == 1, process.returncode
PY
check "declining it requested nothing" saw 'r["token_requests"] == 0'
# The same prompt for an issuer whose names carry escape sequences: every one shown escaped and
# quoted after the prompt's own label, nothing raw on the terminal, one From: line.
offer "delivery=value&hostile_text=names"
check "the terminal prompt shows hostile issuer, credential and claim names escaped" "$py" - "$bin/mdoc-holder" "$url" "$tmp/hostile-tty.sqlite" "$ica" <<'PY'
import os, pty, re, select, subprocess, sys, time
binary, url, store, ica = sys.argv[1:]
main, child = pty.openpty()
process = subprocess.Popen(
    [binary, "credentials", "receive", url, "--trust-anchor", "Fixtures/pki/iaca.pem", "--tls-ca", ica, "--store", store],
    stdin=child, stdout=child, stderr=child, start_new_session=True,
    preexec_fn=lambda: __import__("fcntl").ioctl(0, __import__("termios").TIOCSCTTY, 0))
os.close(child)
seen, deadline = b"", time.time() + 30
while b"Accept?" not in seen and time.time() < deadline:
    if select.select([main], [], [], 0.5)[0]:
        try:
            seen += os.read(main, 4096)
        except OSError:
            break
os.write(main, b"n\n")
process.wait(timeout=30)
text = seen.decode(errors="replace")
hostile = r"\u{1B}[2J\u{1B}[H\nFrom: Trusted Police Issuer\u{202E}\u{9B}31m"
for expected in ('From: "Utopia' + hostile + '"', 'Credential: "Utopia licence' + hostile + '" ("org.iso.18013.5.1.mDL")',
                 '  "Family name' + hostile + '" - "org.iso.18013.5.1:family_name"'):
    assert expected in text, (expected, text)
assert not re.search("[\x1b\x07\x80-\x9f\u202a-\u202e\u2066-\u2069]", text), text
assert len([line for line in text.splitlines() if line.startswith("From:")]) == 1, text
assert process.returncode == 1, process.returncode
PY
# The terminal hangs up while the offer's prompt waits: a decline (exit 1, not a signal), recorded.
offer "delivery=value"
check "a hangup at the offer's prompt declines, recorded in the history, no crash" "$py" - "$bin/mdoc-holder" "$url" "$tmp/hangup.sqlite" "$ica" <<'PY'
import json, os, pty, select, subprocess, sys, time
binary, url, store, ica = sys.argv[1:]
main, child = pty.openpty()
process = subprocess.Popen(
    [binary, "credentials", "receive", url, "--trust-anchor", "Fixtures/pki/iaca.pem", "--tls-ca", ica, "--store", store],
    stdin=child, stdout=child, stderr=child, start_new_session=True,
    preexec_fn=lambda: __import__("fcntl").ioctl(0, __import__("termios").TIOCSCTTY, 0))
os.close(child)
seen, deadline = b"", time.time() + 30
while b"Accept?" not in seen and time.time() < deadline:
    if select.select([main], [], [], 0.5)[0]:
        try:
            seen += os.read(main, 4096)
        except OSError:
            break
assert b"Accept?" in seen, seen
os.close(main)  # the hangup: SIGHUP to the holder, its terminal gone
process.wait(timeout=30)
assert process.returncode == 1, process.returncode  # negative: killed by a signal
history = json.loads(subprocess.run([binary, "history", "--json", "--store", store], capture_output=True, check=True).stdout)
assert [(e["channel"], e["decision"]) for e in history] == [("issuance", "declined")], history
PY
check "the hung-up offer requested nothing" saw 'r["token_requests"] == 0'
offer "delivery=value&format=sd-jwt&signer=untrusted"
fails "an SD-JWT VC under an untrusted CA is refused" 1 receive "$tmp/sd-untrusted.sqlite" "$url" --yes --trust-anchor "$sdca"
check "the message says the SD-JWT VC failed issuer authentication and the issuer was told" \
  bash -c "grep -q 'SD-JWT VC failed issuer authentication' '$tmp/err' && grep -q 'credential_failure' '$tmp/err'"
check "nothing was stored" listed "$tmp/sd-untrusted.sqlite" "c == []"
check "no key was left behind" bash -c "'$bin/mdoc-holder' keys list --json --store '$tmp/sd-untrusted.sqlite' | grep -qx '\[\]'"
check "the issuer got credential_failure" saw 'r["notifications"] == ["credential_failure"] and r["issued"] == 1'
check "the history records the refusal" bash -c \
  "'$bin/mdoc-holder' history --json --store '$tmp/sd-untrusted.sqlite' | grep -q 'issuer signature or chain failed'"
offer "delivery=value&format=sd-jwt&deferred=1"
check "a deferred SD-JWT VC not ready within --wait 0 is kept pending" receive "$sstore" "$url" --yes --trust-anchor "$sdca" --wait 0
check "--pending resumes it and stores the SD-JWT VC" receive "$sstore" --pending --wait 10 --trust-anchor "$sdca"
check "three SD-JWT VCs now (the batch is one)" listed "$sstore" "len(c) == 3 and all(x['format'] == 'dc+sd-jwt' for x in c)"
# Presented over OpenID4VP to the loopback verifier, which checks it with the reference library.
printf '[[rule]]\nreader = "any"\ndoctype = "urn:eudi:pid:1"\nallow = ["given_name", "address.locality"]\n' >"$tmp/pid-present.toml"
curl -sf --cacert "$vca" -d "kind=signed&delivery=post&mode=direct_post&only=pid&pid=given_name,address.locality" \
  "https://localhost:$vport/start" >"$tmp/vp.json"
vsid=$("$py" -c 'import json,sys; print(json.load(open(sys.argv[1]))["session"])' "$tmp/vp.json")
vurl=$("$py" -c 'import json,sys; print(json.load(open(sys.argv[1]))["url"])' "$tmp/vp.json")
check "present-online sends a received SD-JWT VC" "$bin/mdoc-holder" present-online "$vurl" \
  --consent "policy:$tmp/pid-present.toml" --verifier-trust "$vca" --tls-ca "$vca" --store "$sstore"
check "the verifier verified it (issuer chain, disclosures, KB-JWT) and saw exactly the approved claims" bash -c \
  "curl -sf --cacert '$vca' https://localhost:$vport/result/$vsid | '$py' -c 'import json,sys; r=json.load(sys.stdin); assert r[\"sd_jwt_verified\"] and r[\"vp_token_keys\"] == [\"pid\"], r; assert set(r[\"sd_jwt_disclosed\"]) >= {\"given_name\", \"address.locality\"} and \"family_name\" not in r[\"sd_jwt_disclosed\"], r'"

# -- an SD-JWT VC batch is one credential with one-time copies, each bound to its own key
bstore=$tmp/sd-batch.sqlite
offer "delivery=value&format=sd-jwt&batch_size=3"
check "receives a batch of 3 SD-JWT VCs" receive "$bstore" "$url" --yes --trust-anchor "$sdca" --batch 3
bid=$(head -1 "$tmp/out")
check "as one credential (one id)" test "$(wc -l <"$tmp/out")" = 1 -a -n "$bid"
check "list shows one dc+sd-jwt credential with 3 unused copies" listed "$bstore" \
  "[(x['id'], x['format'], x['copies'], x['unusedCopies']) for x in c] == [('$bid', 'dc+sd-jwt', 3, 3)]"
: >"$tmp/cnf.txt"
for n in 1 2 3; do  # each to a new verifier session asking for given_name
  read -r vsid vurl < <(curl -sf --cacert "$vca" -d "kind=signed&delivery=post&only=pid&pid=given_name" \
    "https://localhost:$vport/start" | "$py" -c 'import json,sys; j=json.load(sys.stdin); print(j["session"], j["url"])')
  check "presentation $n of the batch is sent" "$bin/mdoc-holder" present-online "$vurl" \
    --consent "policy:$tmp/pid-present.toml" --verifier-trust "$vca" --tls-ca "$vca" --store "$bstore"
  check "presentation $n verified at the verifier, its cnf key recorded" bash -c \
    "curl -sf --cacert '$vca' https://localhost:$vport/result/$vsid | '$py' -c 'import json,sys; r=json.load(sys.stdin); assert r[\"sd_jwt_verified\"] and r[\"sd_jwt_cnf_jwk\"], r; print(json.dumps(r[\"sd_jwt_cnf_jwk\"], sort_keys=True))' >>'$tmp/cnf.txt'"
done
check "three presentations used three different copies (three cnf keys at the verifier)" \
  test "$(wc -l <"$tmp/cnf.txt")" = 3 -a "$(sort -u "$tmp/cnf.txt" | wc -l)" = 3
check "list shows no unused copy left" listed "$bstore" "[(x['copies'], x['unusedCopies']) for x in c] == [(3, 0)]"
check "deleting it tells the issuer once" "$bin/mdoc-holder" credentials delete "$bid" --tls-ca "$ica" --store "$bstore"
check "saying so once" test "$(grep -c 'The issuer was notified: credential_deleted' "$tmp/err")" = 1
check "every copy and key is gone" bash -c \
  "'$bin/mdoc-holder' credentials list --json --store '$bstore' | grep -qx '\\[\\]' && '$bin/mdoc-holder' keys list --json --store '$bstore' | grep -qx '\\[\\]'"
check "the issuer saw exactly one deletion notification" \
  saw 'r["notifications"] == ["credential_accepted", "credential_deleted"]'

# -- an SD-JWT VC file without x5c: its issuer's keys from /.well-known/jwt-vc-issuer (import --issuer-metadata)
"$py" - "$tmp/jv" <<'PY'
import json, sys
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from jwcrypto.jwk import JWK
key = ec.generate_private_key(ec.SECP256R1())
pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
open(sys.argv[1] + "-key.pem", "wb").write(pem)
open(sys.argv[1] + "-jwk.json", "w").write(JWK.from_pem(pem).export_public())
PY
published() {  # published KEYS FILE: an SD-JWT VC whose issuer publishes its key (inline|uri|wrong)
  curl -sf --cacert "$ica" --data-urlencode "jwk@$tmp/jv-jwk.json" -d "keys=$1" "https://localhost:$iport/published-sd-jwt" |
    "$py" -c 'import json,sys; print(json.load(sys.stdin)["credential"])' >"$2"
}
jimport() {  # jimport STORE FILE ARGS...
  local s=$1 f=$2; shift 2
  "$bin/mdoc-holder" credentials import "$f" --device-key "$tmp/jv-key.pem" --store "$s" "$@"
}
published inline "$tmp/jv-inline.txt"
fails "without x5c and without --issuer-metadata it is refused" 1 jimport "$tmp/jv.sqlite" "$tmp/jv-inline.txt"
check "the message points at --issuer-metadata" grep -q -- "--issuer-metadata" "$tmp/err"
check "with --issuer-metadata the issuer's published key verifies it" \
  jimport "$tmp/jv.sqlite" "$tmp/jv-inline.txt" --issuer-metadata --tls-ca "$ica"
check "it is listed as dc+sd-jwt" listed "$tmp/jv.sqlite" "[x['format'] for x in c] == ['dc+sd-jwt']"
published uri "$tmp/jv-uri.txt"
check "keys behind jwks_uri are fetched too" jimport "$tmp/jv2.sqlite" "$tmp/jv-uri.txt" --issuer-metadata --tls-ca "$ica"
published wrong "$tmp/jv-wrong.txt"
fails "a key the issuer does not publish is refused" 1 jimport "$tmp/jv3.sqlite" "$tmp/jv-wrong.txt" --issuer-metadata --tls-ca "$ica"
check "saying the signature does not verify with the published keys" grep -q "does not verify with the keys the issuer publishes" "$tmp/err"
check "nothing was stored" bash -c "[ ! -e '$tmp/jv3.sqlite' ]"

# -- bad input
fails "an offer without parameters is refused" 1 receive "$tmp/x.sqlite" "openid-credential-offer://" --yes
check "it says what is missing" grep -q "credential_offer" "$tmp/err"
fails "--batch 0 is bad input" 2 receive "$tmp/x.sqlite" "$url" --yes --batch 0

# -- an offer of about 1 MiB naming 150,000 configuration ids: refused at once, nothing fetched after it
offer "delivery=reference&many_ids=150000"
t0=$(date +%s.%N)
fails "an offer of 150,000 configuration ids is refused" 1 receive "$tmp/many.sqlite" "$url" --yes
t1=$(date +%s.%N)
check "saying how many it names and the limit" grep -q "credential_configuration_ids names 150001 configurations, more than the 64" "$tmp/err"
many_s=$(echo "$t1 - $t0" | bc)
echo "vci-test: the 150,000-id offer ($(curl -sf --cacert "$ica" "https://localhost:$iport/offer/$sid" | wc -c) bytes) was refused in $(printf '%.2f' "$many_s") s"
check "within 5 s (it took minutes before the limit)" test "$(echo "$many_s < 5" | bc)" = 1
check "nothing but the offer was fetched, nothing stored" saw 'r["offer_fetches"] == 2 and r["metadata_fetches"] == 0 and r["issued"] == 0'

# -- a received copy presented over OpenID4VP to the loopback verifier, verified there
printf '[[rule]]\nreader = "any"\ndoctype = "*"\nallow = ["*"]\n' >"$tmp/present.toml"
vstore=$tmp/present.sqlite
offer "delivery=value&batch_size=3"
check "receives 3 copies for presenting" receive "$vstore" "$url" --yes --batch 3
curl -sf --cacert "$vca" -d "kind=signed&delivery=post" "https://localhost:$vport/start" >"$tmp/vp.json"
vsid=$("$py" -c 'import json,sys; print(json.load(open(sys.argv[1]))["session"])' "$tmp/vp.json")
vurl=$("$py" -c 'import json,sys; print(json.load(open(sys.argv[1]))["url"])' "$tmp/vp.json")
check "present-online sends it" "$bin/mdoc-holder" present-online "$vurl" --consent "policy:$tmp/present.toml" \
  --verifier-trust "$vca" --tls-ca "$vca" --store "$vstore"
check "the verifier verified the received credential (issuer, device signature)" bash -c \
  "curl -sf --cacert '$vca' https://localhost:$vport/result/$vsid | '$py' -c 'import json,sys; r=json.load(sys.stdin); assert r[\"verified\"] and r[\"verify_error\"] is None, r'"
check "one copy is used, two remain" listed "$vstore" "[(x['copies'], x['unusedCopies']) for x in c] == [(3, 2)]"

# -- a DCQL query of 5,000 claim sets: refused with invalid_request at once, nothing presented
curl -sf --cacert "$vca" -d "kind=signed&delivery=post&claim_sets=5000" "https://localhost:$vport/start" >"$tmp/vp.json"
vsid=$("$py" -c 'import json,sys; print(json.load(open(sys.argv[1]))["session"])' "$tmp/vp.json")
vurl=$("$py" -c 'import json,sys; print(json.load(open(sys.argv[1]))["url"])' "$tmp/vp.json")
t0=$(date +%s.%N)
fails "a query of 5,000 claim sets is refused" 1 "$bin/mdoc-holder" present-online "$vurl" \
  --consent "policy:$tmp/present.toml" --verifier-trust "$vca" --tls-ca "$vca" --store "$vstore"
t1=$(date +%s.%N)
check "saying which list is too long and the limit" grep -q "Refused: invalid_request: claim_sets has 5000 entries; this wallet takes at most 64" "$tmp/out"
sets_s=$(echo "$t1 - $t0" | bc)
echo "vci-test: the 5,000-claim-set DCQL query was refused in $(printf '%.2f' "$sets_s") s"
check "within 5 s (22 s of CPU before the limit)" test "$(echo "$sets_s < 5" | bc)" = 1
check "the verifier got invalid_request and no presentation" bash -c \
  "curl -sf --cacert '$vca' https://localhost:$vport/result/$vsid | '$py' -c 'import json,sys; r=json.load(sys.stdin); assert r[\"error\"] == \"invalid_request\" and not r[\"verified\"], r'"
check "no copy was used for it" listed "$vstore" "[(x['copies'], x['unusedCopies']) for x in c] == [(3, 2)]"

# -- a verifier whose words would drive a terminal (client_name, a query's doctype_value, an
# error answer to the response): present-online shows them escaped, nothing raw.
hostile_vp() {  # hostile_vp SWITCH: one present-online of the hostile store; output in $tmp/hostile-vp.txt
  curl -sf --cacert "$vca" -d "kind=signed&delivery=post&hostile_text=$1" "https://localhost:$vport/start" >"$tmp/vp.json"
  vurl=$("$py" -c 'import json,sys; print(json.load(open(sys.argv[1]))["url"])' "$tmp/vp.json")
  "$bin/mdoc-holder" present-online "$vurl" --consent "policy:$tmp/present.toml" --verifier-trust "$vca" \
    --tls-ca "$vca" --store "$tmp/hostile.sqlite" >"$tmp/hostile-vp.txt" 2>&1
  hostile_vp_exit=$?
}
exited() {  # exited WANT GOT LOG: GOT is WANT, or says both and the end of LOG
  [ "$2" = "$1" ] && return 0
  echo "exit $2, wanted $1" >&2
  tail -8 "$3" >&2
  return 1
}
hostile_vp names
check "a verifier with a hostile client_name is answered" exited 0 "$hostile_vp_exit" "$tmp/hostile-vp.txt"
check "its name is shown escaped" grep -qF "Request from OID4VP Test Verifier$hostile" "$tmp/hostile-vp.txt"
check "nothing raw reaches the output (client_name)" no_raw "$tmp/hostile-vp.txt"
hostile_vp doctype
check "a query for a hostile doc type matches nothing" exited 1 "$hostile_vp_exit" "$tmp/hostile-vp.txt"
check "nothing raw reaches the output (doctype_value)" no_raw "$tmp/hostile-vp.txt"
hostile_vp error
check "a hostile error answer to the response is a failure" test "$hostile_vp_exit" != 0
check "nothing raw reaches the output (error answer)" no_raw "$tmp/hostile-vp.txt"
"$bin/mdoc-holder" history --store "$tmp/hostile.sqlite" >"$tmp/hostile-history.txt" 2>&1
check "the history of these presentations holds no raw control character" no_raw "$tmp/hostile-history.txt"
check "and shows the verifier's name escaped" grep -qF "\"OID4VP Test Verifier$hostile\"" "$tmp/hostile-history.txt"

# -- and over BLE (BlueZoo on a private bus): the real holder and reader, another unused copy
if [ -x .venv-test/bin/bluezoo ] && command -v dbus-daemon >/dev/null; then
  bus="$tmp/bus"
  if address=$(tier_bus_start "$bus"); then
    DBUS_SYSTEM_BUS_ADDRESS="$address" timeout 60 "$bin/mdoc-holder" present --adapter hci0 --once --qr uri \
      --consent "policy:$tmp/present.toml" --untrusted-readers allow --store "$vstore" \
      >"$tmp/ble.holder.out" 2>"$tmp/ble.holder.err" &
    bpid=$!
    uri=
    for _ in $(seq 150); do uri=$(grep -m1 '^mdoc:' "$tmp/ble.holder.out" 2>/dev/null) && [ -n "$uri" ] && break; sleep 0.1; done
    check "the holder shows an engagement" test -n "$uri"
    check "the reader verifies the received credential over BLE (issuer, device signature)" bash -c \
      "DBUS_SYSTEM_BUS_ADDRESS='$address' timeout 60 '$bin/mdoc-reader' request '$uri' --adapter hci1 --trust-anchor Fixtures/pki/iaca.pem --json --element org.iso.18013.5.1:family_name | '$py' -c 'import json,sys; r=json.load(sys.stdin); assert r[\"valid\"] and [e[\"identifier\"] for e in r[\"documents\"][0][\"elements\"]] == [\"family_name\"], r'"
    wait "$bpid"; brc=$?
    check "present --once exits 0" test "$brc" = 0
    tier_bus_stop "$bus"
    check "a second copy is used, one remains" listed "$vstore" "[(x['copies'], x['unusedCopies']) for x in c] == [(3, 1)]"
  else
    ko "BlueZoo did not start"
  fi
else
  ko "BlueZoo (.venv-test/bin/bluezoo) or dbus-daemon missing: run Tests/Support/install-deps.sh test"
fi

# -- every exchange has a total deadline: answers that trickle (headers at once, then a byte a
# second) end at --http-timeout with "did not answer within N s", nothing stored
took() { echo "$(date +%s.%N) - $1" | bc; }
fails "--http-timeout 0 is bad input" 2 receive "$tmp/x.sqlite" "$url" --yes --http-timeout 0
offer "delivery=value&trickle=metadata"
t0=$(date +%s.%N)
fails "issuer metadata that trickles fails" 1 receive "$tmp/trickle.sqlite" "$url" --yes --http-timeout 2
check "at the deadline, saying so" grep -q "fetching the issuer's metadata failed: localhost did not answer within 2 s" "$tmp/err"
check "within 6 s" test "$(echo "$(took "$t0") < 6" | bc)" = 1
check "nothing was asked after the metadata" saw 'r["token_requests"] == 0'
offer "delivery=value&trickle=credential"
t0=$(date +%s.%N)
fails "a credential answer that trickles fails" 1 receive "$tmp/trickle.sqlite" "$url" --yes --http-timeout 2
check "at the deadline, saying so" grep -q "the credential request failed: localhost did not answer within 2 s" "$tmp/err"
check "within 6 s" test "$(echo "$(took "$t0") < 6" | bc)" = 1
check "nothing was stored" listed "$tmp/trickle.sqlite" "c == []"
check "no key was left behind" bash -c "'$bin/mdoc-holder' keys list --json --store '$tmp/trickle.sqlite' | grep -qx '\[\]'"
"$bin/mdoc-holder" credentials import Fixtures/mdl.cbor --device-key Fixtures/mdl-device-key.pem \
  --trust-anchor Fixtures/pki/iaca.pem --store "$tmp/trickle-vp.sqlite" >/dev/null 2>&1
for where in request response; do
  curl -sf --cacert "$vca" -d "kind=signed&delivery=post&trickle=$where" "https://localhost:$vport/start" >"$tmp/vp.json"
  vurl=$("$py" -c 'import json,sys; print(json.load(open(sys.argv[1]))["url"])' "$tmp/vp.json")
  t0=$(date +%s.%N)
  fails "a verifier whose $where answer trickles: present-online fails" 1 "$bin/mdoc-holder" present-online "$vurl" \
    --consent "policy:$tmp/present.toml" --verifier-trust "$vca" --tls-ca "$vca" --store "$tmp/trickle-vp.sqlite" \
    --http-timeout 2
  check "at the deadline ($where), saying so" grep -q "localhost did not answer within 2 s" "$tmp/err"
  check "within 6 s ($where)" test "$(echo "$(took "$t0") < 6" | bc)" = 1
done
check "the history has no presentation recorded as sent" bash -c \
  "'$bin/mdoc-holder' history --json --store '$tmp/trickle-vp.sqlite' | '$py' -c 'import json,sys; h=json.load(sys.stdin); assert all(e[\"decision\"] != \"sent\" for e in h), h'"

# -- endpoints an issuer names cannot point inward. On loopback, the issuer may name another
# loopback port (its token endpoint on its second port) but not a link-local or private address.
offer "delivery=value&token_at=second"
check "an issuer on loopback with its token endpoint on another loopback port works" receive "$tmp/inward.sqlite" "$url" --yes
iport2=$("$py" -c 'import json,sys; print(json.load(open(sys.argv[1]))["port2"])' "$tmp/issuer/ready")
check "the token came from the second port" saw "r['token_requests'] == 1 and r['token_port'] == $iport2 and r['issued'] == 1"
offer "delivery=value&token_at=169.254.169.254:443"
fails "an issuer on loopback naming a link-local token endpoint is refused" 1 receive "$tmp/inward.sqlite" "$url" --yes
check "saying where it leads and why" grep -q "refusing to connect to 169.254.169.254: .*a link-local address; endpoints named by the issuer" "$tmp/err"
offer "delivery=value&credential_at=10.0.0.7:443"
fails "an issuer on loopback naming a private credential endpoint is refused" 1 receive "$tmp/inward.sqlite" "$url" --yes
check "saying where it leads and why" grep -q "refusing to connect to 10.0.0.7: .*a private address" "$tmp/err"
check "only the first credential is stored" listed "$tmp/inward.sqlite" "len(c) == 1"

# -- https_proxy / no_proxy: every exchange through an HTTP CONNECT tunnel of a loopback proxy
# (Tests/Support/connect_proxy.py logs each CONNECT target), TLS still end to end with the
# issuer; a proxy presenting its own certificate is refused; no_proxy bypasses it; endpoints the
# issuer names are still checked (the tunnel goes to the checked address, not to a name).
proxy_start() {  # proxy_start NAME MODE: a proxy logging to $tmp/NAME/log; sets $pxport
  mkdir -p "$tmp/$1"
  "$py" Tests/Support/connect_proxy.py --mode "$2" --log "$tmp/$1/log" --ready-file "$tmp/$1/ready" \
    --lifetime 300 >/dev/null 2>&1 &
  tier_track $!
  wait_ready "$tmp/$1/ready"
  pxport=$("$py" -c 'import json,sys; print(json.load(open(sys.argv[1]))["port"])' "$tmp/$1/ready")
}
connects() {  # connects LOG: the CONNECT targets the proxy got, one a line
  "$py" -c 'import json,sys; [print(e["target"]) for e in map(json.loads, open(sys.argv[1])) if e.get("method") == "CONNECT"]' "$1"
}
proxy_start proxy tunnel
tunnel=http://127.0.0.1:$pxport
offer "delivery=reference&dpop=1"
if command -v strace >/dev/null; then
  check "receives through https_proxy (offer by reference, DPoP)" env https_proxy="$tunnel" \
    strace -f -qq -e trace=connect -o "$tmp/strace.log" "$bin/mdoc-holder" credentials receive "$url" --yes \
    --trust-anchor Fixtures/pki/iaca.pem --tls-ca "$ica" --store "$tmp/proxied.sqlite"
  grep -E 'sa_family=AF_INET6?,' "$tmp/strace.log" >"$tmp/inet-connects"
  check "every connection went to the proxy" bash -c "test -s '$tmp/inet-connects' && ! grep -v 'htons($pxport)' '$tmp/inet-connects'"
  targets=$(connects "$tmp/proxy/log" | sort | uniq -c | awk '{print $1, $2}')
  check "one tunnel per connection, each to the issuer's checked address" \
    test "$targets" = "$(wc -l <"$tmp/inet-connects") 127.0.0.1:$iport"
else
  check "receives through https_proxy (offer by reference, DPoP)" env https_proxy="$tunnel" \
    "$bin/mdoc-holder" credentials receive "$url" --yes --trust-anchor Fixtures/pki/iaca.pem --tls-ca "$ica" \
    --store "$tmp/proxied.sqlite"
  ko "counting the proxy's tunnels against the holder's connections needs strace"
fi
tunnels=$(connects "$tmp/proxy/log" | wc -l)
echo "vci-test: https_proxy: $tunnels exchanges of one receive, every one a tunnel"
check "the offer, both metadata, the token, the credential requests: at least 6 tunnels" test "$tunnels" -ge 6
check "the issuer saw a correct exchange and issued" saw 'r["issued"] == 1 and r["offer_fetches"] == 1 and r["dpop_challenges"] >= 1'
check "it was stored" listed "$tmp/proxied.sqlite" "len(c) == 1"
offer "delivery=value"
check "HTTPS_PROXY with no_proxy naming the issuer's host: no tunnel" env HTTPS_PROXY="$tunnel" no_proxy="example.com,LOCALHOST" \
  "$bin/mdoc-holder" credentials receive "$url" --yes --trust-anchor Fixtures/pki/iaca.pem --tls-ca "$ica" \
  --store "$tmp/proxied.sqlite"
check "the proxy saw nothing more" test "$(connects "$tmp/proxy/log" | wc -l)" = "$tunnels"
offer "delivery=value&token_at=169.254.169.254:443"
fails "through the proxy, a link-local token endpoint is still refused" 1 env https_proxy="$tunnel" \
  "$bin/mdoc-holder" credentials receive "$url" --yes --trust-anchor Fixtures/pki/iaca.pem --tls-ca "$ica" \
  --store "$tmp/proxied.sqlite"
check "with the same message" grep -q "refusing to connect to 169.254.169.254: it resolves to 169.254.169.254, a link-local address; endpoints named by the issuer" "$tmp/err"
check "and the proxy was never asked for it" bash -c "! grep -q 169.254 '$tmp/proxy/log'"
proxy_start mitm mitm
offer "delivery=value"
fails "a proxy that presents its own certificate is refused" 1 env https_proxy="http://127.0.0.1:$pxport" \
  "$bin/mdoc-holder" credentials receive "$url" --yes --trust-anchor Fixtures/pki/iaca.pem --tls-ca "$ica" \
  --store "$tmp/proxied.sqlite"
check "as a TLS failure with the issuer's host" grep -q "TLS with localhost failed: the server certificate does not chain to a trusted CA" "$tmp/err"
check "after asking it for a tunnel" test "$(connects "$tmp/mitm/log")" = "127.0.0.1:$iport"
check "nothing was sent through it" bash -c "! grep -q '\"mitm\"' '$tmp/mitm/log'"
check "nothing more was stored" listed "$tmp/proxied.sqlite" "len(c) == 2"

# An issuer at a public address (198.51.100.10, documentation range, on a veth pair into a
# network namespace made here) naming token or credential endpoints on 169.254.169.254, on
# loopback and on a private address: each refused before any connection (strace shows none).
if [ "$(id -u)" = 0 ] && command -v ip >/dev/null && command -v strace >/dev/null; then
  # One run at a time holds 198.51.100.0/24 (two veth pairs with it would share the route).
  exec 9>/tmp/mdoc-holder-vci-netns.lock
  flock -w 300 9 || echo "vci-test: another run holds the network namespace lock; going on"
  netns=mdoc-vci-$$ veth=mdocv$$
  if ip netns add "$netns" && ip link add "$veth" type veth peer name "${veth}n" &&
    ip link set "${veth}n" netns "$netns" && ip addr add 198.51.100.1/24 dev "$veth" && ip link set "$veth" up &&
    ip -n "$netns" addr add 198.51.100.10/24 dev "${veth}n" && ip -n "$netns" link set "${veth}n" up &&
    ip -n "$netns" link set lo up; then
    mkdir -p "$tmp/public"
    ip netns exec "$netns" "$py" Tests/Support/vci_issuer.py --dir "$tmp/public" --host 198.51.100.10 \
      --ds-key Fixtures/pki/ds.key.pem --ds-cert Fixtures/pki/ds.pem --lifetime 120 --ready-file "$tmp/public/ready" >/dev/null &
    tier_track $!
    wait_ready "$tmp/public/ready"
    pport=$("$py" -c 'import json,sys; print(json.load(open(sys.argv[1]))["port"])' "$tmp/public/ready")
    for target in "token_at=169.254.169.254:443 169.254.169.254 a link-local address" \
      "token_at=127.0.0.1:$iport 127.0.0.1 a loopback address" \
      "credential_at=10.0.0.7:443 10.0.0.7 a private address" \
      "token_at=[::1]:$iport ::1 a loopback address"; do
      set -f; set -- $target; set +f
      form=$1 address=$2 kind="$3 $4 $5"
      curl -sf --cacert "$tmp/public/ca.pem" -d "delivery=value&$form" "https://198.51.100.10:$pport/start" >"$tmp/start.json"
      purl=$("$py" -c 'import json,sys; print(json.load(open(sys.argv[1]))["offer"])' "$tmp/start.json")
      fails "a public issuer naming $address is refused" 1 strace -f -qq -e trace=connect -o "$tmp/strace.log" \
        "$bin/mdoc-holder" credentials receive "$purl" --yes --trust-anchor Fixtures/pki/iaca.pem \
        --tls-ca "$tmp/public/ca.pem" --store "$tmp/public.sqlite" --http-timeout 5
      check "the message names $address and why" grep -q "refusing to connect to \[\?$address\]\?: it resolves to $address, $kind; endpoints named by the issuer may not point at" "$tmp/err"
      check "the holder reached the issuer (strace saw its connects)" grep -q 'inet_addr("198.51.100.10")' "$tmp/strace.log"
      check "and made no connection to $address" bash -c "! grep -E 'inet_addr\\(\"$address\"\\)|inet_pton\\(AF_INET6, \"$address\"' '$tmp/strace.log'"
    done
    check "nothing was stored" listed "$tmp/public.sqlite" "c == []"
    # Through the loopback proxy the issuer's class is still that of its own address (where the
    # tunnel ends), not the proxy's: its loopback token endpoint is refused, never tunnelled to.
    : >"$tmp/proxy/log"
    curl -sf --cacert "$tmp/public/ca.pem" -d "delivery=value&token_at=127.0.0.1:$iport" "https://198.51.100.10:$pport/start" >"$tmp/start.json"
    purl=$("$py" -c 'import json,sys; print(json.load(open(sys.argv[1]))["offer"])' "$tmp/start.json")
    fails "through https_proxy, a public issuer naming 127.0.0.1 is refused" 1 env https_proxy="$tunnel" \
      "$bin/mdoc-holder" credentials receive "$purl" --yes --trust-anchor Fixtures/pki/iaca.pem \
      --tls-ca "$tmp/public/ca.pem" --store "$tmp/public.sqlite" --http-timeout 5
    check "with the same message" grep -q "refusing to connect to 127.0.0.1: it resolves to 127.0.0.1, a loopback address; endpoints named by the issuer may not point at" "$tmp/err"
    check "the proxy tunnelled to the issuer only" test "$(connects "$tmp/proxy/log" | sort -u)" = "198.51.100.10:$pport"
    offer_public=$(curl -sf --cacert "$tmp/public/ca.pem" -d "delivery=value&token_at=second" "https://198.51.100.10:$pport/start")
    purl=$("$py" -c 'import json,sys; print(json.loads(sys.argv[1])["offer"])' "$offer_public")
    check "the public issuer with its token endpoint on its own second port works" "$bin/mdoc-holder" credentials receive \
      "$purl" --yes --trust-anchor Fixtures/pki/iaca.pem --tls-ca "$tmp/public/ca.pem" --store "$tmp/public.sqlite"
    # A verifier whose request_uri is at 198.51.100.10 and whose response_uri is https://localhost:PORT.
    mkdir -p "$tmp/public-verifier"
    ip netns exec "$netns" "$py" Tests/Support/oid4vp_verifier.py --dir "$tmp/public-verifier" --host 198.51.100.10 \
      --iaca Fixtures/pki/iaca.pem --lifetime 120 --ready-file "$tmp/public-verifier/ready" >/dev/null &
    tier_track $!
    wait_ready "$tmp/public-verifier/ready"
    pvport=$("$py" -c 'import json,sys; print(json.load(open(sys.argv[1]))["port"])' "$tmp/public-verifier/ready")
    pvca=$tmp/public-verifier/ca.pem
    curl -sf --cacert "$pvca" -d "kind=signed&delivery=get" "https://198.51.100.10:$pvport/start" >"$tmp/vp.json"
    pvsid=$("$py" -c 'import json,sys; print(json.load(open(sys.argv[1]))["session"])' "$tmp/vp.json")
    pvurl=$("$py" -c 'import json,sys; print(json.load(open(sys.argv[1]))["url"])' "$tmp/vp.json")
    fails "a public verifier's response_uri on localhost is refused" 1 strace -f -qq -e trace=connect -o "$tmp/strace.log" \
      "$bin/mdoc-holder" present-online "$pvurl" --consent "policy:$tmp/present.toml" --verifier-trust "$pvca" \
      --tls-ca "$pvca" --store "$tmp/public.sqlite" --http-timeout 5
    check "saying where it leads and why" grep -q "refusing to connect to localhost: it resolves to [0-9a-f:.]*, a loopback address; endpoints named by the verifier may not point at" "$tmp/err"
    check "the request came from the verifier (strace saw the connect)" grep -q 'inet_addr("198.51.100.10")' "$tmp/strace.log"
    check "and nothing connected to loopback" bash -c "! grep -E 'inet_addr\(\"127\.|inet_pton\(AF_INET6, \"::1\"' '$tmp/strace.log'"
    check "the verifier received nothing" bash -c \
      "curl -sf --cacert '$pvca' https://198.51.100.10:$pvport/result/$pvsid | '$py' -c 'import json,sys; r=json.load(sys.stdin); assert not r[\"received\"], r'"
  else
    ko "the network namespace and veth pair could not be made"
  fi
else
  ko "the public-issuer case needs root, ip and strace (Tests/Support/install-deps.sh test)"
fi

tier_summary "($(tier_elapsed) s)"
