#!/usr/bin/env bash
# The idle service and the start-up, release builds (`make bench-idle`): `mdoc-holder serve`
# (the plain service: D-Bus API, consent by agent) and `mdoc-holder serve --kiosk` (armed: an
# engagement advertised, its QR code written) on a private bus with BlueZoo, each left idle
# SETTLE seconds, then its RSS (target <= 20 MB) with what it is made of: /proc/PID/status
# (anonymous, file-backed, threads), /proc/PID/smaps_rollup, and the mappings grouped (heap,
# thread stacks, other anonymous memory, each shared library). Then process start to the QR
# code drawn on a terminal (`present --qr terminal`, a pseudo-terminal; target <= 10 ms) and to
# the `mdoc:` URI (`present --qr uri`), RUNS times each, with the median.
# Usage: Tests/Support/idle-bench.sh [BIN_DIR] [RUNS]       # BIN_DIR default .build/release
#   SETTLE=10 (seconds idle before RSS is read)
set -uo pipefail
cd "$(dirname "$0")/../.."
bin=$(realpath "${1:-.build/release}")
runs=${2:-9}
settle=${SETTLE:-10}
[ -x "$bin/mdoc-holder" ] || { echo "idle-bench: $bin/mdoc-holder not found: build it first" >&2; exit 2; }
. Tests/Support/lib/tier.sh
tier_begin idle-bench
serve_pid=""
tier_track_variables serve_pid
export XDG_CONFIG_HOME="$tmp/config"
import_test_mdl "$tmp/wallet.sqlite" || die "import"
write_policy "$tmp/kiosk.toml" trusted org.iso.18013.5.1.mDL org.iso.18013.5.1:age_over_18
bus="$tmp/bus"
address=$(tier_bus_start "$bus") || die "BlueZoo did not start"
tier_at_exit "Tests/Support/bluezoo-bus.sh stop '$bus' >/dev/null 2>&1"
export DBUS_SYSTEM_BUS_ADDRESS="$address"
echo "idle-bench ($(basename "$(dirname "$bin")")/$(basename "$bin") build, $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg))"

# memory LABEL PID: RSS and its parts.
memory() {
  python3 - "$1" "$2" <<'PY'
import re, sys
label, pid = sys.argv[1], sys.argv[2]
status = dict(l.split(":", 1) for l in open(f"/proc/{pid}/status") if ":" in l)
kb = lambda k: int(status[k].split()[0]) if k in status else 0
rss = kb("VmRSS")
print(f"{label}: RSS {rss / 1024:.1f} MB (target <= 20 MB)  anonymous {kb('RssAnon') / 1024:.1f} MB, "
      f"file-backed {kb('RssFile') / 1024:.1f} MB, shmem {kb('RssShmem') / 1024:.1f} MB, "
      f"{status['Threads'].strip()} threads")
rollup = {l.split(":")[0]: l.split(":")[1].strip() for l in open(f"/proc/{pid}/smaps_rollup").readlines()[1:]}
print("  smaps_rollup: " + ", ".join(f"{k} {rollup[k]}" for k in ("Rss", "Pss", "Private_Dirty", "Shared_Clean", "Private_Clean") if k in rollup))
groups, name, tids = {}, None, set()
import os
stacks = set()
for tid in os.listdir(f"/proc/{pid}/task"):
    try:
        sp = int(open(f"/proc/{pid}/task/{tid}/stat").read().rsplit(")", 1)[1].split()[26])
    except Exception:
        continue
    stacks.add(sp)
current = None
for line in open(f"/proc/{pid}/smaps"):
    m = re.match(r"^([0-9a-f]+)-([0-9a-f]+) \S+ \S+ \S+ \d+\s*(.*)$", line)
    if m:
        start, end, path = int(m.group(1), 16), int(m.group(2), 16), m.group(3).strip()
        if path == "[heap]":
            current = "heap ([heap], malloc's main arena)"
        elif path == "[stack]":
            current = "main thread stack"
        elif path.startswith("/"):
            current = os.path.basename(path)
        elif path:
            current = path
        else:
            current = "anonymous (other threads' stacks and arenas, Swift and OpenSSL allocations)"
        continue
    if line.startswith("Rss:") and current:
        groups[current] = groups.get(current, 0) + int(line.split()[1])
top = sorted(groups.items(), key=lambda kv: -kv[1])
for name, size in top[:10]:
    print(f"  {size / 1024:7.1f} MB  {name}")
rest = sum(size for _, size in top[10:])
print(f"  {rest / 1024:7.1f} MB  {len(top) - 10} other mappings")
# By origin: the libraries only libcurl needs (loaded at start, used only by online flows), the
# Swift runtime and Foundation, the rest.
import subprocess
def needs(path):
    out = subprocess.run(["ldd", path], capture_output=True, text=True).stdout
    return {l.split()[0] for l in out.splitlines() if "=>" in l}
exe = os.readlink(f"/proc/{pid}/exe")
paths = {os.path.basename(l.split("=>")[1].split()[0]): l.split("=>")[1].split()[0]
         for l in subprocess.run(["ldd", exe], capture_output=True, text=True).stdout.splitlines()
         if "=>" in l and "/" in l.split("=>")[1]}
direct = [l.split("[")[1].rstrip("]\n") for l in subprocess.run(["readelf", "-d", exe], capture_output=True,
          text=True).stdout.splitlines() if "(NEEDED)" in l]
curl = next((d for d in direct if d.startswith("libcurl")), None)
if curl and curl in paths:
    others = set(direct) - {curl}
    for d in direct:
        if d != curl and d in paths:
            others |= needs(paths[d])
    only = (needs(paths[curl]) | {curl}) - others
    real = {os.path.basename(os.path.realpath(paths[n])) for n in only if n in paths}
    size = sum(v for k, v in groups.items() if k in real)
    print(f"  of which {size / 1024:.1f} MB: {curl} and the {len(only) - 1} libraries only it needs (GnuTLS, Kerberos, LDAP, SSH, ...)")
swift = sum(v for k, v in groups.items() if k.startswith(("libswift", "libFoundation", "lib_FoundationICU", "libdispatch", "libBlocksRuntime")))
print(f"  of which {swift / 1024:.1f} MB: the Swift runtime, Foundation (with ICU) and Dispatch")
PY
}

