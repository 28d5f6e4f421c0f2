#!/usr/bin/python3
"""Soak of `mdoc-holder serve` (Debian's python3-dbus): SESSIONS back-to-back
StartProximity/Cancel sessions on hci0, the service's RSS (from /proc/PID/status) sampled
every SAMPLE sessions. Prints the samples, then the least-squares slope of RSS over the
sessions of the last half, in bytes per session, and exits 1 when it is above BOUND.

When the slope is above BOUND, the same number of sessions runs again and only the second
window's slope decides. A leak grows in every window; a one-off step (on a loaded machine,
a new allocator arena or another thread of the cooperative pool: 570 kB once, around session
3,200 of one CI run, 387 B/session over that half) does not come back. Both windows print.

  serve_soak.py PID SESSIONS BOUND_BYTES_PER_SESSION [SAMPLE]

A StartProximity refused with Busy right after Cancel returned is a failure too (Cancel
returns once the session is gone).
"""
import sys
import time

import dbus

from testpeers import HOLDER, NAME, PATH, private_bus


def rss_kb(pid):
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise RuntimeError("no VmRSS")


def slope(points):
    n = len(points)
    mx = sum(x for x, _ in points) / n
    my = sum(y for _, y in points) / n
    sxx = sum((x - mx) ** 2 for x, _ in points)
    sxy = sum((x - mx) * (y - my) for x, y in points)
    return sxy / sxx


def window(holder, pid, sessions, sample, bound, label):
    """Runs `sessions` sessions; returns (slope over the last half in bytes/session, ok) or
    None when a StartProximity failed."""
    points = [(0, rss_kb(pid))]
    start = time.time()
    for i in range(1, sessions + 1):
        try:
            session, uri = holder.StartProximity({"adapter": "hci0"}, timeout=30)
        except dbus.DBusException as error:
            print(f"serve soak: session {i}: StartProximity failed: {error.get_dbus_name()}: "
                  f"{error.get_dbus_message()[:200]}", flush=True)
            return None
        holder.Cancel(dbus.UInt64(session), timeout=30)
        if i % sample == 0:
            points.append((i, rss_kb(pid)))
        if i % 500 == 0:
            print(f"serve soak{label}: {i} sessions, RSS {points[-1][1]} kB, {time.time() - start:.1f} s", flush=True)
    half = [p for p in points if p[0] >= sessions / 2]
    per_session = slope(half) * 1024
    print(f"serve soak{label}: RSS kB at " + ", ".join(f"{x}:{y}" for x, y in points), flush=True)
    print(f"serve soak{label}: {sessions} sessions in {time.time() - start:.1f} s; RSS {points[0][1]} -> "
          f"{points[-1][1]} kB; slope over the last half ({len(half)} samples): {per_session:.1f} bytes/session "
          f"(bound {bound:.0f})", flush=True)
    return per_session


def main():
    pid, sessions, bound = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])
    sample = int(sys.argv[4]) if len(sys.argv) > 4 else 50
    bus = private_bus()
    holder = dbus.Interface(bus.get_object(NAME, PATH), HOLDER)
    per_session = window(holder, pid, sessions, sample, bound, "")
    if per_session is None:
        return 1
    if per_session > bound:
        print(f"serve soak: above the bound: {sessions} more sessions decide (a leak grows again, a step does not)",
              flush=True)
        per_session = window(holder, pid, sessions, sample, bound, " (second window)")
        if per_session is None:
            return 1
    return 0 if per_session <= bound else 1


if __name__ == "__main__":
    sys.exit(main())
