#!/bin/bash
# Inside the systemd-booted VM (Tests/Support/systemd-vm-test.sh, through
# Tests/Support/bluez-vm/run-systemd-vm.sh): run by systemd as bvm-test.service once the system is
# up. /run/bvm/data holds the .deb, the fixtures, main.conf, the claim values the journal must
# not hold, and expect-tpm when the VM has a TPM 2.0 (the KEK is then sealed to it as well).
# Prints PASS/FAIL per check, then `systemd-vm: guest done`; exits 1 when a check failed.
set -u
export SYSTEMD_COLORS=0 SYSTEMD_PAGER='' LANG=C.UTF-8
D=/run/bvm/data
T=/run/bvm-test
mkdir -p "$T"
chmod 0755 "$T"
passed=0 failed=0
up() { awk '{print $1}' /proc/uptime; }
pass() { passed=$((passed + 1)); echo "PASS: $1"; }
fail() { failed=$((failed + 1)); echo "FAIL: $1"; }
check() { # check DESCRIPTION COMMAND...: passes when COMMAND succeeds
  local description=$1
  shift
  if "$@"; then pass "$description"; else fail "$description"; fi
}
show() { sed 's/^/    | /' "$@"; } # evidence, indented
# wait_for SECONDS COMMAND...: polls COMMAND every 0.2 s until it succeeds; 1 after SECONDS.
wait_for() {
  local deadline=$(($(date +%s) + $1))
  shift
  until "$@"; do
    [ "$(date +%s)" -lt "$deadline" ] || return 1
    sleep 0.2
  done
}
active() { [ "$(systemctl is-active "$1" 2>/dev/null)" = "$2" ]; }
holder() { # holder USER METHOD [SIGNATURE ARGS...]: a Holder1 call on the system bus as USER
  local user=$1 method=$2
  shift 2
  runuser -u "$user" -- busctl --system --timeout=60 call org.mdocholder /org/mdocholder org.mdocholder.Holder1 "$method" "$@"
}
family_name=$(sed -n 1p "$D/claim-values")

# ---- the system --------------------------------------------------------------------------------
echo "info: boot: $(up) s"  # uptime when the test unit started
state=$(systemctl is-system-running --wait 2>&1)
check "systemd is PID 1 ($(readlink /proc/1/exe))" test "$(cat /proc/1/comm)" = systemd
check "the system is running (is-system-running: $state)" test "$state" = running
[ "$state" = running ] || systemctl --failed --no-legend | show
echo "info: $(systemctl --version | head -n 1), kernel $(uname -r), $(nproc) vCPUs; $(systemd-analyze time | head -n 1)"

# ---- the package, installed on the running system ------------------------------------------
t0=$(up)
if dpkg -i "$D/mdoc-holder.deb" >"$T/dpkg.log" 2>&1; then
  pass "dpkg -i mdoc-holder.deb on the running system ($(awk -v a="$t0" -v b="$(up)" 'BEGIN {printf "%.1f", b - a}') s): its Depends are all there"
else
  fail "dpkg -i mdoc-holder.deb"
  show "$T/dpkg.log"
fi
check "postinst made the user mdoc-holder, in the group bluetooth" bash -c 'id -nG mdoc-holder | grep -qw bluetooth'
check "postinst started nothing: mdoc-holder.service is inactive" active mdoc-holder.service inactive
fragment=$(systemctl show -P FragmentPath mdoc-holder.service)
check "systemd loads the package's unit ($fragment = /usr/lib/systemd/system/mdoc-holder.service; /lib is /usr/lib)" \
  test "$(realpath "$fragment")" = /usr/lib/systemd/system/mdoc-holder.service
echo "info: mdoc-holder $(mdoc-holder --version)"

