#!/usr/bin/env bash
# What a distribution ships, checked (docs/operator-guide.md, dbus/README.md, udev/README.md):
#   (a) `make install DESTDIR=...` puts every file in place with sane modes and substituted
#       paths, keeps an edited environment file, and `make uninstall` takes it all away again;
#   (b) `systemd-analyze verify` is silent on the installed unit, alone and with each drop-in,
#       and `systemd-analyze security --offline` sees the sandbox the unit claims;
#   (c) the D-Bus policy from dbus/ loads in a dbus-daemon started for the test (Debian's
#       system.conf defaults plus the installed policy) and its rules hold for real callers
#       switched with setpriv: outside the group refused, in the group allowed, only the
#       service user owns the name and calls agents, signals reach the group only;
#   (d) the udev rule parses (systemd 252 has no `udevadm verify`: `udevadm test` in a private
#       mount namespace reports rule syntax errors);
#   (e) the real binary works inside the unit's kernel-level sandbox (no W+X memory, the
#       @system-service system calls, AF_UNIX/AF_BLUETOOTH sockets, no capabilities, /proc
#       subset=pid: Tests/Support/sandbox-exec.py), BlueZoo BLE and online flows included;
#   (f) the sample kiosk policy parses;
#   and the three commands print VERSION with --version. The Debian package: deb-test.sh.
#
# Usage: Tests/Support/packaging-test.sh BIN_DIR   (e.g. .build/debug: installed as the
# release binaries would be, to spare CI a release build). Needs root (setpriv, unshare -m,
# mount), /usr/bin/python3 with python3-dbus and python3-gi, dbus-daemon, systemd-analyze.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$root"
bin="$(cd "${1:?usage: $0 BIN_DIR}" && pwd)"
python=/usr/bin/python3
peers="$root/Tests/Support/dbus-policy-peers.py"

if [ "$(id -u)" -ne 0 ]; then
    echo "packaging-test: needs root (setpriv to other users, unshare -m for systemd-analyze and udevadm)" >&2
    echo "packaging: 0 passed, 1 failed"
    exit 1
fi

. Tests/Support/lib/tier.sh
tier_begin packaging
tier_verbose=1
chmod 0755 "$tmp" # the unprivileged test callers reach the bus socket in it
peerdir="$tmp/peers" # where the D-Bus peers, as other users, leave what they saw
mkdir -m 1777 "$peerdir"
daemon_pid=""
tier_track_variables daemon_pid

# ---- (a) make install --------------------------------------------------------------
dest="$tmp/dest"
if make -s install DESTDIR="$dest" BIN_DIR="$bin" >"$tmp/install.log" 2>&1; then
    ok "make install DESTDIR BIN_DIR (PREFIX=/usr/local)"
else
    ko "make install DESTDIR BIN_DIR (PREFIX=/usr/local)"
    cat "$tmp/install.log"
fi

