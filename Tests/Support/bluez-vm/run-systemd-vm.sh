#!/bin/bash
# run-systemd-vm.sh ROOT_DIR CTL_DIR
# Boots a throw-away QEMU VM (Debian's kernel and the initramfs of setup-host.sh) whose root is
# ROOT_DIR (a Debian root with systemd, e.g. one made with debootstrap) shared read-only over 9p
# under a RAM overlay, with systemd as PID 1 (systemd-init.sh). Once the system is up, the unit
# bvm-test.service runs CTL_DIR/guest.sh (as /run/bvm/guest.sh: CTL_DIR is mounted read-write at
# /run/bvm), its output streaming to this script's stdout through the second serial port; then
# the guest powers off and this script exits with guest.sh's exit status.
# 125: the VM did not report a status (did not boot, crashed); 124: timeout.
# CTL_DIR receives console.log (the kernel's and systemd's console, ttyS0) and rc.
#
# Environment knobs:
#   SYSTEMD_VM_MEM      guest memory in MiB (default 1024)
#   SYSTEMD_VM_CPUS     guest vCPUs (default: host cores, max 2)
#   SYSTEMD_VM_TIMEOUT  seconds before the VM is killed (default 900)
#   SYSTEMD_VM_TPM      1: a TPM 2.0 emulated by swtpm (QEMU tpm-tis), 0: none (default: 1 when
#                       swtpm is installed)
#   SYSTEMD_VM_ARGS     extra kernel command line (e.g. systemd.log_level=debug)
#   BLUEZ_VM_ACCEL, BLUEZ_VM_CACHE as for run-in-vm.sh
set -u
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
[ $# -eq 2 ] || { echo "usage: $0 ROOT_DIR CTL_DIR" >&2; exit 2; }
root_dir="$(realpath "$1")"
ctl="$(realpath "$2")"
[ -x "$root_dir/lib/systemd/systemd" ] || { echo "run-systemd-vm: $root_dir has no /lib/systemd/systemd" >&2; exit 2; }
[ -f "$ctl/guest.sh" ] || { echo "run-systemd-vm: $ctl/guest.sh missing" >&2; exit 2; }
export BLUEZ_VM_CACHE="${BLUEZ_VM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/bluez-vm}"
kver="$("$HERE/setup-host.sh")" || { echo "run-systemd-vm: host setup failed" >&2; exit 125; }
KDIR="$BLUEZ_VM_CACHE/kernel"
# The initramfs runs /run/bvm/stage2.sh as PID 1 after switch_root: here, the hand-over to systemd.
cp "$HERE/systemd-init.sh" "$ctl/stage2.sh"
rm -f "$ctl/rc" "$ctl/console.log"

tpm=()
swtpm_pid=""
tpmdir=""
cleanup() {
  [ -z "$swtpm_pid" ] || kill "$swtpm_pid" 2>/dev/null
  [ -z "$tpmdir" ] || rm -rf "$tpmdir"
}
trap cleanup EXIT
if [ "${SYSTEMD_VM_TPM:-$(command -v swtpm >/dev/null && echo 1 || echo 0)}" = 1 ]; then
  # A fresh TPM 2.0 per boot (swtpm, state in a throw-away dir); QEMU initialises it.
  tpmdir="$(mktemp -d /tmp/systemd-vm-tpm.XXXXXX)"
  swtpm socket --tpm2 --tpmstate "dir=$tpmdir" --ctrl "type=unixio,path=$tpmdir/sock" \
    --log "file=$tpmdir/swtpm.log" >/dev/null 2>&1 &
  swtpm_pid=$!
  for _ in $(seq 1 50); do [ -S "$tpmdir/sock" ] && break; sleep 0.1; done
  [ -S "$tpmdir/sock" ] || { echo "run-systemd-vm: swtpm did not start" >&2; exit 125; }
  # shellcheck disable=SC2054 # QEMU's comma-separated option values
  tpm=(-chardev "socket,id=chrtpm,path=$tpmdir/sock" -tpmdev emulator,id=tpm0,chardev=chrtpm
    -device tpm-tis,tpmdev=tpm0)
fi

accel="${BLUEZ_VM_ACCEL:-}"
if [ -z "$accel" ]; then
  # As run-in-vm.sh: KVM only when it is hardware-assisted (kvm_intel / kvm_amd), else TCG.
  if [ -r /dev/kvm ] && [ -w /dev/kvm ] && { [ -d /sys/module/kvm_intel ] || [ -d /sys/module/kvm_amd ]; }; then
    accel=kvm
  else
    accel=tcg
  fi
fi
# shellcheck disable=SC2054
if [ "$accel" = kvm ]; then acc=(-accel kvm -cpu host); else acc=(-accel tcg,thread=multi -cpu max); fi
cpus="${SYSTEMD_VM_CPUS:-$(nproc)}"; [ "$cpus" -gt 2 ] && cpus=2

timeout --kill-after=10 "${SYSTEMD_VM_TIMEOUT:-900}" \
  qemu-system-x86_64 "${acc[@]}" -m "${SYSTEMD_VM_MEM:-1024}" -smp "$cpus" \
  -nodefaults -no-user-config -display none -no-reboot \
  -serial "file:$ctl/console.log" -chardev stdio,id=out,signal=off -serial chardev:out \
  -device virtio-rng-pci "${tpm[@]}" \
  -kernel "$KDIR/boot/vmlinuz-$kver" -initrd "$BLUEZ_VM_CACHE/initramfs.cpio.gz" \
  -append "console=ttyS0 panic=-1 rdinit=/init mitigations=off tsc=reliable systemd.show_status=1 ${SYSTEMD_VM_ARGS:-}" \
  -virtfs "local,path=$root_dir,mount_tag=root,security_model=passthrough,readonly=on,multidevs=remap,id=root" \
  -virtfs "local,path=$KDIR/lib/modules,mount_tag=mods,security_model=passthrough,readonly=on,id=mods" \
  -virtfs "local,path=$ctl,mount_tag=ctl,security_model=passthrough,id=ctl" </dev/null
qrc=$?
if [ -f "$ctl/rc" ]; then exit "$(cat "$ctl/rc")"; fi
if [ "$qrc" = 124 ] || [ "$qrc" = 137 ]; then echo "run-systemd-vm: timed out" >&2; exit 124; fi
echo "run-systemd-vm: the VM ended without reporting a status (qemu exit $qrc); the console's last lines:" >&2
tail -n 40 "$ctl/console.log" >&2 2>/dev/null
exit 125
