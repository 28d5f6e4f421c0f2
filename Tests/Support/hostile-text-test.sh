#!/usr/bin/env bash
# Text from the other side never drives the terminal or the log (issue 32): a hostile reader
# over BlueZoo requests a doc type, a namespace and element identifiers carrying escape
# sequences (ESC[2J ESC[H, OSC), a right-to-left override and newlines, signed with a reader
# certificate whose CN carries them too; the holder holds a credential of that doc type (issued
# here), so the terminal consent prompt shows all of it. The prompt runs under tmux (a real
# pseudo-terminal; `capture-pane` is the screen as rendered). Then `history`, `credentials
# list` and the service log (`serve --kiosk`) show the same text escaped; and the prompt under a
# pseudo-terminal that is hung up declines, is recorded, and does not crash.
# Usage: Tests/Support/hostile-text-test.sh [BIN_DIR]
set -uo pipefail
cd "$(dirname "$0")/../.."
bin=${1:-.build/debug}
export LC_ALL=C.UTF-8
py=.venv-test/bin/python3
. Tests/Support/lib/tier.sh
tier_begin hostile-text
tier_tail=20
session="mdoc-hostile-$$"
holder_pid="" reader_pid="" serve_pid=""
tier_at_exit 'tmux kill-session -t "$session" 2>/dev/null'
tier_track_variables holder_pid reader_pid serve_pid

# The hostile words. The element identifiers hold no ":" (mdoc-reader splits ns:id at the last).
doctype=$'org.iso.18013.5.1.mDL\e[2J\e[H\nFrom: Trusted Police Issuer\u202E'
namespace=$'org.example\e[2J\e[H\nFrom: Trusted Police Issuer - trusted by CN=Police Root'
element=$'name\e]0;pwned\a\u202Egpj.exe\n  2   Share? [a]ll'
element2=$'age\r\e[31mover_18\u2066'
cn=$'\e[2J\e[HFrom: Police\u202E\u009B2J\nX'

# A credential of the hostile doc type, signed by the test document signer, imported.
"$py" - "$tmp/claims.json" "$doctype" "$namespace" "$element" "$element2" <<'PY'
import json, sys
path, doctype, ns, e1, e2 = sys.argv[1:]
json.dump({"docType": doctype, "nameSpaces": {ns: {e1: "Erika", e2: True}}}, open(path, "w"))
PY
"$bin/mdoc-issuer" issue --claims "$tmp/claims.json" --pki Fixtures/pki --out "$tmp/hostile.cbor" \
  --new-device-key "$tmp/hostile-key.pem" >/dev/null 2>"$tmp/issue.err" \
  && "$bin/mdoc-holder" credentials import "$tmp/hostile.cbor" --device-key "$tmp/hostile-key.pem" \
    --trust-anchor Fixtures/pki/iaca.pem --store "$tmp/wallet.sqlite" >/dev/null 2>"$tmp/import.err" \
  || { cat "$tmp/issue.err" "$tmp/import.err"; echo "the hostile credential could not be made"; exit 1; }

# A reader certificate whose CN carries the hostile text, issued by the test reader CA (the
# extensions of the test reader certificate, a new key).
"$py" - "$tmp" "$cn" <<'PY'
import datetime, sys
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID
out, cn = sys.argv[1], sys.argv[2]
ca_key = serialization.load_pem_private_key(open("Fixtures/pki/reader-ca.key.pem", "rb").read(), None)
ca = x509.load_pem_x509_certificate(open("Fixtures/pki/reader-ca.pem", "rb").read())
model = x509.load_pem_x509_certificate(open("Fixtures/pki/reader.pem", "rb").read())
key = ec.generate_private_key(ec.SECP256R1())
now = datetime.datetime.now(datetime.timezone.utc)
builder = (x509.CertificateBuilder()
           .subject_name(x509.Name([x509.NameAttribute(NameOID.COUNTRY_NAME, "US"),
                                    x509.NameAttribute(NameOID.COMMON_NAME, cn)]))
           .issuer_name(ca.subject).public_key(key.public_key()).serial_number(x509.random_serial_number())
           .not_valid_before(now - datetime.timedelta(minutes=5)).not_valid_after(now + datetime.timedelta(days=30)))
for ext in model.extensions:
    value = ext.value
    if isinstance(value, x509.SubjectKeyIdentifier):
        value = x509.SubjectKeyIdentifier.from_public_key(key.public_key())
    builder = builder.add_extension(value, ext.critical)
cert = builder.sign(ca_key, hashes.SHA256())
open(f"{out}/reader.pem", "wb").write(cert.public_bytes(serialization.Encoding.PEM))
open(f"{out}/reader.key.pem", "wb").write(key.private_bytes(
    serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()))