# Every file with its mode; nothing else (no stray temporary files).
expected="$tmp/expected"
cat >"$expected" <<'EOF'
644 etc/default/mdoc-holder
755 usr/local/bin/mdoc-holder
755 usr/local/bin/mdoc-reader
755 usr/local/bin/mdoc-issuer
644 usr/local/lib/systemd/system/mdoc-holder.service
644 usr/local/lib/sysusers.d/mdoc-holder.conf
644 usr/local/lib/udev/rules.d/90-mdoc-holder.rules
644 usr/local/share/dbus-1/interfaces/org.mdocholder.ConsentAgent1.xml
644 usr/local/share/dbus-1/interfaces/org.mdocholder.Holder1.xml
644 usr/local/share/dbus-1/system-services/org.mdocholder.service
644 usr/local/share/doc/mdoc-holder/README.md
644 usr/local/share/doc/mdoc-holder/examples/kiosk-policy.toml
644 usr/local/share/doc/mdoc-holder/kiosk-policy.md
644 usr/local/share/doc/mdoc-holder/operator-guide.md
644 usr/local/share/mdoc-holder/systemd/kiosk-tty.conf
644 usr/local/share/mdoc-holder/systemd/kiosk.conf
644 usr/local/share/mdoc-holder/systemd/online.conf
644 usr/local/share/mdoc-holder/systemd/tpm.conf
644 usr/share/dbus-1/system.d/org.mdocholder.conf
644 usr/local/share/bash-completion/completions/mdoc-holder
644 usr/local/share/bash-completion/completions/mdoc-reader
644 usr/local/share/bash-completion/completions/mdoc-issuer
644 usr/local/share/zsh/site-functions/_mdoc-holder
644 usr/local/share/zsh/site-functions/_mdoc-reader
644 usr/local/share/zsh/site-functions/_mdoc-issuer
644 usr/local/share/fish/vendor_completions.d/mdoc-holder.fish
644 usr/local/share/fish/vendor_completions.d/mdoc-reader.fish
644 usr/local/share/fish/vendor_completions.d/mdoc-issuer.fish
644 usr/local/share/man/man1/mdoc-holder.1
644 usr/local/share/man/man1/mdoc-reader.1
644 usr/local/share/man/man1/mdoc-issuer.1
EOF
# The BlueZ configuration page ships when it exists (written with the BlueZ VM tier).
[ ! -f docs/bluez-configuration.md ] || echo "644 usr/local/share/doc/mdoc-holder/bluez-configuration.md" >>"$expected"
sort -k2 -o "$expected" "$expected"
(cd "$dest" && find . -type f -printf '%m %P\n' | sort -k2) >"$tmp/found"
if diff -u "$expected" "$tmp/found" >"$tmp/files.diff"; then
    ok "installed files and modes ($(wc -l <"$expected") files, nothing else)"
else
    ko "installed files and modes"
    cat "$tmp/files.diff"
fi
# The completions and man pages come from the binaries: they know the subcommands.
check "bash, zsh and fish complete mdoc-holder's subcommands" \
    bash -c 'for f; do grep -q serve "$f" || exit 1; done' _ \
    "$dest/usr/local/share/bash-completion/completions/mdoc-holder" \
    "$dest/usr/local/share/zsh/site-functions/_mdoc-holder" "$dest/usr/local/share/fish/vendor_completions.d/mdoc-holder.fish"
check "the man pages document present, request and issue" \
    bash -c 'grep -q "^\.It Em present$" "$1" && grep -q "^\.It Em request$" "$2" && grep -q "^\.It Em issue$" "$3"' _ \
    "$dest/usr/local/share/man/man1/mdoc-holder.1" "$dest/usr/local/share/man/man1/mdoc-reader.1" \
    "$dest/usr/local/share/man/man1/mdoc-issuer.1"
check "bash, zsh and fish complete mdoc-issuer's subcommands" \
    bash -c 'for f; do grep -q pki "$f" || exit 1; done' _ \
    "$dest/usr/local/share/bash-completion/completions/mdoc-issuer" \
    "$dest/usr/local/share/zsh/site-functions/_mdoc-issuer" "$dest/usr/local/share/fish/vendor_completions.d/mdoc-issuer.fish"
dirs_bad="$(cd "$dest" && find . -type d ! -perm 0755 -printf '%m %P\n')"
check "installed directories are 0755" test -z "$dirs_bad"
[ -z "$dirs_bad" ] || echo "$dirs_bad"
leftover="$(grep -rln '@[A-Za-z_]*@' "$dest" --exclude=mdoc-holder --exclude=mdoc-reader --exclude=mdoc-issuer --exclude='*.md' || true)"
check "no unsubstituted @placeholder@ in installed files" test -z "$leftover"
[ -z "$leftover" ] || echo "$leftover"

unit="$dest/usr/local/lib/systemd/system/mdoc-holder.service"
check "unit: ExecStart=/usr/local/bin/mdoc-holder serve" grep -qx 'ExecStart=/usr/local/bin/mdoc-holder serve .*' "$unit"
check "unit: User=mdoc-holder" grep -qx 'User=mdoc-holder' "$unit"
check "unit: EnvironmentFile=-/etc/default/mdoc-holder" grep -qx 'EnvironmentFile=-/etc/default/mdoc-holder' "$unit"
check "unit: Documentation points at the installed operator guide" \
    test -f "$dest$(sed -n 's|^Documentation=file://||p' "$unit")"