# ---- as an operator: BlueZ settings, options, the key-encryption key, the credential ---------
cp "$D/main.conf" /etc/bluetooth/main.conf # [GATT] Channels = 1, ExchangeMTU = 513 (docs/bluez-configuration.md)
install -d -m 0755 /etc/mdoc-holder
install -m 0644 "$D/reader-ca.pem" /etc/mdoc-holder/reader-ca.pem
cat >/etc/mdoc-holder/kiosk-policy.toml <<'EOF'
[[rule]]
reader = "trusted"
doctype = "org.iso.18013.5.1.mDL"
allow = ["org.iso.18013.5.1:family_name", "org.iso.18013.5.1:given_name", "org.iso.18013.5.1:age_over_18"]
EOF
set_options() { sed -i "s|^MDOC_HOLDER_OPTIONS=.*|MDOC_HOLDER_OPTIONS=\"$1\"|" /etc/default/mdoc-holder; }
trust="--adapter hci0 --reader-trust /etc/mdoc-holder/reader-ca.pem --untrusted-readers refuse"
# Without kiosk mode the consent front-end is the same policy file (no agent in this VM).
set_options "$trust --consent policy:/etc/mdoc-holder/kiosk-policy.toml"

# The KEK as the operator guide provisions it: systemd-creds encrypt with the host key.
(
  umask 077
  head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n' >/run/kek
  echo >>/run/kek
)
kek=$(cat /run/kek)
install -d -m 0700 /etc/credstore.encrypted
if systemd-creds encrypt --name=mdoc-holder-kek --with-key=host /run/kek /etc/credstore.encrypted/mdoc-holder-kek 2>"$T/creds.err"; then
  pass "systemd-creds encrypt --with-key=host: /etc/credstore.encrypted/mdoc-holder-kek"
else
  fail "systemd-creds encrypt --with-key=host"
  show "$T/creds.err"
fi
check "the encrypted credential does not hold the KEK in clear" bash -c '! grep -qF "$1" /etc/credstore.encrypted/mdoc-holder-kek' _ "$kek"
install -d -m 0755 /run/mdoc-import
install -m 0644 "$D/mdl.cbor" "$D/mdl-device-key.pem" "$D/iaca.pem" /run/mdoc-import/
# The import runs as the service user, who must read the KEK file (made 0600 root above).
chown mdoc-holder /run/kek
if runuser -u mdoc-holder -- mdoc-holder credentials import /run/mdoc-import/mdl.cbor \
  --device-key /run/mdoc-import/mdl-device-key.pem --trust-anchor /run/mdoc-import/iaca.pem \
  --store /var/lib/mdoc-holder/wallet.sqlite --kek-file /run/kek >"$T/import.log" 2>&1; then
  pass "credential import into the service's store as mdoc-holder (device key wrapped under the KEK)"
else
  fail "credential import into the service's store"
  show "$T/import.log"
fi
rm -f /run/kek /run/mdoc-import/mdl-device-key.pem

useradd -M -s /usr/sbin/nologin -G mdoc-holder alice   # a member of the holder group
useradd -M -s /usr/sbin/nologin mallory                # anybody else

# ---- D-Bus activation (no Bluetooth adapter yet) ---------------------------------------------
check "before the call the service is not running" active mdoc-holder.service inactive
if holder alice ListCredentials >"$T/list.out" 2>"$T/list.err"; then
  pass "alice (group mdoc-holder) calls Holder1.ListCredentials on the system bus: answered"
else
  fail "alice's Holder1.ListCredentials"
  show "$T/list.err"
fi
check "the answer lists the imported mDL" grep -q 'org.iso.18013.5.1.mDL' "$T/list.out"
check "the call started mdoc-holder.service (D-Bus activation through systemd)" active mdoc-holder.service active
journalctl -b --no-pager -o cat _COMM=dbus-daemon >"$T/dbus.journal" 2>&1
grep 'org.mdocholder' "$T/dbus.journal" | show
check "dbus-daemon activated org.mdocholder via systemd (mdoc-holder.service)" \
  grep -q "Activating via systemd: service name='org.mdocholder' unit='mdoc-holder.service'" "$T/dbus.journal"
pid=$(systemctl show -P MainPID mdoc-holder.service)
check "the service runs as mdoc-holder (pid $pid)" test "$(stat -c %U "/proc/$pid" 2>/dev/null)" = mdoc-holder
check "systemd decrypted the KEK for it (/run/credentials/mdoc-holder.service/mdoc-holder-kek is the KEK)" \
  test "$(cat /run/credentials/mdoc-holder.service/mdoc-holder-kek 2>/dev/null)" = "$kek"

