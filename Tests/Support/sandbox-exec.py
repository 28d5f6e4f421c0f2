#!/usr/bin/python3
"""Runs a program under the kernel-level restrictions mdoc-holder.service asks systemd for, to
check that the real binary works inside them without a systemd to start it:

  NoNewPrivileges=yes                          prctl(PR_SET_NO_NEW_PRIVS)
  MemoryDenyWriteExecute=yes                   prctl(PR_SET_MDWE, PR_MDWE_REFUSE_EXEC_GAIN)
                                               (Linux 6.3+; the same rule systemd enforces
                                               with seccomp: no W+X mapping, none made X later)
  SystemCallFilter=@system-service             seccomp allow-list of exactly the system calls
  SystemCallErrorNumber=EPERM                  `systemd-analyze syscall-filter` lists for the
                                               set, others fail with EPERM
  RestrictAddressFamilies=FAMILY...            socket() only for these families (EAFNOSUPPORT
                                               otherwise, as systemd does)
  ProtectProc=invisible, ProcSubset=pid        a private /proc mounted hidepid=invisible,subset=pid
                                               in a new mount namespace
  CapabilityBoundingSet=, AmbientCapabilities= every capability dropped from the bounding,
                                               effective, permitted and inheritable sets (the
                                               test runs as root: uid 0 without capabilities)

Usage: sandbox-exec.py --families AF_UNIX,AF_BLUETOOTH PROGRAM ARGS...
       sandbox-exec.py --probe      (exit 0 when W+X memory and an AF_INET socket are refused
                                     and an AF_UNIX socket is not: the sandbox works here)

It does not reproduce the rest of the unit (User=, ProtectSystem=, PrivateTmp=, ...):
`systemd-analyze security` reports those. Needs root (the mount namespace). libseccomp is reached
with ctypes (libseccomp2 is a dependency of systemd), so no extra package is needed.
"""
import ctypes
import errno
import os
import socket
import subprocess
import sys

PR_SET_NO_NEW_PRIVS = 38
PR_SET_MDWE, PR_MDWE_REFUSE_EXEC_GAIN = 65, 1
SCMP_ACT_ALLOW = 0x7FFF0000
SCMP_CMP_EQ = 4


def scmp_act_errno(code):
    return 0x00050000 | (code & 0xFFFF)


class ArgCmp(ctypes.Structure):
    _fields_ = [("arg", ctypes.c_uint), ("op", ctypes.c_int),
                ("datum_a", ctypes.c_uint64), ("datum_b", ctypes.c_uint64)]


def syscall_set(name, seen=None):
    """The system calls of a systemd set (@name), its nested sets expanded."""
    seen = set() if seen is None else seen
    if name in seen:
        return set()
    seen.add(name)
    listing = subprocess.run(["systemd-analyze", "syscall-filter", name], check=True,
                             capture_output=True, text=True).stdout
    calls = set()
    for line in listing.splitlines()[1:]:
        word = line.strip()
        if not word or word.startswith("#"):
            continue
        calls |= syscall_set(word, seen) if word.startswith("@") else {word}
    return calls


class CapHeader(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]