check "kiosk drop-in: policy in /etc/mdoc-holder, PNG in /run/mdoc-holder" grep -q \
    'MDOC_HOLDER_KIOSK=--kiosk --consent policy:/etc/mdoc-holder/kiosk-policy.toml --qr png:/run/mdoc-holder/engagement.png' \
    "$dest/usr/local/share/mdoc-holder/systemd/kiosk.conf"
check "policy: service user and group substituted (mdoc-holder)" grep -q '<policy user="mdoc-holder">' \
    "$dest/usr/share/dbus-1/system.d/org.mdocholder.conf"
activation="$dest/usr/local/share/dbus-1/system-services/org.mdocholder.service"
check "activation file: User=mdoc-holder" grep -qx 'User=mdoc-holder' "$activation"
check "activation file: SystemdService=mdoc-holder.service" grep -qx 'SystemdService=mdoc-holder.service' "$activation"
check "sysusers: u mdoc-holder" grep -q '^u mdoc-holder - ' "$dest/usr/local/lib/sysusers.d/mdoc-holder.conf"
check "installed binary runs (mdoc-holder --help)" "$dest/usr/local/bin/mdoc-holder" --help >/dev/null
# One version: VERSION, Sources/ProjectVersion/Version.swift and what the binaries print.
version="$(cat VERSION)"
check "make version-check: Version.swift agrees with VERSION ($version)" make -s version-check
for c in mdoc-holder mdoc-reader mdoc-issuer; do
    check "$c --version prints VERSION" test "$("$dest/usr/local/bin/$c" --version 2>&1)" = "$version"
done
check "interface XML installed unchanged" cmp -s dbus/org.mdocholder.Holder1.xml \
    "$dest/usr/local/share/dbus-1/interfaces/org.mdocholder.Holder1.xml"

# An operator's edited environment file survives a reinstall.
mkdir -p "$dest/etc/default"
echo 'MDOC_HOLDER_OPTIONS="--adapter hci1"' >"$dest/etc/default/mdoc-holder"
make -s install DESTDIR="$dest" BIN_DIR="$bin" >"$tmp/install2.log" 2>&1 || cat "$tmp/install2.log"
check "reinstall keeps the edited /etc/default/mdoc-holder" \
    grep -qx 'MDOC_HOLDER_OPTIONS="--adapter hci1"' "$dest/etc/default/mdoc-holder"

# Names with characters that would break the substitution or the XML are refused.
check "install refuses HOLDER_GROUP='a\"b'" \
    bash -c '! make -s install DESTDIR="$1/bad" BIN_DIR="$2" HOLDER_GROUP="a\"b" >/dev/null 2>&1' _ "$tmp" "$bin"

# PREFIX=/usr with other names: a distribution's layout.
usrdest="$tmp/usr-dest"
if make -s install DESTDIR="$usrdest" PREFIX=/usr BIN_DIR="$bin" SERVICE_USER=daemon HOLDER_GROUP=users \
    >"$tmp/install3.log" 2>&1; then
    ok "make install PREFIX=/usr SERVICE_USER=daemon HOLDER_GROUP=users"
else
    ko "make install PREFIX=/usr SERVICE_USER=daemon HOLDER_GROUP=users"
    cat "$tmp/install3.log"
fi
check "PREFIX=/usr: unit in /usr/lib/systemd/system, ExecStart=/usr/bin/mdoc-holder" \
    grep -q '^ExecStart=/usr/bin/mdoc-holder serve' "$usrdest/usr/lib/systemd/system/mdoc-holder.service"
check "PREFIX=/usr: rule in /usr/lib/udev/rules.d" test -f "$usrdest/usr/lib/udev/rules.d/90-mdoc-holder.rules"
check "PREFIX=/usr: policy names user daemon and group users" grep -q '<policy group="users">' \
    "$usrdest/usr/share/dbus-1/system.d/org.mdocholder.conf"

# Uninstall removes everything but the configuration.
make -s uninstall DESTDIR="$dest" >"$tmp/uninstall.log" 2>&1 || cat "$tmp/uninstall.log"
remaining="$(cd "$dest" && find . -type f -printf '%P\n')"
check "make uninstall leaves only etc/default/mdoc-holder" test "$remaining" = etc/default/mdoc-holder
[ "$remaining" = etc/default/mdoc-holder ] || echo "$remaining"
make -s install DESTDIR="$dest" BIN_DIR="$bin" >/dev/null 2>&1 || ko "reinstall after uninstall"

