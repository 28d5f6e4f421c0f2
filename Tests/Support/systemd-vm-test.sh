#!/usr/bin/env bash
# The package as deployed, under a systemd that runs it: a Debian 12 root (the cached
# debootstrap --variant=minbase root of deb-test.sh, plus systemd, dbus, udev, bluez,
# bluez-test-tools, the TPM libraries systemd-creds loads and the package's dependencies; made
# once here from Debian's packages, cached as .build/systemd-vm-root) boots in a QEMU VM
# (Tests/Support/bluez-vm/run-systemd-vm.sh: Debian's kernel, the root read-only over 9p under a
# RAM overlay, systemd as PID 1, a swtpm TPM 2.0). Inside (Tests/Support/systemd-vm/guest.sh,
# a unit of that systemd): `dpkg -i` of the .deb on the running system, D-Bus activation by a
# Holder1 call, the installed D-Bus policy on the real system bus, btvirt -l2 with bluetoothd
# started by udev and systemd, the package's udev rule, `systemctl start`, `mdoc-reader
# request` on hci1 reading the mDL, kiosk mode by its drop-in, LoadCredentialEncrypted= with a
# KEK from `systemd-creds encrypt` (host key, then host+tpm2), `systemd-analyze security` and
# `journalctl -u mdoc-holder` (no claim value). Every check prints PASS or FAIL.
#
# Usage: Tests/Support/systemd-vm-test.sh    (root: chroot, mount; the Debian mirror the first
# time). The .deb is .build/deb/mdoc-holder_VERSION_ARCH.deb (`make deb`, made here when
# missing); SYSTEMD_VM_REBUILD_ROOT=1 makes the root again; SYSTEMD_VM_TPM=0 boots without the
# swtpm TPM (the KEK is then sealed with the host key only). Prints the time of the root build,
# of the boot and of the whole run. Exit status 0 when every check passed.
set -euo pipefail
repo="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$repo"
t_start=$(date +%s.%N)
since() { awk -v a="$1" -v b="$(date +%s.%N)" 'BEGIN {printf "%.1f", b - a}'; }

if [ "$(id -u)" -ne 0 ]; then
  echo "systemd-vm-test: needs root (chroot, mount)" >&2
  echo "systemd-vm: 0 passed, 1 failed"
  exit 1
fi

version="$(cat VERSION)"
arch="$(dpkg --print-architecture)"
deb=".build/deb/mdoc-holder_${version}_${arch}.deb"
if [ ! -s "$deb" ]; then
  echo "systemd-vm-test: $deb missing: make deb"
  make -s deb >/dev/null
fi

# ---- the root (cached) ---------------------------------------------------------------------
base_tar=.build/debian-root.tar   # deb-test.sh makes it (debootstrap --variant=minbase bookworm)
[ -s "$base_tar" ] || Tests/Support/deb-test.sh --root-only
vm_root="$repo/.build/systemd-vm-root"
# What the booted system needs beyond minbase: systemd as PID 1, the system bus, udev (the
# package's rule, bluetooth.target), BlueZ and btvirt, kmod (modprobe), and the TPM 2.0
# libraries systemd-creds loads for --with-key=tpm2. No recommends.
packages=(systemd dbus udev kmod bluez bluez-test-tools
  libtss2-esys-3.0.2-0 libtss2-rc0 libtss2-mu0 libtss2-tcti-device0)