# ---- the installed D-Bus policy on the real system bus ---------------------------------------
for m in ListCredentials History; do
  args=()
  [ "$m" = History ] && args=(u 0)
  if holder mallory "$m" "${args[@]}" >"$T/mallory.out" 2>"$T/mallory.err"; then
    fail "mallory (not in the group) is refused Holder1.$m: he was answered"
    show "$T/mallory.out"
  elif grep -qi 'access denied\|AccessDenied' "$T/mallory.err"; then
    pass "mallory (not in the group) is refused Holder1.$m: $(head -n 1 "$T/mallory.err")"
  else
    fail "mallory's Holder1.$m failed, but not with AccessDenied"
    show "$T/mallory.err"
  fi
done
if holder mallory StartProximity 'a{sv}' 0 >"$T/mallory.out" 2>"$T/mallory.err"; then
  fail "mallory is refused Holder1.StartProximity: he was answered"
else
  check "mallory is refused Holder1.StartProximity (AccessDenied)" grep -qi 'access denied' "$T/mallory.err"
fi
v=$(runuser -u mallory -- busctl --system get-property org.mdocholder /org/mdocholder org.mdocholder.Holder1 Version 2>&1)
check "mallory may read the Version property (the policy's read-only discovery): $v" grep -q '^u [0-9]' <<<"$v"
check "alice is served Holder1.History" bash -c 'runuser -u alice -- busctl --system call org.mdocholder /org/mdocholder org.mdocholder.Holder1 History u 0 >/dev/null'
if runuser -u mallory -- busctl --system call org.freedesktop.DBus /org/freedesktop/DBus org.freedesktop.DBus RequestName su org.mdocholder 0 >"$T/own.out" 2>&1; then
  check "mallory cannot own org.mdocholder (RequestName refused)" bash -c '! grep -q "^u 1" "$1"' _ "$T/own.out"
else
  pass "mallory cannot own org.mdocholder: $(head -n 1 "$T/own.out")"
fi

# ---- Bluetooth: btvirt, bluetoothd started by udev and systemd, the package's udev rule -------
systemctl stop mdoc-holder.service
check "systemctl stop mdoc-holder" active mdoc-holder.service inactive
# What bluetoothd would autoload while the controllers initialise (bluez-vm/stage2.sh: module
# loading under TCG is slow enough to starve btvirt).
for m in hci_vhci bnep rfcomm af_alg algif_hash algif_skcipher cmac ecb ecdh_generic; do modprobe -q "$m"; done
ctl_failed() { dmesg | grep -qE 'hci[0-9]+: (Opcode 0x[0-9a-f]+ failed|setup failed)'; }
two_hci() { [ -e /sys/class/bluetooth/hci0 ] && [ -e /sys/class/bluetooth/hci1 ]; }
for try in 1 2 3; do
  dmesg -C
  # Real-time priority: it must answer the kernel's HCI commands within 2 s.
  systemd-run --quiet --unit=btvirt -p CPUSchedulingPolicy=fifo -p CPUSchedulingPriority=20 /usr/bin/btvirt -l2
  wait_for 10 two_hci
  sleep 3
  ctl_failed || break
  echo "info: controller setup failed (btvirt try $try): $(dmesg | grep -E 'hci[0-9]+:' | tail -n 1)"
  systemctl stop btvirt bluetooth.service
  systemctl reset-failed btvirt 2>/dev/null
  sleep 1
done
check "btvirt -l2: hci0 and hci1 set up (btvirt start $try of at most 3)" bash -c '[ -e /sys/class/bluetooth/hci0 ] &&
  [ -e /sys/class/bluetooth/hci1 ] && ! dmesg | grep -qE "hci[0-9]+: (Opcode 0x[0-9a-f]+ failed|setup failed)"'
check "bluetoothd started by systemd (bluetooth.target, pulled in by udev when the adapters appeared)" \
  wait_for 30 active bluetooth.service active
powered() {
  local n=0 a
  for a in hci0 hci1; do
    [ "$(busctl --system get-property org.bluez "/org/bluez/$a" org.bluez.Adapter1 Powered 2>/dev/null)" = "b true" ] && n=$((n + 1))
  done
  [ "$n" = 2 ]
}
if ! wait_for 20 powered; then # AutoEnable did not power them: do it explicitly
  for a in hci0 hci1; do busctl --system set-property org.bluez "/org/bluez/$a" org.bluez.Adapter1 Powered b true; done