# ---- (b) systemd-analyze ---------------------------------------------------------------
# --root=$dest so ExecStart= resolves to the installed binary; the host's own units
# (sysinit.target, bluetooth.service, getty@.service...) are bound read-only into the tree in
# a private mount namespace, so dependencies resolve as on a real system. Drop-ins are
# copied, not linked: under --root an absolute symlink would point outside the tree.
dropins="$dest/etc/systemd/system/mdoc-holder.service.d"
analyze() { # analyze ARGS...: systemd-analyze in the installed tree; stdout+stderr
    mkdir -p "$dest/usr/lib/systemd/system"
    unshare -m sh -c 'mount --bind -o ro /usr/lib/systemd/system "$0/usr/lib/systemd/system" && exec systemd-analyze "$@" --root="$0"' \
        "$dest" "$@" 2>&1
}
verify_clean() { # verify_clean LABEL: systemd-analyze verify exits 0 and prints nothing
    local out rc=0
    out="$(analyze verify mdoc-holder.service)" || rc=$?
    if [ "$rc" -eq 0 ] && [ -z "$out" ]; then
        ok "systemd-analyze verify: $1: clean"
    else
        ko "systemd-analyze verify: $1 (exit $rc):"
        echo "$out"
    fi
}
security() { analyze security --offline=true mdoc-holder.service; }
verify_clean "mdoc-holder.service"
out="$(security)"
echo "$out" | grep 'Overall exposure' || true
for item in 'NoNewPrivileges=' 'ProtectSystem=' 'ProtectHome=' 'PrivateTmp=' 'PrivateDevices=' \
    'MemoryDenyWriteExecute=' 'RestrictAddressFamilies=~AF_(INET|INET6)' 'RestrictAddressFamilies=~AF_PACKET' \
    'CapabilityBoundingSet=~CAP_SYS_ADMIN' 'AmbientCapabilities=' 'RestrictNamespaces=~user' \
    'User=/DynamicUser=' 'ProtectKernelModules=' 'SystemCallFilter=~@mount'; do
    check "security: $item holds" grep -qF "✓ $item " <<<"$out"
done
for dropin in online kiosk tpm kiosk-tty; do
    rm -rf "$dropins"
    mkdir -p "$dropins"
    cp "$dest/usr/local/share/mdoc-holder/systemd/$dropin.conf" "$dropins/"
    [ "$dropin" != kiosk-tty ] || cp "$dest/usr/local/share/mdoc-holder/systemd/kiosk.conf" "$dropins/"
    verify_clean "with $dropin.conf"
done
out="$(security)"
check "security with kiosk-tty.conf: /dev/tty1 allowed, still no IP sockets" \
    grep -qE '✗ DeviceAllow=.*/dev/tty1:rw' <<<"$out"
grep -qF '✓ RestrictAddressFamilies=~AF_(INET|INET6) ' <<<"$out" || ko "kiosk drop-ins opened IP sockets"
rm -rf "$dropins"
mkdir -p "$dropins"
cp "$dest/usr/local/share/mdoc-holder/systemd/online.conf" "$dropins/"
out="$(security)"
check "security with online.conf: AF_INET/AF_INET6 allowed" grep -qF '✗ RestrictAddressFamilies=~AF_(INET|INET6) ' <<<"$out"
# The check above can fail: a drop-in with a typo is reported.
echo 'ProtectSystem=strictly' >>"$dropins/online.conf"
out="$(analyze verify mdoc-holder.service || true)"
check "systemd-analyze verify reports a broken drop-in (control)" grep -q 'strictly' <<<"$out"
rm -rf "$dropins"

# ---- (c) D-Bus policy -------------------------------------------------------------------
# The bus: Debian's system.conf (its default-deny policy) minus what would touch the real
# system (listen address, user, pid file, fork, the launch helper, system.d includes), plus
# a socket in $tmp, the installed activation directory and the installed policy with the
# service user `daemon` and the group `users` (installed above with PREFIX=/usr).
busdir="$tmp/bus"
mkdir -m 0755 "$busdir"
"$python" - /usr/share/dbus-1/system.conf "$busdir" "$usrdest" <<'PY'
import sys, xml.etree.ElementTree as ET
source, busdir, dest = sys.argv[1:]
tree = ET.parse(source)
config = tree.getroot()
for e in list(config):
    if e.tag in ("user", "fork", "pidfile", "listen", "servicehelper", "standard_system_servicedirs",
                 "include", "includedir", "syslog"):
        config.remove(e)