depends="$(dpkg-deb -f "$deb" Depends)"
# The root is made again when its inputs change: the base root, the package list, the .deb's
# Depends (installed here, so that `dpkg -i` in the guest needs no network), this recipe.
recipe="1 ${packages[*]} | $depends | $(stat -c '%s %Y' "$base_tar")"
in_root() { # in_root DIR COMMAND...: COMMAND in the chroot DIR, /proc and /dev mounted privately
  local dir=$1
  shift
  unshare -m --propagation private sh -c '
    mount -t proc proc "$0/proc" && mount --rbind /dev "$0/dev" && exec chroot "$0" "$@"' "$dir" \
    env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 DEBIAN_FRONTEND=noninteractive "$@"
}
root_built=cached
if [ ! -f "$vm_root/.recipe" ] || [ "$(cat "$vm_root/.recipe")" != "$recipe" ] || [ -n "${SYSTEMD_VM_REBUILD_ROOT:-}" ]; then
  t_root=$(date +%s.%N)
  echo "systemd-vm-test: making the root in $vm_root from $base_tar (+ ${packages[*]} and the package's Depends)"
  rm -rf "$vm_root" "$vm_root.tmp"
  mkdir -p "$vm_root.tmp"
  tar -C "$vm_root.tmp" -xf "$base_tar"
  cp /etc/resolv.conf "$vm_root.tmp/etc/resolv.conf"
  log="$repo/.build/systemd-vm-root.log"
  if ! { in_root "$vm_root.tmp" apt-get update -qq &&
    in_root "$vm_root.tmp" apt-get install -y -q --no-install-recommends "${packages[@]}" &&
    in_root "$vm_root.tmp" apt-get satisfy -y -q --no-install-recommends "$depends"; } >"$log" 2>&1; then
    tail -n 30 "$log"
    echo "FAIL: making the root (apt-get in the chroot; log: $log)"
    echo "systemd-vm: 0 passed, 1 failed"
    exit 1
  fi
  in_root "$vm_root.tmp" apt-get clean
  # What a booted system has and a chroot build must not: services may start (deb-test.sh's
  # policy-rc.d forbids it), no host resolver, no package lists (nothing is fetched in the VM).
  rm -rf "$vm_root.tmp/usr/sbin/policy-rc.d" "$vm_root.tmp/etc/resolv.conf" "$vm_root.tmp"/var/lib/apt/lists/*
  : >"$vm_root.tmp/etc/machine-id"
  echo "$recipe" >"$vm_root.tmp/.recipe"
  mv "$vm_root.tmp" "$vm_root"
  root_built="made in $(since "$t_root") s"
fi
echo "systemd-vm-test: root $root_built ($(du -sh "$vm_root" | cut -f1)): $(in_root "$vm_root" dpkg-query -W -f='${Version}' systemd 2>/dev/null | sed 's/^/systemd /')"

# ---- the run ---------------------------------------------------------------------------------
work="$repo/.build/systemd-vm"
rm -rf "$work"
mkdir -p "$work/ctl/data"
cp Tests/Support/systemd-vm/guest.sh "$work/ctl/guest.sh"
data="$work/ctl/data"
cp "$deb" "$data/mdoc-holder.deb"
# A whole archive (not one `make deb` is still writing).
if ! dpkg-deb --fsys-tarfile "$data/mdoc-holder.deb" >/dev/null; then
  echo "FAIL: $deb is not a complete package (being rebuilt?)"
  echo "systemd-vm: 0 passed, 1 failed"
  exit 1
fi
cp Fixtures/mdl.cbor Fixtures/mdl-device-key.pem Fixtures/pki/iaca.pem Fixtures/pki/reader-ca.pem \
  Fixtures/pki/reader.pem Fixtures/pki/reader.key.pem Tests/Support/vm/main.conf "$data/"
# The claim values the journal must not hold: from the fixture's claims.
sed -n 's/^  "\(family_name\|given_name\|birth_date\|document_number\|resident_address\|birth_place\)": "\([^"]*\)".*/\2/p' \
  Fixtures/mdl-claims.json >"$data/claim-values"
# A TPM 2.0 (swtpm; make test-deps installs it) unless SYSTEMD_VM_TPM=0: the guest then seals
# the KEK to it as well, and fails when it has none.
export SYSTEMD_VM_TPM="${SYSTEMD_VM_TPM:-1}"
[ "$SYSTEMD_VM_TPM" != 1 ] || : >"$data/expect-tpm"
t_boot=$(date +%s.%N)
status=0
Tests/Support/bluez-vm/run-systemd-vm.sh "$vm_root" "$work/ctl" | tee "$work/out.txt" || status=$?
vm_time=$(since "$t_boot")
passed=$(grep -c '^PASS: ' "$work/out.txt" || true)
failed=$(grep -c '^FAIL: ' "$work/out.txt" || true)
if ! grep -q '^systemd-vm: guest done' "$work/out.txt"; then
  failed=$((failed + 1))
  echo "FAIL: the guest did not finish its checks (run-systemd-vm.sh status $status); console: $work/ctl/console.log"
  tail -n 30 "$work/ctl/console.log" 2>/dev/null | sed 's/^/  | /'
elif [ "$status" != 0 ] && [ "$failed" = 0 ]; then
  failed=$((failed + 1))
  echo "FAIL: the guest's checks ended with status $status"
fi
boot=$(sed -n 's/^info: boot: //p' "$work/out.txt" | head -n 1)
echo "systemd-vm: timings: root $root_built; VM ${vm_time} s (the test unit started at ${boot:-?} of uptime); whole run $(since "$t_start") s"
echo "systemd-vm: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