fi
check "both adapters powered (bluetoothd $(/usr/libexec/bluetooth/bluetoothd --version))" wait_for 30 powered
check "the package's udev rule started mdoc-holder.service when an adapter appeared" wait_for 30 active mdoc-holder.service active

# read_mdl LABEL URI: mdoc-reader request on hci1 (trusted reader, family and given name); passes
# when the response is valid (issuer and device signatures, chain to the IACA) and holds the
# fixture's family name (the JSON shows an element's value as CBOR diagnostic text: "\"Doe\"").
read_mdl() {
  local label=$1 uri=$2 rc=0
  timeout 150 mdoc-reader request "$uri" --adapter hci1 --trust-anchor "$D/iaca.pem" \
    --reader-key "$D/reader.key.pem" --reader-cert "$D/reader.pem" --json --verbose --timeout 60 \
    --element org.iso.18013.5.1:family_name --element org.iso.18013.5.1:given_name \
    >"$T/$label.json" 2>"$T/$label.err" || rc=$?
  if [ "$rc" = 0 ] && grep -qE '^  "valid" *: *true' "$T/$label.json" &&
    grep -qF "\\\"$family_name\\\"" "$T/$label.json"; then
    pass "$label: mdoc-reader request on hci1 read the mDL and verified it ($(grep -Eo 'ATT MTU [0-9]+' "$T/$label.err" | head -n 1))"
  else
    fail "$label: mdoc-reader request on hci1 (exit $rc)"
    tail -n 20 "$T/$label.err" | show
    head -c 1500 "$T/$label.json" | show
    journalctl -u mdoc-holder --no-pager -o cat -n 15 | show
  fi
}

# ---- systemctl start, a presentation started over D-Bus ---------------------------------------
systemctl stop mdoc-holder.service
systemctl start mdoc-holder.service
check "systemctl start mdoc-holder: active" active mdoc-holder.service active
if holder alice StartProximity 'a{sv}' 0 >"$T/start.out" 2>"$T/start.err"; then
  uri=$(sed -n 's/^ts [0-9]* "\(mdoc:[^"]*\)"$/\1/p' "$T/start.out")
  check "alice's StartProximity returns an engagement" test -n "$uri"
  read_mdl "systemctl start" "$uri"
else
  fail "alice's StartProximity"
  show "$T/start.err"
fi
check "the session ended completed (journal)" wait_for 30 bash -c \
  'journalctl -u mdoc-holder --no-pager -o cat | grep -qE "session [0-9]+: ended \(completed"'

# ---- kiosk mode by its drop-in, the KEK sealed to the TPM as well ----------------------------
# has-tpm2 says "partial" here (no EFI firmware measuring the boot); sealing needs the driver
# and the system's TPM support only.
systemd-creds has-tpm2 >"$T/tpm.txt" 2>&1
sealed=host
if [ -e /dev/tpmrm0 ] && grep -qx '+driver' "$T/tpm.txt" && grep -qx '+system' "$T/tpm.txt"; then
  if systemd-creds decrypt --name=mdoc-holder-kek /etc/credstore.encrypted/mdoc-holder-kek - 2>"$T/creds.err" |
    systemd-creds encrypt --name=mdoc-holder-kek --with-key=host+tpm2 - /etc/credstore.encrypted/mdoc-holder-kek.new 2>>"$T/creds.err" &&
    mv /etc/credstore.encrypted/mdoc-holder-kek.new /etc/credstore.encrypted/mdoc-holder-kek; then
    sealed=host+tpm2
    pass "systemd-creds encrypt --with-key=host+tpm2 (swtpm TPM 2.0): the KEK sealed to the TPM and the host key"
  else
    fail "systemd-creds encrypt --with-key=host+tpm2"
    show "$T/creds.err"
  fi
elif [ -f "$D/expect-tpm" ]; then
  fail "the VM has a usable TPM 2.0 (swtpm): /dev/tpmrm0 and systemd-creds has-tpm2 +driver +system"
  show "$T/tpm.txt"
else
  echo "info: no TPM in the VM (SYSTEMD_VM_TPM=0): the KEK stays encrypted with the host key alone"