ET.SubElement(config, "listen").text = "unix:path=%s/socket" % busdir
ET.SubElement(config, "servicedir").text = dest + "/usr/share/dbus-1/system-services"
ET.SubElement(config, "include").text = dest + "/usr/share/dbus-1/system.d/org.mdocholder.conf"
tree.write(busdir + "/bus.conf")
PY
if dbus-daemon --config-file="$busdir/bus.conf" --fork --print-address=1 --print-pid=1 \
    >"$busdir/daemon.out" 2>"$busdir/daemon.err"; then
    daemon_pid="$(sed -n 2p "$busdir/daemon.out")"
    export DBUS_SYSTEM_BUS_ADDRESS
    DBUS_SYSTEM_BUS_ADDRESS="$(sed -n 1p "$busdir/daemon.out")"
    ok "dbus-daemon loads the installed policy"
else
    ko "dbus-daemon refused the configuration with the installed policy:"
    cat "$busdir/daemon.err"
    tier_summary "(no bus: the policy checks did not run)"
    exit 1
fi
# dbus-daemon warns on stderr about names it cannot resolve (a group that does not exist...)
sleep 0.2
check "dbus-daemon printed no warning about the policy" test ! -s "$busdir/daemon.err"
[ ! -s "$busdir/daemon.err" ] || cat "$busdir/daemon.err"

as_nobody=(setpriv --reuid=65534 --regid=65534 --clear-groups)           # outside the group
as_member=(setpriv --reuid=65534 --regid=65534 --groups=100)             # in `users`
as_service=(setpriv --reuid=1 --regid=1 --clear-groups)                  # `daemon`, the service user
# call WHO... -- DBUS-SEND ARGS: runs dbus-send as WHO; stdout+stderr in $reply, status returned.
call() {
    local who=()
    while [ "$1" != -- ]; do who+=("$1"); shift; done
    shift
    reply="$(cd "$tmp" && timeout 10 "${who[@]}" dbus-send --system --print-reply "$@" 2>&1)"
}
denied() { # denied DESCRIPTION WHO... -- ARGS: the bus refuses with AccessDenied
    local description="$1"
    shift
    if call "$@"; then
        ko "$description: allowed"
        echo "$reply"
    elif grep -q 'org.freedesktop.DBus.Error.AccessDenied' <<<"$reply"; then
        ok "$description: refused (AccessDenied)"
    else
        ko "$description: failed otherwise"
        echo "$reply"
    fi
}
allowed() { # allowed DESCRIPTION PATTERN WHO... -- ARGS: succeeds and the reply matches PATTERN
    local description="$1" pattern="$2"
    shift 2
    if call "$@" && grep -q -- "$pattern" <<<"$reply"; then
        ok "$description: allowed"
    else
        ko "$description"
        echo "$reply"
    fi
}
request_name=(--dest=org.freedesktop.DBus /org/freedesktop/DBus org.freedesktop.DBus.RequestName
    string:org.mdocholder uint32:4)
holder=(--dest=org.mdocholder /org/mdocholder)

check "activation file parsed (org.mdocholder activatable)" bash -c \
    'dbus-send --system --print-reply --dest=org.freedesktop.DBus /org/freedesktop/DBus org.freedesktop.DBus.ListActivatableNames | grep -q "\"org.mdocholder\""'
denied "nobody owns org.mdocholder" "${as_nobody[@]}" -- "${request_name[@]}"
denied "a group member owns org.mdocholder" "${as_member[@]}" -- "${request_name[@]}"

# The stand-in service, as the service user.
(cd "$tmp" && exec "${as_service[@]}" "$python" "$peers" stub "$peerdir") >"$tmp/stub.out" 2>&1 &
tier_track $!
stub_pid=$!
for _ in $(seq 1 100); do grep -qs owned "$peerdir/stub.log" && break; sleep 0.1; done
if grep -qs owned "$peerdir/stub.log"; then
    ok "the service user owns org.mdocholder"