# idle LABEL ARGS...: serve ARGS, idle $settle s, then its memory; stopped after.
idle() {
  local label=$1
  shift
  "$bin/mdoc-holder" serve "$@" --store "$tmp/wallet.sqlite" 2>"$tmp/serve.err" &
  serve_pid=$!
  sleep "$settle"
  if kill -0 "$serve_pid" 2>/dev/null; then memory "$label" "$serve_pid"; else
    echo "$label: serve exited"; tail -5 "$tmp/serve.err"; fi
  kill -TERM "$serve_pid" 2>/dev/null; wait "$serve_pid" 2>/dev/null; serve_pid=""
}
idle "idle serve (plain service, consent by agent)" --consent agent
idle "idle serve --kiosk (armed, QR written)" --kiosk --consent "policy:$tmp/kiosk.toml" \
  --reader-trust Fixtures/pki/reader-ca.pem --untrusted-readers refuse --qr "png:$tmp/qr.png"

# Process start to the QR code on a terminal, and to the mdoc: URI.
python3 - "$bin/mdoc-holder" "$tmp/wallet.sqlite" "$runs" "$tmp/kiosk.toml" <<'PY'
import os, pty, select, signal, statistics, subprocess, sys, time
holder, store, runs, policy = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
def until(mode, marker):
    master, slave = pty.openpty()
    start = time.monotonic()
    p = subprocess.Popen([holder, "present", "--qr", mode, "--once", "--consent", f"policy:{policy}",
                          "--store", store],
                         stdout=slave, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL)
    os.close(slave)
    seen, took = b"", None
    while time.monotonic() - start < 10:
        r, _, _ = select.select([master], [], [], 0.5)
        if not r:
            continue
        try:
            seen += os.read(master, 65536)
        except OSError:
            break
        if marker(seen):
            took = time.monotonic() - start
            break
    p.send_signal(signal.SIGTERM)
    try:
        p.wait(5)
    except subprocess.TimeoutExpired:
        p.kill(); p.wait()
    os.close(master)
    return took
for mode, label, marker in [
    # The drawing (ESC [97;40m lines of blocks) is followed by the URI line: its end is the QR's.
    ("terminal", "process start -> QR code on a terminal",
     lambda b: b.count(b"\x1b[97;40m") >= 20 and b"mdoc:" in b and b"\n" in b[b.index(b"mdoc:"):]),
    ("uri", "process start -> mdoc: URI printed", lambda b: b"mdoc:" in b and b"\n" in b[b.index(b"mdoc:"):]),
]:
    times = [until(mode, marker) for _ in range(runs)]
    good = sorted(t * 1000 for t in times if t is not None)
    if not good:
        print(f"{label}: not seen"); continue
    print(f"{label}: median {statistics.median(good):.1f} ms ({', '.join(f'{t:.1f}' for t in good)} ms; "
          f"{len(good)} of {runs} runs){' (target <= 10 ms)' if mode == 'terminal' else ''}")
PY