fi
set_options "$trust"
install -d -m 0755 /etc/systemd/system/mdoc-holder.service.d
ln -sf /usr/share/mdoc-holder/systemd/kiosk.conf /etc/systemd/system/mdoc-holder.service.d/kiosk.conf
systemctl daemon-reload
# The kiosk publishes each engagement as a QR code (PNG) and as the EngagementReady signal: the
# monitor (root) reads the URI from the signal.
dbus-monitor --system "type='signal',interface='org.mdocholder.Holder1',member='EngagementReady'" >"$T/monitor.log" 2>&1 &
monitor_pid=$!
sleep 1
systemctl restart mdoc-holder.service
check "kiosk: the service restarted with the kiosk drop-in" active mdoc-holder.service active
k=$(runuser -u mallory -- busctl --system get-property org.mdocholder /org/mdocholder org.mdocholder.Holder1 KioskMode 2>&1)
check "kiosk: the KioskMode property is true ($k)" test "$k" = "b true"
kiosk_uri() { grep -o 'mdoc:[A-Za-z0-9_-]*' "$T/monitor.log" | sed -n "${1}p"; }
check "kiosk: an engagement armed (EngagementReady)" wait_for 60 bash -c '[ -n "$(grep -o "mdoc:[A-Za-z0-9_-]*" "$1")" ]' _ "$T/monitor.log"
check "kiosk: the QR code /run/mdoc-holder/engagement.png is written, readable by anyone" \
  wait_for 10 runuser -u mallory -- test -s /run/mdoc-holder/engagement.png
check "systemd decrypted the KEK ($sealed) for the kiosk" \
  test "$(cat /run/credentials/mdoc-holder.service/mdoc-holder-kek 2>/dev/null)" = "$kek"
uri=$(kiosk_uri 1)
if [ -n "$uri" ]; then
  read_mdl "kiosk" "$uri"
  check "kiosk: armed again after the session (a second, different engagement)" \
    wait_for 60 bash -c 'u=$(grep -o "mdoc:[A-Za-z0-9_-]*" "$1" | sed -n 2p); [ -n "$u" ] && [ "$u" != "$2" ]' _ "$T/monitor.log" "$uri"
fi
kill "$monitor_pid" 2>/dev/null

# ---- systemd-analyze security, read in the running system ------------------------------------
if systemd-analyze security --no-pager mdoc-holder.service >"$T/security.txt" 2>&1; then :; fi
exposure=$(grep 'Overall exposure level' "$T/security.txt")
echo "info: systemd-analyze security mdoc-holder.service (kiosk drop-in active): $exposure"
check "systemd-analyze security reports the running unit's exposure" test -n "$exposure"
rm -f /etc/systemd/system/mdoc-holder.service.d/kiosk.conf
systemctl daemon-reload
systemd-analyze security --no-pager mdoc-holder.service >"$T/security-plain.txt" 2>&1
echo "info: without drop-ins: $(grep 'Overall exposure level' "$T/security-plain.txt")"
grep -E '^✗' "$T/security-plain.txt" | show

# ---- the journal ------------------------------------------------------------------------------
journalctl -u mdoc-holder --no-pager -o cat >"$T/journal.txt" 2>&1
echo "info: journalctl -u mdoc-holder: $(wc -l <"$T/journal.txt") lines"
check "the journal has the service's start lines (serving org.mdocholder)" grep -q "serving org.mdocholder" "$T/journal.txt"
check "the journal has the sessions' ends ($(grep -cE 'session [0-9]+: ended' "$T/journal.txt"))" \
  grep -qE "session [0-9]+: ended" "$T/journal.txt"
leaked=""
while IFS= read -r value; do
  [ -n "$value" ] || continue
  grep -qF -- "$value" "$T/journal.txt" && leaked="$leaked '$value'"
done <"$D/claim-values"
check "the journal holds no claim value of the fixture ($(tr '\n' ',' <"$D/claim-values" | sed 's/,$//'))" test -z "$leaked"
check "the journal does not hold the KEK" bash -c '! grep -qF "$1" "$2"' _ "$kek" "$T/journal.txt"
check "the journal has no missing-KEK complaint" bash -c '! grep -q "key-encryption key" "$1"' _ "$T/journal.txt"
[ -z "$leaked" ] || grep -F -e "$family_name" "$T/journal.txt" | show
echo "info: the journal's last lines:"
tail -n 8 "$T/journal.txt" | show

echo "systemd-vm: guest done: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