else
    ko "the service user could not own org.mdocholder:"
    cat "$tmp/stub.out"
fi

denied "nobody: Holder1.StartProximity" "${as_nobody[@]}" -- "${holder[@]}" org.mdocholder.Holder1.StartProximity dict:string:string:
denied "nobody: Holder1.ListCredentials" "${as_nobody[@]}" -- "${holder[@]}" org.mdocholder.Holder1.ListCredentials
denied "nobody: Holder1.History" "${as_nobody[@]}" -- "${holder[@]}" org.mdocholder.Holder1.History uint32:0
denied "nobody: Holder1.ReceiveCredential" "${as_nobody[@]}" -- "${holder[@]}" \
    org.mdocholder.Holder1.ReceiveCredential string:offer dict:string:string:
denied "nobody: AgentManager1.RegisterAgent" "${as_nobody[@]}" -- "${holder[@]}" org.mdocholder.AgentManager1.RegisterAgent objpath:/x
denied "nobody: Properties.Set" "${as_nobody[@]}" -- "${holder[@]}" org.freedesktop.DBus.Properties.Set \
    string:org.mdocholder.Holder1 string:KioskMode variant:boolean:true
allowed "nobody: Introspect" 'org.mdocholder.Holder1' "${as_nobody[@]}" -- "${holder[@]}" \
    org.freedesktop.DBus.Introspectable.Introspect
allowed "nobody: Properties.Get Version" 'uint32 1' "${as_nobody[@]}" -- "${holder[@]}" \
    org.freedesktop.DBus.Properties.Get string:org.mdocholder.Holder1 string:Version
allowed "group member: Holder1.StartProximity" 'mdoc:stub' "${as_member[@]}" -- "${holder[@]}" \
    org.mdocholder.Holder1.StartProximity dict:string:string:
allowed "group member: Holder1.ListCredentials" 'array' "${as_member[@]}" -- "${holder[@]}" \
    org.mdocholder.Holder1.ListCredentials
allowed "group member: Holder1.ReceiveCredential" 'stub-credential' "${as_member[@]}" -- "${holder[@]}" \
    org.mdocholder.Holder1.ReceiveCredential string:offer dict:string:string:
allowed "root: Holder1.StartProximity" 'mdoc:stub' -- "${holder[@]}" org.mdocholder.Holder1.StartProximity dict:string:string:

# A consent agent in the group registers; the service user's call to it goes through.
(cd "$tmp" && exec "${as_member[@]}" "$python" "$peers" agent "$peerdir") >"$tmp/agent.out" 2>&1 &
tier_track $!
agent_pid=$!
wait_file "$peerdir/agent.log" 10 || true
check "group member: RegisterAgent allowed, the service's RequestConsent reaches the agent" \
    grep -q '^asked 1 by ' "$peerdir/agent.log"
for _ in $(seq 1 50); do grep -qs "^consent-" "$peerdir/stub.log" && break; sleep 0.1; done
check "the agent's reply reaches the service (1 element approved)" grep -qx 'consent-reply 1' "$peerdir/stub.log"
grep -q 'consent-reply 1' "$peerdir/stub.log" || { cat "$peerdir/stub.log" "$tmp/agent.out"; }
check "the service's RequestTransactionCode reaches the agent" grep -q '^code asked 1 by ' "$peerdir/agent.log"
for _ in $(seq 1 50); do grep -qs "^code-" "$peerdir/stub.log" && break; sleep 0.1; done
check "the agent's code reaches the service" grep -qx 'code-reply 4 characters' "$peerdir/stub.log"
# Another group member (not the service user) may not call the agent.
agent_name="$(cat "$peerdir/agent.name" 2>/dev/null || echo :none)"
denied "group member: ConsentAgent1.RequestConsent on the agent" "${as_member[@]}" -- --dest="$agent_name" \
    /test/agent org.mdocholder.ConsentAgent1.RequestConsent uint64:2 dict:string:string:
denied "nobody: ConsentAgent1.RequestConsent on the agent" "${as_nobody[@]}" -- --dest="$agent_name" \
    /test/agent org.mdocholder.ConsentAgent1.RequestConsent uint64:2 dict:string:string:
