#!/usr/bin/env bash
# The idle service and the start-up, release builds (`make bench-idle`): `mdoc-holder serve`
# (the plain service: D-Bus API, consent by agent) and `mdoc-holder serve --kiosk` (armed: an
# engagement advertised, its QR code written) on a private bus with BlueZoo, each left idle
# SETTLE seconds, then its RSS (target <= 20 MB) with what it is made of: /proc/PID/status
# (anonymous, file-backed, threads), /proc/PID/smaps_rollup, the mappings grouped (heap,
# thread stacks, other anonymous memory, each shared library), whether libcurl is mapped, and
# the executable's resident pages per ELF section (/proc/PID/pagemap). Then process start to the QR
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
# The threads by name: the main thread (after start it only waits for signals), one
# "dbus-loop" per D-Bus connection, Dispatch's threads (the Swift cooperative pool's workers,
# idle ones ending after a few seconds without work, and Dispatch's manager).
threads = {}
for tid in os.listdir(f"/proc/{pid}/task"):
    try:
        comm = open(f"/proc/{pid}/task/{tid}/comm").read().strip()
    except OSError:
        continue
    kind = "Dispatch" if comm.endswith(("-qos", "overcommit")) else comm
    threads[kind] = threads.get(kind, 0) + 1
print("  threads: " + ", ".join(f"{n} {k}" for k, n in sorted(threads.items(), key=lambda kv: -kv[1])))
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
else:
    mapped = any(k.startswith("libcurl") for k in groups)
    print(f"  libcurl: {'mapped' if mapped else 'not mapped'} (not linked: loaded when an online flow first needs it)")
swift = sum(v for k, v in groups.items() if k.startswith(("libswift", "libFoundation", "lib_FoundationICU", "libdispatch", "libBlocksRuntime")))
if swift:
    print(f"  of which {swift / 1024:.1f} MB: the Swift runtime, Foundation (with ICU) and Dispatch")
# The executable's resident pages per ELF section (/proc/PID/pagemap): with the Swift runtime
# and Foundation linked in, its .text is theirs and ours; .rela.dyn/.relr.dyn are the
# relocations read at start, .dynsym/.dynstr/.gnu.hash the symbols it exports.
import struct
sections = []
for l in subprocess.run(["readelf", "-S", "-W", exe], capture_output=True, text=True).stdout.splitlines():
    m = re.match(r"\s*\[\s*\d+\]\s+(\S+)\s+\S+\s+([0-9a-f]+)\s+[0-9a-f]+\s+([0-9a-f]+)", l)
    if m and int(m.group(2), 16):
        sections.append((int(m.group(2), 16), int(m.group(3), 16), m.group(1)))
spans = []
for l in open(f"/proc/{pid}/maps"):
    p = l.split()
    if len(p) >= 6 and p[5] == exe:
        s, e = (int(x, 16) for x in p[0].split("-"))
        spans.append((s, e, int(p[2], 16)))
bias = min(s - off for s, _, off in spans)
resident = {}
with open(f"/proc/{pid}/pagemap", "rb") as pagemap:
    for s, e, _ in spans:
        pagemap.seek(s // 4096 * 8)
        entries = pagemap.read((e - s) // 4096 * 8)
        for i in range(0, len(entries), 8):
            if struct.unpack_from("<Q", entries, i)[0] >> 63:
                va = s + i // 8 * 4096 - bias
                name = next((n for a, size, n in sections if a <= va < a + max(size, 1)), "(headers, padding)")
                resident[name] = resident.get(name, 0) + 4
size = {n: s for _, s, n in sections}
parts = sorted(resident.items(), key=lambda kv: -kv[1])
print(f"  {os.path.basename(exe)} per section, resident of its size: " + ", ".join(
    f"{n} {kb / 1024:.1f} of {size.get(n, 0) / 1048576:.1f} MB" for n, kb in parts[:6]) +
    f", {sum(kb for _, kb in parts[6:]) / 1024:.1f} MB the {max(len(parts) - 6, 0)} others")
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
# The launcher's own floor, the same way: process start to exit of /bin/true (no pseudo-terminal).
floor = []
for _ in range(runs):
    start = time.monotonic()
    subprocess.run(["/bin/true"])
    floor.append((time.monotonic() - start) * 1000)
print(f"launcher floor (/bin/true, start -> exit): median {statistics.median(floor):.1f} ms")
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
