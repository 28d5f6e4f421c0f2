#!/usr/bin/python3
"""Soak of `mdoc-holder serve` (Debian's python3-dbus): SESSIONS back-to-back
StartProximity/Cancel sessions on hci0, the service's RSS (from /proc/PID/status) sampled
every SAMPLE sessions. Prints the samples, then the least-squares slope of RSS over the
sessions of the last half, in bytes per session, and exits 1 when it is above BOUND.

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


def main():
    pid, sessions, bound = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])
    sample = int(sys.argv[4]) if len(sys.argv) > 4 else 50
    bus = private_bus()
    holder = dbus.Interface(bus.get_object(NAME, PATH), HOLDER)
    points = [(0, rss_kb(pid))]
    start = time.time()
    for i in range(1, sessions + 1):
        try:
            session, uri = holder.StartProximity({"adapter": "hci0"}, timeout=30)
        except dbus.DBusException as error:
            print(f"serve soak: session {i}: StartProximity failed: {error.get_dbus_name()}: "
                  f"{error.get_dbus_message()[:200]}", flush=True)
            return 1
        holder.Cancel(dbus.UInt64(session), timeout=30)
        if i % sample == 0:
            points.append((i, rss_kb(pid)))
        if i % 500 == 0:
            print(f"serve soak: {i} sessions, RSS {points[-1][1]} kB, {time.time() - start:.1f} s", flush=True)
    half = [p for p in points if p[0] >= sessions / 2]
    per_session = slope(half) * 1024
    print("serve soak: RSS kB at " + ", ".join(f"{x}:{y}" for x, y in points), flush=True)
    print(f"serve soak: {sessions} sessions in {time.time() - start:.1f} s; RSS {points[0][1]} -> {points[-1][1]} kB; "
          f"slope over the last half ({len(half)} samples): {per_session:.1f} bytes/session (bound {bound:.0f})",
          flush=True)
    return 0 if per_session <= bound else 1


if __name__ == "__main__":
    sys.exit(main())
