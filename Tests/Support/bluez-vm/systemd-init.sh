#!/bin/bash
# The first process of a run-systemd-vm.sh guest: the initramfs (setup-host.sh) switch_roots into
# the overlay of the Debian root and runs this as PID 1 (/run/bvm/stage2.sh). It adds one unit to
# the RAM overlay, bvm-test.service (wanted by multi-user.target), which runs /run/bvm/guest.sh
# once the system is up, writes its exit status to /run/bvm/rc and powers the machine off; then
# it execs systemd, which stays PID 1 (the same as init=/lib/systemd/systemd, past an initramfs).
set -u
units=/etc/systemd/system

cat >/usr/local/sbin/bvm-run <<'EOF'
#!/bin/bash
# bvm-test.service: the test's output to the second serial port (the host's stdout), raw.
stty -F /dev/ttyS1 raw -echo -onlcr 2>/dev/null
bash /run/bvm/guest.sh
rc=$?
echo "$rc" >/run/bvm/rc.tmp && mv /run/bvm/rc.tmp /run/bvm/rc
sync
systemctl poweroff --no-block
EOF
chmod 0755 /usr/local/sbin/bvm-run

cat >"$units/bvm-test.service" <<'EOF'
[Unit]
Description=the systemd VM test (Tests/Support/bluez-vm/run-systemd-vm.sh)
After=basic.target dbus.service systemd-udevd.service systemd-udev-trigger.service
Wants=dbus.service

[Service]
# simple, not oneshot: the boot finishes (is-system-running can reach "running") while it runs.
Type=simple
ExecStart=/usr/local/sbin/bvm-run
StandardOutput=tty
StandardError=inherit
TTYPath=/dev/ttyS1
TTYReset=no
TTYVHangup=no
TimeoutStopSec=10s
EOF
mkdir -p "$units/multi-user.target.wants"
ln -sf ../bvm-test.service "$units/multi-user.target.wants/bvm-test.service"
# No login prompts on the consoles: ttyS0 is the console log, ttyS1 the test's output.
for u in serial-getty@ttyS0.service serial-getty@ttyS1.service getty@tty1.service; do
  ln -sf /dev/null "$units/$u"
done
echo bvm-systemd >/etc/hostname

exec /lib/systemd/systemd