denied "group member: ConsentAgent1.RequestTransactionCode on the agent" "${as_member[@]}" -- \
    --dest="$agent_name" /test/agent org.mdocholder.ConsentAgent1.RequestTransactionCode uint64:2 dict:string:string:
touch "$peerdir/agent.done"
wait "$agent_pid" 2>/dev/null || true

# Signals: a group member receives EngagementReady, someone outside the group does not.
for who in member nobody; do
    if [ "$who" = member ]; then runner=("${as_member[@]}"); else runner=("${as_nobody[@]}"); fi
    (cd "$tmp" && exec "${runner[@]}" "$python" "$peers" listen "$peerdir" "$who") >"$tmp/listen-$who.out" 2>&1 &
    tier_track $!
done
wait_file "$peerdir/member.ready" 10 && wait_file "$peerdir/nobody.ready" 10 \
    || { ko "listeners did not subscribe"; cat "$tmp"/listen-*.out; }
call -- "${holder[@]}" org.mdocholder.Holder1.StartProximity dict:string:string: || echo "$reply"
wait_file "$peerdir/member.log" 5 || true
sleep 1 # the same signal, had the bus let it through, would have reached the other listener by now
check "group member receives EngagementReady" grep -q '^EngagementReady ' "$peerdir/member.log"
check "nobody does not receive EngagementReady" test ! -e "$peerdir/nobody.log"
touch "$peerdir/listen.done"

kill "$stub_pid" 2>/dev/null || true
wait "$stub_pid" 2>/dev/null || true
# Positive control for "owns": once the stub is gone root may own the name.
allowed "root owns org.mdocholder" 'uint32 1' -- "${request_name[@]}"

# ---- (d) udev rule ------------------------------------------------------------------------
# `udevadm test` reads every rules directory and logs "FILE:LINE ..." for each invalid
# line; /run/udev/rules.d is a tmpfs in a private mount namespace holding the rule.
udev_check() { # udev_check RULESFILE: the lines udevadm complains about in it
    local copy="$tmp/udev/$(basename "$1")"
    mkdir -p "$tmp/udev"
    cp "$1" "$copy"
    unshare -m sh -c 'mount -t tmpfs tmpfs /run && mkdir -p /run/udev/rules.d && cp "$0" /run/udev/rules.d/ &&
        udevadm test --action=add /sys/class/net/lo 2>&1' "$copy" | grep -F "/run/udev/rules.d/$(basename "$1"):" || true
}
complaints="$(udev_check "$dest/usr/local/lib/udev/rules.d/90-mdoc-holder.rules")"
check "udev rule: udevadm parses it without complaint" test -z "$complaints"
[ -z "$complaints" ] || echo "$complaints"
sed 's/ENV{SYSTEMD_WANTS}+=/ENV{SYSTEMD_WANTS}+==/' udev/90-mdoc-holder.rules >"$tmp/91-broken.rules"
check "udev rule: a broken copy is reported (control)" test -n "$(udev_check "$tmp/91-broken.rules")"
rule="$(grep -v '^#' udev/90-mdoc-holder.rules | grep .)"
check "udev rule: one rule; hci hosts only; TAG+=systemd; SYSTEMD_WANTS+=mdoc-holder.service" bash -c '
    [ "$(wc -l <<<"$1")" -eq 1 ] && grep -qF "SUBSYSTEM==\"bluetooth\"" <<<"$1" && grep -qF "ENV{DEVTYPE}==\"host\"" <<<"$1" \
    && grep -qF "TAG+=\"systemd\"" <<<"$1" && grep -qF "ENV{SYSTEMD_WANTS}+=\"mdoc-holder.service\"" <<<"$1"' _ "$rule"

