#!/usr/bin/python3
"""Peers for the D-Bus policy test (Tests/Support/packaging-test.sh), on Debian's python3-dbus.

Run under /usr/bin/python3 (python3-dbus and python3-gi are Debian packages, not in the venv),
as the user whose rights are tested (setpriv). Each writes what it saw to a file in DIR so the
shell can assert on it; every wait is bounded.

  stub DIR     own org.mdocholder and serve a stand-in of Holder1/AgentManager1 at
               /org/mdocholder (exit 3 if the bus refuses the name); RegisterAgent asks the
               agent (ConsentAgent1.RequestConsent) at once and records the outcome in
               DIR/stub.log; StartProximity emits EngagementReady.
  agent DIR    export ConsentAgent1 at /test/agent, write the unique name to DIR/agent.name,
               register with the stub, record RequestConsent in DIR/agent.log, exit when
               DIR/agent.done appears (at most 20 s).
  listen DIR NAME  subscribe to the stub's signals, write DIR/NAME.ready once subscribed,
               append each signal to DIR/NAME.log, run until DIR/listen.done (at most 20 s).
"""
import os
import sys

import dbus
import dbus.service
from gi.repository import GLib

from testpeers import AGENT, HOLDER, MANAGER, PATH, private_bus
from testpeers import NAME as BUS_NAME


def append(path, line):
    with open(path, "a") as f:
        f.write(line + "\n")


def quit_when(loop, path, seconds):
    """Quits the loop once path exists, or after seconds."""
    GLib.timeout_add(50, lambda: (loop.quit() if os.path.exists(path) else True))
    GLib.timeout_add_seconds(seconds, lambda: loop.quit())


class Stub(dbus.service.Object):
    def __init__(self, connection, log):
        super().__init__(connection, PATH)
        self.bus = connection
        self.log = log
        self.session = 0

    @dbus.service.method(HOLDER, in_signature="a{sv}", out_signature="ts")
    def StartProximity(self, options):
        self.session += 1
        uri = "mdoc:stub-%d" % self.session
        self.EngagementReady(dbus.UInt64(self.session), uri)
        return dbus.UInt64(self.session), uri

    @dbus.service.signal(HOLDER, signature="ts")
    def EngagementReady(self, session, uri):
        pass

    @dbus.service.method(HOLDER, in_signature="t")
    def Cancel(self, session):
        pass

    @dbus.service.method(HOLDER, in_signature="sa{sv}", out_signature="t")
    def PresentOnline(self, url, options):
        return dbus.UInt64(0)

    @dbus.service.method(HOLDER, in_signature="sa{sv}", out_signature="asas")
    def ReceiveCredential(self, offer, options):
        return dbus.Array(["stub-credential"], signature="s"), dbus.Array([], signature="s")

    @dbus.service.method(HOLDER, out_signature="aa{sv}")
    def ListCredentials(self):
        return dbus.Array([], signature="a{sv}")

    @dbus.service.method(HOLDER, in_signature="u", out_signature="aa{sv}")
    def History(self, limit):
        return dbus.Array([], signature="a{sv}")

    @dbus.service.method(MANAGER, in_signature="o", sender_keyword="sender")
    def RegisterAgent(self, agent, sender=None):
        append(self.log, "registered %s %s" % (sender, agent))
        proxy = self.bus.get_object(sender, agent, introspect=False)
        request = dbus.Dictionary({"channel": "ble", "requester": "test reader"}, signature="sv")
        proxy.RequestConsent(
            dbus.UInt64(1), request, dbus_interface=AGENT, timeout=5,
            reply_handler=lambda approved: append(self.log, "consent-reply %d" % len(approved)),
            error_handler=lambda e: append(self.log, "consent-error %s" % e.get_dbus_name()))
        code_request = dbus.Dictionary({"issuer": "test issuer", "input_mode": "numeric"}, signature="sv")
        proxy.RequestTransactionCode(
            dbus.UInt64(1), code_request, dbus_interface=AGENT, timeout=5,
            reply_handler=lambda code: append(self.log, "code-reply %d characters" % len(code)),
            error_handler=lambda e: append(self.log, "code-error %s" % e.get_dbus_name()))

    @dbus.service.method(MANAGER, in_signature="o")
    def UnregisterAgent(self, agent):
        pass

    @dbus.service.method(dbus.PROPERTIES_IFACE, in_signature="ss", out_signature="v")
    def Get(self, interface, name):
        return self.GetAll(interface)[name]

    @dbus.service.method(dbus.PROPERTIES_IFACE, in_signature="s", out_signature="a{sv}")
    def GetAll(self, interface):
        return {"Version": dbus.UInt32(1), "KioskMode": False}


class Agent(dbus.service.Object):
    def __init__(self, connection, log):
        super().__init__(connection, "/test/agent")
        self.log = log

    @dbus.service.method(AGENT, in_signature="ta{sv}", out_signature="a(sss)", sender_keyword="sender")
    def RequestConsent(self, session, request, sender=None):
        append(self.log, "asked %d by %s" % (session, sender))
        return [("org.iso.18013.5.1.mDL", "org.iso.18013.5.1", "age_over_18")]

    @dbus.service.method(AGENT, in_signature="ta{sv}", out_signature="s", sender_keyword="sender")
    def RequestTransactionCode(self, session, request, sender=None):
        append(self.log, "code asked %d by %s" % (session, sender))
        return "2468"

    @dbus.service.method(AGENT, in_signature="t")
    def Cancel(self, session):
        pass

    @dbus.service.method(AGENT)
    def Release(self):
        pass


def main():
    mode, directory = sys.argv[1], sys.argv[2]
    connection = private_bus(main_loop=True)
    loop = GLib.MainLoop()
    if mode == "stub":
        try:
            reply = connection.request_name(BUS_NAME, dbus.bus.NAME_FLAG_DO_NOT_QUEUE)
        except dbus.exceptions.DBusException as e:
            print("stub: %s" % e.get_dbus_name(), file=sys.stderr)
            sys.exit(3)
        if reply != dbus.bus.REQUEST_NAME_REPLY_PRIMARY_OWNER:
            sys.exit(4)
        Stub(connection, os.path.join(directory, "stub.log"))
        append(os.path.join(directory, "stub.log"), "owned")
        loop.run()  # stopped by the test (SIGTERM)
    elif mode == "agent":
        Agent(connection, os.path.join(directory, "agent.log"))
        append(os.path.join(directory, "agent.name"), connection.get_unique_name())
        manager = connection.get_object(BUS_NAME, PATH, introspect=False)
        manager.RegisterAgent(dbus.ObjectPath("/test/agent"), dbus_interface=MANAGER, timeout=5)
        quit_when(loop, os.path.join(directory, "agent.done"), 20)
        loop.run()
    elif mode == "listen":
        name = sys.argv[3]
        log = os.path.join(directory, name + ".log")
        connection.add_signal_receiver(
            lambda *args, **kw: append(log, "%s %s" % (kw["member"], " ".join(str(a) for a in args))),
            dbus_interface=HOLDER, sender_keyword="sender", member_keyword="member")
        connection.get_unique_name()  # a round trip: the AddMatch above has been processed
        connection.call_blocking("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                                 "GetId", "", [])
        append(os.path.join(directory, name + ".ready"), "subscribed")
        quit_when(loop, os.path.join(directory, "listen.done"), 20)
        loop.run()
    else:
        sys.exit("unknown mode " + mode)


if __name__ == "__main__":
    main()
