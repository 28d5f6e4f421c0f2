#!/usr/bin/env bash
# The link order of the release binaries (packaging/link-order.txt, which
# packaging/release-build.sh gives ld.lld as --symbol-ordering-file): the
# functions of mdoc-holder that run when `serve` starts and waits (plain and armed kiosk) and
# when `present --qr terminal` starts, as callgrind sees them on a private bus with BlueZoo,
# placed together at the start of .text. The Swift runtime and Foundation are linked in, and
# the kernel maps a binary's code 64 kB around every first touch: scattered, the ~1.3 MB that
# start-up runs made 9-10 MB of .text resident in an idle service; packed, 6-7 MB. Only the
# layout changes (no code, no behaviour); a function missing from the list (renamed since) is
# placed as before (ld.lld --no-warn-symbol-ordering), so a stale list costs memory, never
# correctness. Regenerate after large changes: `Tests/Support/link-order.sh .build/release`.
# Needs valgrind. Usage: Tests/Support/link-order.sh [BIN_DIR] [OUT]   # OUT default packaging/link-order.txt
set -uo pipefail
cd "$(dirname "$0")/../.."
bin=$(realpath "${1:-.build/release}")
out=$(realpath -m "${2:-packaging/link-order.txt}")
[ -x "$bin/mdoc-holder" ] || { echo "link-order: $bin/mdoc-holder not found: build it first" >&2; exit 2; }
. Tests/Support/lib/tier.sh
tier_begin link-order
need_bin valgrind "apt-get install valgrind"
run_pid=""
tier_track_variables run_pid
export XDG_CONFIG_HOME="$tmp/config"
import_test_mdl "$tmp/wallet.sqlite" || die "import"
write_policy "$tmp/kiosk.toml" trusted org.iso.18013.5.1.mDL org.iso.18013.5.1:age_over_18
address=$(tier_bus_start "$tmp/bus") || die "BlueZoo did not start"
tier_at_exit "Tests/Support/bluezoo-bus.sh stop '$tmp/bus' >/dev/null 2>&1"
export DBUS_SYSTEM_BUS_ADDRESS="$address"
# valgrind cannot read the DWARF of this binary: the same binary without it (same addresses).
objcopy --strip-debug "$bin/mdoc-holder" "$tmp/mdoc-holder" || die "objcopy"

# profile NAME MARKER ARGS...: ARGS under callgrind until MARKER is in its standard error (or
# 60 s), then stopped.
profile() {
  local name=$1 marker=$2
  shift 2
  valgrind --tool=callgrind --demangle=no --callgrind-out-file="$tmp/$name.cg" \
    "$tmp/mdoc-holder" "$@" --store "$tmp/wallet.sqlite" </dev/null >"$tmp/$name.out" 2>"$tmp/$name.err" &
  run_pid=$!
  for _ in $(seq 600); do grep -qF -- "$marker" "$tmp/$name.err" "$tmp/$name.out" && break; sleep 0.1; done
  sleep 2
  kill -TERM "$run_pid" 2>/dev/null; wait "$run_pid" 2>/dev/null; run_pid=""
  if [ -s "$tmp/$name.cg" ]; then ok; else die "$name: no profile" "$tmp/$name.err"; fi
}
profile serve "serving org.mdocholder" serve --consent agent
profile kiosk "engagement ready" serve --kiosk --consent "policy:$tmp/kiosk.toml" \
  --reader-trust Fixtures/pki/reader-ca.pem --untrusted-readers refuse --qr "png:$tmp/qr.png"
profile present "waiting for a reader" present --qr terminal --consent "policy:$tmp/kiosk.toml"

# The inputs of the link: functions in a section of their own (.text.NAME) go first, those
# sharing their object's .text after them (ld.lld moves whole sections: one such function
# brings its neighbours along).
objects="$bin/mdoc-holder.product/Objects.LinkFileList"
[ -f "$objects" ] || die "$objects not found: the build directory of a swift build"
archives=$(dirname "$(realpath "$(command -v swift)")")/../lib/swift_static/linux
python3 - "$tmp/mdoc-holder" "$out" "$objects" "$archives" "$tmp"/*.cg <<'PY' || die "writing the list"
import glob, re, subprocess, sys
binary, out, objects, archives, profiles = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5:]
own = set()
for path in [l.strip().strip("'") for l in open(objects)] + glob.glob(f"{archives}/*.a"):
    for line in subprocess.run(["readelf", "-S", "-W", path], capture_output=True, text=True).stdout.splitlines():
        m = re.match(r"\s*\[\s*\d+\]\s+\.text\.(\S+)\s", line)
        if m:
            own.add(m.group(1))
ran = set()
for path in profiles:
    for line in open(path, errors="replace"):
        m = re.match(r"^c?fn=\(\d+\) (.+)$", line.rstrip("\n"))
        if m:
            ran.add(m.group(1))
text = None
for line in subprocess.run(["readelf", "-S", "-W", binary], capture_output=True, text=True).stdout.splitlines():
    m = re.match(r"\s*\[\s*\d+\]\s+\.text\s+\S+\s+([0-9a-f]+)\s+[0-9a-f]+\s+([0-9a-f]+)", line)
    if m:
        text = (int(m.group(1), 16), int(m.group(2), 16))
names = set()
for line in subprocess.run(["nm", "--defined-only", binary], capture_output=True, text=True).stdout.splitlines():
    parts = line.split()
    # Functions of .text only (not .init/.fini, whose pieces must stay in their order).
    if len(parts) == 3 and parts[1] in "tTwW" and parts[2] in ran and text[0] <= int(parts[0], 16) < sum(text):
        names.add(parts[2])
first = sorted(n for n in names if n in own)
with open(out, "w") as f:
    f.write("".join(n + "\n" for n in first + sorted(names - set(first))))
print(f"link-order: {len(names)} functions of {len(ran)} seen run ({len(first)} in sections of their own), into {out}")
PY
tier_summary