class CapData(ctypes.Structure):
    _fields_ = [("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32),
                ("inheritable", ctypes.c_uint32)]


def private_proc(libc):
    CLONE_NEWNS, MS_REC, MS_PRIVATE = 0x00020000, 0x4000, 0x40000
    if libc.unshare(CLONE_NEWNS) != 0:
        sys.exit("unshare(CLONE_NEWNS): " + os.strerror(ctypes.get_errno()))
    if libc.mount(None, b"/", None, MS_REC | MS_PRIVATE, None) != 0:
        sys.exit("mount --make-rprivate /: " + os.strerror(ctypes.get_errno()))
    if libc.mount(b"proc", b"/proc", b"proc", 0, b"hidepid=invisible,subset=pid") != 0:
        sys.exit("mount proc subset=pid: " + os.strerror(ctypes.get_errno()))


def drop_capabilities(libc):
    PR_CAPBSET_DROP, LINUX_CAPABILITY_VERSION_3 = 24, 0x20080522
    for capability in range(64):
        if libc.prctl(PR_CAPBSET_DROP, capability, 0, 0, 0) != 0 and ctypes.get_errno() != errno.EINVAL:
            sys.exit("PR_CAPBSET_DROP %d: %s" % (capability, os.strerror(ctypes.get_errno())))
    header = CapHeader(LINUX_CAPABILITY_VERSION_3, 0)
    data = (CapData * 2)()
    if libc.capset(ctypes.byref(header), data) != 0:
        sys.exit("capset: " + os.strerror(ctypes.get_errno()))


def restrict(families):
    libc = ctypes.CDLL(None, use_errno=True)
    private_proc(libc)
    drop_capabilities(libc)
    if libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        sys.exit("PR_SET_NO_NEW_PRIVS: " + os.strerror(ctypes.get_errno()))
    if libc.prctl(PR_SET_MDWE, PR_MDWE_REFUSE_EXEC_GAIN, 0, 0, 0) != 0:
        sys.exit("PR_SET_MDWE (Linux 6.3+): " + os.strerror(ctypes.get_errno()))
    calls = syscall_set("@system-service")
    seccomp = ctypes.CDLL("libseccomp.so.2")
    seccomp.seccomp_init.restype = ctypes.c_void_p
    seccomp.seccomp_init.argtypes = [ctypes.c_uint32]
    seccomp.seccomp_syscall_resolve_name.argtypes = [ctypes.c_char_p]
    seccomp.seccomp_rule_add_array.argtypes = [ctypes.c_void_p, ctypes.c_uint32, ctypes.c_int,
                                               ctypes.c_uint, ctypes.POINTER(ArgCmp)]
    seccomp.seccomp_load.argtypes = [ctypes.c_void_p]
    context = seccomp.seccomp_init(scmp_act_errno(errno.EPERM))
    for call in sorted(calls - {"socket"}):
        number = seccomp.seccomp_syscall_resolve_name(call.encode())
        if number < 0:  # not a system call of this architecture (arm_fadvise64_64 ...)
            continue
        if seccomp.seccomp_rule_add_array(context, SCMP_ACT_ALLOW, number, 0, None) != 0:
            sys.exit("seccomp: cannot allow " + call)
    if "socket" in calls:
        number = seccomp.seccomp_syscall_resolve_name(b"socket")
        for family in families:
            compare = ArgCmp(0, SCMP_CMP_EQ, family, 0)
            if seccomp.seccomp_rule_add_array(context, SCMP_ACT_ALLOW, number, 1, ctypes.byref(compare)) != 0:
                sys.exit("seccomp: cannot allow socket(%d)" % family)
        # Other families: EAFNOSUPPORT, as RestrictAddressFamilies= answers.
        for family in range(1, 64):
            if family not in families:
                compare = ArgCmp(0, SCMP_CMP_EQ, family, 0)
                seccomp.seccomp_rule_add_array(context, scmp_act_errno(errno.EAFNOSUPPORT), number, 1,
                                               ctypes.byref(compare))
    if seccomp.seccomp_load(context) != 0:
        sys.exit("seccomp_load failed")


def probe():
    """0 when the sandbox refuses what it should and allows what it should."""
    restrict([socket.AF_UNIX])
    libc = ctypes.CDLL(None, use_errno=True)
    libc.mmap.restype = ctypes.c_void_p
    libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int,
                          ctypes.c_long]
    wx = libc.mmap(None, 4096, 7, 0x22, -1, 0)  # PROT_READ|WRITE|EXEC, MAP_PRIVATE|ANONYMOUS
    if wx != ctypes.c_void_p(-1).value:
        sys.exit("a W+X mapping was allowed")
    try:
        socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sys.exit("an AF_INET socket was allowed")
    except OSError as e:
        if e.errno != errno.EAFNOSUPPORT:
            sys.exit("AF_INET socket: %s, not EAFNOSUPPORT" % e)
    socket.socket(socket.AF_UNIX, socket.SOCK_STREAM).close()
    # A path that does not exist: unfiltered, mount(2) fails with ENOENT and changes nothing.
    if libc.mount(b"none", b"/nonexistent-sandbox-probe", b"tmpfs", 0, None) != -1 \
            or ctypes.get_errno() != errno.EPERM:
        sys.exit("mount(2) was not refused with EPERM (%s)" % os.strerror(ctypes.get_errno()))
    # (hidepid hides other users' processes; this test runs as root, like pid 1, so it shows
    # here only that the private /proc is mounted: subset=pid hides /proc/cpuinfo.)
    if os.path.exists("/proc/cpuinfo"):
        sys.exit("/proc is not restricted to processes (subset=pid)")
    with open("/proc/self/status") as status:
        capabilities = [line.split()[1] for line in status if line.startswith(("CapEff", "CapBnd"))]
    if capabilities != ["0000000000000000", "0000000000000000"]:
        sys.exit("capabilities left: %s" % capabilities)
    print("sandbox ok: W+X refused, AF_INET refused, AF_UNIX allowed, mount refused, "
          "/proc private, no capabilities")


def main():
    args = sys.argv[1:]
    if args == ["--probe"]:
        probe()
        return
    if len(args) < 3 or args[0] != "--families":
        sys.exit(__doc__)
    known = {"AF_UNIX": 1, "AF_INET": 2, "AF_INET6": 10, "AF_NETLINK": 16, "AF_BLUETOOTH": 31}
    families = [known[name] for name in args[1].split(",")]
    restrict(families)
    os.execv(args[2], args[2:])


if __name__ == "__main__":
    main()
