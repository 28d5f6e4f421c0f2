#!/usr/bin/env bash
# The real-bluetoothd tier: BlueZ 5.66's bluetoothd with two virtual LE controllers (btvirt)
# in a throw-away QEMU VM (Tests/Support/bluez-vm), the real `mdoc-holder present` on hci0 and
# `mdoc-reader request` on hci1. Runs every Tests/Support/vm/case-*.sh; cases that need the
# same bluetoothd configuration (`# vm-config: NAME` -> vm/NAME.conf, default vm/main.conf)
# share one boot.
#   Tests/Support/ble-vm-test.sh [BIN_DIR]          # BIN_DIR default .build/debug
#   VM_CASES='case-10*' Tests/Support/ble-vm-test.sh  # only the cases matching the pattern
# Only one VM runs at a time on a machine: each boot holds /tmp/bluez-vm.lock (flock).
# Exit status: 0 when every case passed; a VM that does not boot is a failure.
set -euo pipefail
cd "$(dirname "$0")/../.."
repo=$PWD
bin=$(realpath "${1:-.build/debug}")
for b in mdoc-holder mdoc-reader mdoc-issuer; do
  [ -x "$bin/$b" ] || { echo "ble-vm-test: $bin/$b not found: build it first" >&2; exit 2; }
done
t0=$(date +%s.%N)
# Under the repository: the VM mounts $PWD read-write at the same path (its /tmp is its own).
work="$repo/.build/vm-test"
rm -rf "$work"
mkdir -p "$work"
Tests/Support/vm/prepare.sh "$bin" "$work/data"

declare -A groups=()
for c in Tests/Support/vm/case-*.sh; do
  # shellcheck disable=SC2053
  [[ "$(basename "$c")" == ${VM_CASES:-*} ]] || continue
  conf=$(sed -n 's/^# vm-config: *\([A-Za-z0-9_-]*\).*/\1/p' "$c" | head -n 1)
  conf=${conf:-main}
  [ -f "Tests/Support/vm/$conf.conf" ] || { echo "ble-vm-test: $c names missing vm/$conf.conf" >&2; exit 2; }
  groups[$conf]+="$c "
done
[ "${#groups[@]}" -gt 0 ] || { echo "ble-vm-test: no case matches '${VM_CASES:-*}'" >&2; exit 2; }

passed=0 failed=0 boots=0
for conf in $(printf '%s\n' "${!groups[@]}" | sort); do
  # shellcheck disable=SC2206
  cases=(${groups[$conf]})
  out="$work/result-$conf.txt"
  echo "ble-vm-test: booting a VM with vm/$conf.conf for ${#cases[@]} case(s)"
  boots=$((boots + 1))
  status=0
  BLUEZ_VM_MAIN_CONF="Tests/Support/vm/$conf.conf" BLUEZ_VM_LOGS="$work/logs-$conf" \
    flock /tmp/bluez-vm.lock Tests/Support/bluez-vm/run-in-vm.sh \
    Tests/Support/vm/guest-tests.sh "$bin" "$work/data" "${cases[@]}" | tee "$out" || status=$?
  summary=$(grep -E '^vm: [0-9]+ passed, [0-9]+ failed' "$out" | tail -n 1 || true)
  if [ -n "$summary" ]; then
    read -r p f < <(sed -E 's/^vm: ([0-9]+) passed, ([0-9]+) failed.*/\1 \2/' <<<"$summary")
    passed=$((passed + p))
    failed=$((failed + f))
    if [ "$status" != 0 ] && [ "$f" = 0 ]; then failed=$((failed + 1)); echo "FAIL: the VM run ended with status $status"; fi
  else
    failed=$((failed + ${#cases[@]}))
    echo "FAIL: the VM (vm/$conf.conf) did not run its cases (run-in-vm.sh status $status); logs in $work/logs-$conf"
  fi
done
wall=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN {printf "%.1f", b - a}')
echo "vm: $passed passed, $failed failed; wall time ${wall} s for $boots boot(s)"
[ "$failed" -eq 0 ]