# ---- (e) the binary inside the unit's kernel-level sandbox -------------------------------
# Tests/Support/sandbox-exec.py applies what systemd would (NoNewPrivileges, MemoryDeny-
# WriteExecute as PR_SET_MDWE, SystemCallFilter=@system-service with EPERM, RestrictAddress-
# Families, ProtectProc=invisible + ProcSubset=pid, no capabilities) and execs the binary: it
# must work inside. First the sandbox itself is checked to refuse W+X memory, an AF_INET
# socket and mount(2), and to hide /proc/cpuinfo (a control: else this proves nothing).
sandbox=("$python" "$root/Tests/Support/sandbox-exec.py")
if "${sandbox[@]}" --probe >"$tmp/probe.out" 2>&1; then
    ok "sandbox refuses W+X memory, AF_INET sockets and mount(2), hides /proc/cpuinfo (control)"
    store="$tmp/sandbox-store/wallet.sqlite"
    ok=1
    for args in "credentials import Fixtures/mdl.cbor --device-key Fixtures/mdl-device-key.pem --trust-anchor Fixtures/pki/iaca.pem --store $store" \
        "credentials list --store $store" "engagement --qr png:$tmp/engagement.png" "history --store $store"; do
        # shellcheck disable=SC2086 # the words of $args are the arguments
        if ! "${sandbox[@]}" --families AF_UNIX,AF_BLUETOOTH "$bin/mdoc-holder" $args >"$tmp/sandbox.out" 2>&1; then
            ok=0
            echo "in the sandbox: mdoc-holder $args:"
            cat "$tmp/sandbox.out"
        fi
    done
    check "mdoc-holder import, list, engagement PNG, history in the sandbox" test "$ok" -eq 1
    check "the engagement PNG was written in the sandbox" test -s "$tmp/engagement.png"
    # The BlueZoo tier again with mdoc-holder in the sandbox: BLE presentations (AF_UNIX and
    # AF_BLUETOOTH only, as the unit) and the online one (plus AF_INET/AF_INET6, as online.conf).
    wrapped="$tmp/sandboxed-bin"
    mkdir -p "$wrapped"
    ln -s "$bin/mdoc-reader" "$bin/mdoc-issuer" "$wrapped/"
    printf '%s\n' '#!/bin/sh' 'families=AF_UNIX,AF_BLUETOOTH' \
        '[ "$1" != present-online ] || families=$families,AF_INET,AF_INET6' \
        "exec $python $root/Tests/Support/sandbox-exec.py --families \$families $bin/mdoc-holder \"\$@\"" \
        >"$wrapped/mdoc-holder"
    chmod 0755 "$wrapped/mdoc-holder"
    if timeout 600 Tests/Support/ble-bluezoo-test.sh "$wrapped" >"$tmp/bluezoo.out" 2>&1; then
        ok "BLE and online presentations (BlueZoo tier) with mdoc-holder in the sandbox"
        tail -1 "$tmp/bluezoo.out"
    else
        ko "BLE and online presentations (BlueZoo tier) with mdoc-holder in the sandbox:"
        tail -30 "$tmp/bluezoo.out"
    fi
else
    ko "the sandbox does not work on this kernel ($(uname -r)):"
    cat "$tmp/probe.out"
fi

# ---- (f) the sample kiosk policy parses ---------------------------------------------------
# `present` reads the policy first, then opens the store, then connects to the bus. A policy
# error names the file's line; the sample must get past it.
sample="$dest/usr/local/share/doc/mdoc-holder/examples/kiosk-policy.toml"
policy_error() { # policy_error FILE: the error mdoc-holder present stops with
    DBUS_SYSTEM_BUS_ADDRESS="unix:path=$tmp/no-bus" timeout 20 "$bin/mdoc-holder" present \
        --consent "policy:$1" --store "$tmp/policy-store/wallet.sqlite" --once --qr uri 2>&1 || true
}
out="$(policy_error "$sample")"
# Past the policy and the store, it stops at the missing bus: the error names that socket.
check "sample kiosk policy parses (mdoc-holder gets past it, to the bus)" grep -q "$tmp/no-bus" <<<"$out"
grep -q "$tmp/no-bus" <<<"$out" || echo "$out"
sed 's/^allow = \["org.iso.18013.5.1:age_over_18"\]/allow = "age_over_18"/' "$sample" >"$tmp/bad-policy.toml"
out="$(policy_error "$tmp/bad-policy.toml")"
check "a broken copy of the sample is refused with its line number (control)" grep -qiE 'polic.*line [0-9]' <<<"$out"
grep -qiE 'polic.*line [0-9]' <<<"$out" || echo "$out"

tier_summary