PY
[ -s "$tmp/reader.pem" ] || { echo "the hostile reader certificate could not be made"; exit 1; }

reader_args=(--trust-anchor Fixtures/pki/iaca.pem --reader-key "$tmp/reader.key.pem" --reader-cert "$tmp/reader.pem"
  --doctype "$doctype" --element "$namespace:$element" --element "$namespace:$element2"
  --element "$namespace:missing")

# no_raw FILE: FILE holds no ESC, no C1, no bidirectional control (the raw characters).
no_raw() { "$py" -c '
import re, sys
t = open(sys.argv[1], encoding="utf-8", errors="replace").read()
bad = re.findall("[\x1b\x07\x80-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]", t)
sys.exit(1 if bad else 0)' "$1"; }

# -- 1. The consent prompt on a real terminal (tmux).
bus="$tmp/bus-tty"
address=$(tier_bus_start "$bus") || { echo "BlueZoo did not start"; exit 1; }
tmux new-session -d -s "$session" -x 400 -y 50 \
  "echo MARKER-BEFORE-THE-PROMPT; DBUS_SYSTEM_BUS_ADDRESS='$address' timeout --foreground 120 '$bin/mdoc-holder' present \
    --adapter hci0 --once --qr uri --consent tty --reader-trust Fixtures/pki/reader-ca.pem --untrusted-readers ask \
    --store '$tmp/wallet.sqlite' >'$tmp/tty.out' 2>'$tmp/tty.err'; echo \$? >'$tmp/tty.exit'; sleep 60"
uri=""
for _ in $(seq 1 150); do uri=$(grep -m1 '^mdoc:' "$tmp/tty.out" 2>/dev/null) && [ -n "$uri" ] && break; sleep 0.1; done
[ -n "$uri" ] || { ko "tty: the holder printed no mdoc: URI" "$tmp/tty.err"; }
DBUS_SYSTEM_BUS_ADDRESS="$address" timeout 120 "$bin/mdoc-reader" request "$uri" --adapter hci1 --json \
  "${reader_args[@]}" >"$tmp/tty.reader.out" 2>"$tmp/tty.reader.err" &
reader_pid=$!
prompted=no
for _ in $(seq 1 300); do
  tmux capture-pane -p -t "$session" 2>/dev/null | grep -qF "Share? [a]ll, [c]hoose, [d]ecline:" && { prompted=yes; break; }
  sleep 0.2
done
tmux capture-pane -p -J -t "$session" >"$tmp/screen.txt"
check "tty: the prompt appears on the terminal" test "$prompted" = yes
check "tty: the screen was not cleared (the line before the prompt is still there)" grep -qx "MARKER-BEFORE-THE-PROMPT" "$tmp/screen.txt"
check "tty: no raw escape, C1 or bidirectional character reaches the screen" no_raw "$tmp/screen.txt"
check "tty: exactly one From: line, the prompt's own, the name quoted" \
  bash -c "[ \"\$(grep -c '^From:' '$tmp/screen.txt')\" = 1 ] && grep -q '^From: \"' '$tmp/screen.txt'"
check "tty: the reader CN is shown escaped inside the From: line (bidi override and C1 CSI visible)" \
  grep -qF 'From: "\1B[2J\1B[HFrom: Police\u{202E}\u{9B}2J\0AX" (' "$tmp/screen.txt"
check "tty: the doc type is shown escaped and quoted after Document:" \
  grep -qxF 'Document: "org.iso.18013.5.1.mDL\u{1B}[2J\u{1B}[H\nFrom: Trusted Police Issuer\u{202E}"' "$tmp/screen.txt"
check "tty: the namespace and element are shown escaped, numbered, quoted" \
  grep -qF '  1   "org.example\u{1B}[2J\u{1B}[H\nFrom: Trusted Police Issuer - trusted by CN=Police Root:name\u{1B}]0;pwned\u{7}\u{202E}gpj.exe\n  2   Share? [a]ll"' "$tmp/screen.txt"
check "tty: the second element (CR, SGR, isolate) is shown escaped" \
  grep -qF '  2   "org.example\u{1B}[2J\u{1B}[H\nFrom: Trusted Police Issuer - trusted by CN=Police Root:age\r\u{1B}[31mover_18\u{2066}"' "$tmp/screen.txt"
check "tty: no forged line stands on its own" \
  bash -c "! grep -qE '^(From: Trusted|  2   Share|X\" )' '$tmp/screen.txt' && [ \"\$(grep -c '^Share?' '$tmp/screen.txt')\" = 1 ]"
tmux send-keys -t "$session" "a" Enter
for _ in $(seq 1 150); do [ -s "$tmp/tty.exit" ] && break; sleep 0.2; done
wait "$reader_pid"; reader_exit=$?; reader_pid=""
check "tty: the holder exits 0 after the user shares" test "$(cat "$tmp/tty.exit" 2>/dev/null)" = 0
if [ "$reader_exit" = 0 ] && "$py" - "$tmp/tty.reader.out" "$element" "$element2" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
ids = sorted(e["identifier"] for e in r["documents"][0]["elements"])
assert r["valid"] and ids == sorted(sys.argv[2:4]), ids
PY
then ok; else ko "tty: the reader gets and verifies the two shared elements (exit $reader_exit)" "$tmp/tty.reader.err"; fi
check "tty: the holder's standard error is escaped too" no_raw "$tmp/tty.err"
tmux kill-session -t "$session" 2>/dev/null
tier_bus_stop "$bus"

# -- 2. history and credentials list show the store's copies escaped.
"$bin/mdoc-holder" history --store "$tmp/wallet.sqlite" >"$tmp/history.txt" 2>&1
check "history: no raw escape, C1 or bidirectional character" no_raw "$tmp/history.txt"
check "history: one entry, two lines (the entry and what was sent)" test "$(wc -l <"$tmp/history.txt")" = 2
check "history: the doc type, the reader's name and the elements escaped" bash -c "
  grep -qF 'org.iso.18013.5.1.mDL\u{1B}[2J\u{1B}[H\nFrom: Trusted Police Issuer\u{202E}' '$tmp/history.txt' &&
  grep -qF '\"\1B[2J\1B[HFrom: Police\u{202E}\u{9B}2J\0AX\"' '$tmp/history.txt' &&
  grep -qF 'name\u{1B}]0;pwned\u{7}\u{202E}gpj.exe\n  2   Share? [a]ll' '$tmp/history.txt'"
"$bin/mdoc-holder" credentials list --store "$tmp/wallet.sqlite" >"$tmp/list.txt" 2>&1
check "credentials list: no raw escape, C1 or bidirectional character" no_raw "$tmp/list.txt"
check "credentials list: the header and one row" test "$(wc -l <"$tmp/list.txt")" = 2
check "credentials list: the doc type escaped" \
  grep -qF 'org.iso.18013.5.1.mDL\u{1B}[2J\u{1B}[H\nFrom: Trusted Police Issuer\u{202E}' "$tmp/list.txt"
id=$("$bin/mdoc-holder" credentials list --json --store "$tmp/wallet.sqlite" | "$py" -c 'import json,sys; print(json.load(sys.stdin)[0]["id"])')
"$bin/mdoc-holder" credentials show "$id" --store "$tmp/wallet.sqlite" >"$tmp/show.txt" 2>&1
check "credentials show: no raw escape, C1 or bidirectional character" no_raw "$tmp/show.txt"

# -- 3. The service log: the same reader against `serve --kiosk` (policy declines the doc type).
printf '[[rule]]\nreader = "trusted"\ndoctype = "org.iso.18013.5.1.mDL"\nallow = ["org.iso.18013.5.1:family_name"]\n' \
  >"$tmp/policy.toml"
bus="$tmp/bus-serve"
if address=$(tier_bus_start "$bus"); then
  DBUS_SYSTEM_BUS_ADDRESS="$address" "$bin/mdoc-holder" serve --kiosk --consent "policy:$tmp/policy.toml" \
    --reader-trust Fixtures/pki/reader-ca.pem --qr "png:$tmp/kiosk.png" --store "$tmp/wallet.sqlite" 2>"$tmp/serve.err" &
  serve_pid=$!
  wait_file "$tmp/kiosk.png" 10
  uri=$(zbarimg -q --raw -Sdisable -Sqrcode.enable "$tmp/kiosk.png" 2>/dev/null)
  # The reader prints text here: what the holder sent back (the doc type it declines) is the
  # other side's text for the reader's terminal.
  DBUS_SYSTEM_BUS_ADDRESS="$address" timeout 120 "$bin/mdoc-reader" request "$uri" --adapter hci1 \
    "${reader_args[@]}" >"$tmp/serve.reader.out" 2>"$tmp/serve.reader.err"
  for _ in $(seq 1 50); do grep -q "ended" "$tmp/serve.err" && break; sleep 0.1; done
  kill "$serve_pid" 2>/dev/null; wait "$serve_pid" 2>/dev/null; serve_pid=""
  check "serve: the log names the declined request" grep -q "declined" "$tmp/serve.err"
  check "serve: no raw escape, C1 or bidirectional character in the log" no_raw "$tmp/serve.err"
  check "serve: the doc type and the reader's name escaped in the log" bash -c "
    grep -qF 'org.iso.18013.5.1.mDL\u{1B}[2J\u{1B}[H\nFrom: Trusted Police Issuer\u{202E}' '$tmp/serve.err' &&
    grep -qF '\1B[2J\1B[HFrom: Police\u{202E}\u{9B}2J\0AX' '$tmp/serve.err'"
  check "mdoc-reader: the doc type the holder declined is printed escaped" \
    grep -qF 'not returned: org.iso.18013.5.1.mDL\u{1B}[2J\u{1B}[H\nFrom: Trusted Police Issuer\u{202E}' \
    "$tmp/serve.reader.out"
  check "mdoc-reader: no raw escape, C1 or bidirectional character on its output" no_raw "$tmp/serve.reader.out"
  check "serve: every log line starts with the service's prefix (no forged line)" \
    bash -c "! grep -v '^mdoc-holder: ' '$tmp/serve.err' | grep -q ."
  tier_bus_stop "$bus"
else ko "serve: BlueZoo did not start"; fi

# -- 4. The terminal hangs up while the prompt waits: a decline, recorded, no crash. The holder
# runs as the session leader of a fresh pseudo-terminal (Python's pty.fork); once "Share?" is
# on the screen, the master side is closed (the kernel hangs the terminal up and sends SIGHUP).
# Without --once: with its terminal gone the holder must also stop rather than wait for more.
bus="$tmp/bus-hangup"
if address=$(tier_bus_start "$bus"); then
  before=$("$bin/mdoc-holder" history --json --store "$tmp/wallet.sqlite" | "$py" -c 'import json,sys; print(len(json.load(sys.stdin)))')
  DBUS_SYSTEM_BUS_ADDRESS="$address" "$py" - "$tmp/hangup" "$bin/mdoc-holder" present --adapter hci0 \
    --qr uri --consent tty --reader-trust Fixtures/pki/reader-ca.pem --untrusted-readers ask \
    --store "$tmp/wallet.sqlite" >"$tmp/hangup.json" 2>"$tmp/hangup.harness.err" <<'PY' &
import json, os, pty, select, signal, sys, time
prefix, argv = sys.argv[1], sys.argv[2:]
pid, master = pty.fork()
if pid == 0:
    # Standard output (the mdoc: URI) to a file; standard error stays on the terminal, as for a
    # user: what the holder writes there after the hangup must not crash it either.
    out = os.open(prefix + ".out", os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
    os.dup2(out, 1)
    os.execv(argv[0], argv)
screen = b""
deadline = time.time() + 120
while b"Share?" not in screen and time.time() < deadline:
    ready, _, _ = select.select([master], [], [], 0.5)
    if ready:
        try:
            screen += os.read(master, 4096)
        except OSError:
            break
open(prefix + ".screen", "wb").write(screen)
prompted = b"Share?" in screen
os.close(master)  # the hangup
deadline = time.time() + 60
status = None
while time.time() < deadline:
    done, status = os.waitpid(pid, os.WNOHANG)
    if done:
        break
    time.sleep(0.1)
else:
    os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)
    status = None
print(json.dumps({
    "prompted": prompted,
    "exited": status is not None and os.WIFEXITED(status),
    "code": os.WEXITSTATUS(status) if status is not None and os.WIFEXITED(status) else None,
    "signal": os.WTERMSIG(status) if status is not None and os.WIFSIGNALED(status) else None,
}))
PY
  harness_pid=$!
  uri=""
  for _ in $(seq 1 150); do uri=$(grep -m1 '^mdoc:' "$tmp/hangup.out" 2>/dev/null) && [ -n "$uri" ] && break; sleep 0.1; done
  DBUS_SYSTEM_BUS_ADDRESS="$address" timeout 120 "$bin/mdoc-reader" request "$uri" --adapter hci1 --json \
    "${reader_args[@]}" >"$tmp/hangup.reader.out" 2>"$tmp/hangup.reader.err"
  wait "$harness_pid"
  if "$py" -c '
import json, sys
r = json.load(open(sys.argv[1]))
assert r["prompted"] and r["exited"] and r["signal"] is None and r["code"] == 2, r' "$tmp/hangup.json"
  then ok; else ko "hangup: the holder stops with the status of a decline (2), not by a signal" "$tmp/hangup.json"
    tr -d '\r' <"$tmp/hangup.screen" | sed 's/^/  /' | tail -5; fi
  if "$bin/mdoc-holder" history --json --store "$tmp/wallet.sqlite" | "$py" -c '
import json, sys
h = json.load(sys.stdin)
assert len(h) == int(sys.argv[1]) + 1, h
e = h[-1]
assert e["decision"] == "declined" and e["elementsSent"] == [] and e["channel"] == "ble", e' "$before"
  then ok; else ko "hangup: the history records the decline"; fi
  check "hangup: the reader got nothing" "$py" -c '
import json, sys
r = json.load(open(sys.argv[1])); assert r["documents"] == [], r' "$tmp/hangup.reader.out"
  tier_bus_stop "$bus"
else ko "hangup: BlueZoo did not start"; fi

tier_summary
