#!/usr/bin/python3
"""A D-Bus client of `mdoc-holder serve` for the service tests (Debian's python3-dbus, GLib).

  service_client.py agent MODE LOG [--allow ns:id,...] [--code CODE|decline] [--browse CA|decline]
      register a consent agent and answer RequestConsent in MODE approve (the --allow elements
      that are requested and held), decline, hang, or disconnect (exit while the request is
      pending), RequestTransactionCode with CODE (or an error: decline, the default), and
      OpenAuthorization by following the URL as a browser would (TLS checked with CA; the
      scripted user signs in at once) or with an error (decline, the default); events go to LOG
      as JSON lines (a code request's fields, never the code; the URL's host and path, the status
      the browser ended on)
  service_client.py start OUT [--adapter hciN]           StartProximity, print the URI, write
      the session's signals to OUT (JSON) once Ended arrives
  service_client.py online URL OUT                       PresentOnline(URL), write the
      session's signals to OUT (JSON) once Ended arrives
  service_client.py receive OFFER OUT [--batch N] [--wait S]   ReceiveCredential(OFFER), write
      {"ids", "pending", "error", "message", "session", "signals"} to OUT (JSON) once Ended arrives
  service_client.py resume OUT [--wait S]                ResumePending, write {"ids", "pending",
      "failures", "error", "message", "session", "signals"} to OUT (JSON) once Ended arrives
  service_client.py list                                 ListCredentials as JSON
  service_client.py pending                              ListPending as JSON
  service_client.py busy-receive PENDING HUGE COUNT OUT  ReceiveCredential(PENDING) (left
      waiting on a hanging agent), COUNT ReceiveCredential(HUGE), and ListCredentials every
      100 ms until those are answered, all without waiting; write to OUT (JSON):
      {"list_s": [each ListCredentials' answer time], "listed", "huge": [{"s", "error",
      "message"}], "pending_s"} (huge and pending: seconds after the calls were sent)
  service_client.py busy-cancel [--adapter hciN]         a second StartProximity on the adapter
      is refused with Busy; Cancel ends the first with Ended(cancelled); hci9 does not exist
  service_client.py history                              History(0) as JSON
  service_client.py introspect XML                       the exported Holder1/AgentManager1
      match XML (interfaces, methods, args, signals, properties)

The bus is DBUS_SYSTEM_BUS_ADDRESS.
"""
import json
import os
import sys
import xml.etree.ElementTree as ET

import dbus
import dbus.service
from gi.repository import GLib

from testpeers import AGENT, HOLDER, MANAGER, NAME, PATH, private_bus


def plain(value):
    """dbus-python values as JSON-able Python values."""
    if isinstance(value, dbus.Boolean):
        return bool(value)
    if isinstance(value, (dbus.Dictionary, dict)):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, (dbus.Array, dbus.Struct, list, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, (dbus.String, dbus.ObjectPath, str)):
        return str(value)
    if isinstance(value, (int, dbus.UInt64, dbus.UInt32)):
        return int(value)
    return value


def follow(url, ca):
    """The scripted user's browser: GET url, following redirects (to the loopback listener)."""
    import ssl
    import urllib.request
    context = ssl.create_default_context(cafile=ca)
    opener = urllib.request.build_opener(urllib.request.HTTPSHandler(context=context))
    try:
        with opener.open(url, timeout=20) as response:
            return response.status
    except Exception as error:  # the event says what the browser saw
        return str(error)


def agent(mode, log_path, allow, code="decline", browse="decline"):
    bus = private_bus(main_loop=True)
    log = open(log_path, "a", buffering=1)

    def event(**fields):
        log.write(json.dumps(fields) + "\n")

    class Agent(dbus.service.Object):
        @dbus.service.method(AGENT, in_signature="ta{sv}", out_signature="a(sss)",
                             async_callbacks=("reply", "error"))
        def RequestConsent(self, session, request, reply, error):
            event(event="request", session=int(session), request=plain(request))
            if mode == "disconnect":
                os._exit(0)
            if mode == "hang":
                return
            approved = []
            if mode == "approve":
                for doc in request["documents"]:
                    if not doc["held"]:
                        continue
                    for ns, ident, _retain, available, _required in doc["elements"]:
                        if available and f"{ns}:{ident}" in allow:
                            approved.append((str(doc["doctype"]), str(ns), str(ident)))
            reply(dbus.Array(approved, signature="(sss)"))

        @dbus.service.method(AGENT, in_signature="ta{sv}", out_signature="s")
        def RequestTransactionCode(self, session, request):
            event(event="code_request", session=int(session), request=plain(request))
            if code == "decline":
                raise dbus.DBusException("the user closed the dialog", name="org.example.Error.Declined")
            return code

        @dbus.service.method(AGENT, in_signature="ts")
        def OpenAuthorization(self, session, url):
            import threading
            import urllib.parse
            parts = urllib.parse.urlparse(str(url))
            event(event="open", session=int(session), scheme=parts.scheme, host=parts.netloc, path=parts.path,
                  query=sorted(urllib.parse.parse_qs(parts.query)))
            if browse == "decline":
                raise dbus.DBusException("the user closed the browser", name="org.example.Error.Declined")

            def browser():
                event(event="followed", session=int(session), status=follow(str(url), browse))

            threading.Thread(target=browser, daemon=True).start()

        @dbus.service.method(AGENT, in_signature="t")
        def Cancel(self, session):
            event(event="cancel", session=int(session))

        @dbus.service.method(AGENT, in_signature="")
        def Release(self):
            event(event="release")

    Agent(bus, "/test/agent")
    dbus.Interface(bus.get_object(NAME, PATH), MANAGER).RegisterAgent(dbus.ObjectPath("/test/agent"))
    event(event="registered")
    GLib.MainLoop().run()


def collect_signals(bus):
    signals = []

    def handler(*args, **keywords):
        signals.append({"member": keywords["member"], "args": plain(list(args))})

    bus.add_signal_receiver(handler, dbus_interface=HOLDER, path=PATH, member_keyword="member")
    return signals


def start(out, adapter, mode=None):
    bus = private_bus(main_loop=True)
    signals = collect_signals(bus)
    holder = dbus.Interface(bus.get_object(NAME, PATH), HOLDER)
    loop = GLib.MainLoop()
    state = {}

    def started(session, uri):
        state["session"] = int(session)
        print(uri, flush=True)

    def failed(error):
        print(f"StartProximity failed: {error.get_dbus_name()}: {error.get_dbus_message()}", file=sys.stderr)
        state["failed"] = True
        loop.quit()

    def check():
        if "session" in state and any(
            s["member"] == "Ended" and s["args"][0] == state["session"] for s in signals
        ):
            loop.quit()
            return False
        return True

    options = {"adapter": adapter}
    if mode:
        options["mode"] = mode
    holder.StartProximity(options, reply_handler=started, error_handler=failed, timeout=30)
    GLib.timeout_add(50, check)
    GLib.timeout_add_seconds(120, loop.quit)
    loop.run()
    if "failed" in state:
        sys.exit(3)
    mine = [s for s in signals if s["args"] and s["args"][0] == state.get("session")]
    json.dump({"session": state.get("session"), "signals": mine}, open(out, "w"))


def online(url, out):
    bus = private_bus(main_loop=True)
    signals = collect_signals(bus)
    holder = dbus.Interface(bus.get_object(NAME, PATH), HOLDER)
    session = int(holder.PresentOnline(url, dbus.Dictionary({}, signature="sv"), timeout=30))
    loop = GLib.MainLoop()

    def check():
        if any(s["member"] == "Ended" and s["args"][0] == session for s in signals):
            loop.quit()
            return False
        return True

    GLib.timeout_add(50, check)
    GLib.timeout_add_seconds(60, loop.quit)
    loop.run()
    mine = [s for s in signals if s["args"] and s["args"][0] == session]
    json.dump({"session": session, "signals": mine}, open(out, "w"))


def receive(offer, out, batch=None, wait=None):
    """ReceiveCredential(offer), or ResumePending when offer is None."""
    bus = private_bus(main_loop=True)
    signals = collect_signals(bus)
    holder = dbus.Interface(bus.get_object(NAME, PATH), HOLDER)
    options = dbus.Dictionary({}, signature="sv")
    if batch is not None:
        options["batch"] = dbus.UInt32(int(batch))
    if wait is not None:
        options["wait"] = dbus.UInt32(int(wait))
    loop = GLib.MainLoop()
    result = {"ids": None, "pending": None, "error": None, "message": None}

    def replied(ids, pending, failures=None):
        result["ids"], result["pending"] = plain(ids), plain(pending)
        if failures is not None:
            result["failures"] = plain(failures)
        loop.quit()

    def failed(error):
        result["error"], result["message"] = error.get_dbus_name(), error.get_dbus_message()
        loop.quit()

    if offer is None:
        holder.ResumePending(options, reply_handler=replied, error_handler=failed, timeout=120)
    else:
        holder.ReceiveCredential(offer, options, reply_handler=replied, error_handler=failed, timeout=120)
    loop.run()
    # The session is the one whose signals came during the call; wait for its Ended.
    loop = GLib.MainLoop()

    def check():
        if any(s["member"] == "Ended" for s in signals):
            loop.quit()
            return False
        return True

    GLib.timeout_add(50, check)
    # A call refused before a session started (NotSupported) raises no signal at all.
    GLib.timeout_add_seconds(10 if signals else 2, loop.quit)
    loop.run()
    result["session"] = signals[0]["args"][0] if signals else None
    result["signals"] = [s for s in signals if s["args"] and s["args"][0] == result["session"]]
    json.dump(result, open(out, "w"))


def list_credentials(pending=False):
    bus = private_bus(main_loop=True)
    holder = dbus.Interface(bus.get_object(NAME, PATH), HOLDER)
    print(json.dumps(plain(holder.ListPending() if pending else holder.ListCredentials())))


def busy_receive(pending_offer, huge_offer, count, out):
    import time
    bus = private_bus(main_loop=True)
    holder = dbus.Interface(bus.get_object(NAME, PATH), HOLDER)
    none = dbus.Dictionary({}, signature="sv")
    loop = GLib.MainLoop()
    result = {"list_s": [], "listed": None, "huge": [], "pending_s": None}
    start = time.monotonic()
    outstanding = [0]

    def finished():
        return len(result["huge"]) == count and outstanding[0] == 0

    def pending_replied(*args):
        result["pending_s"] = time.monotonic() - start

    def huge_answer(error=None):
        result["huge"].append({"s": time.monotonic() - start, "error": error and error.get_dbus_name(),
                               "message": error and error.get_dbus_message()})
        if finished():
            loop.quit()

    def ask_list():
        sent = time.monotonic()
        outstanding[0] += 1

        def answered(value):
            outstanding[0] -= 1
            result["list_s"].append(time.monotonic() - sent)
            result["listed"] = len(value) if isinstance(value, dbus.Array) else value.get_dbus_name()
            if finished():
                loop.quit()

        holder.ListCredentials(reply_handler=answered, error_handler=answered, timeout=120)

    def tick():
        # ListCredentials every 100 ms until every huge offer is answered.
        if len(result["huge"]) == count:
            return False
        ask_list()
        return True

    holder.ReceiveCredential(pending_offer, none, reply_handler=pending_replied, error_handler=pending_replied,
                             timeout=120)
    for _ in range(count):
        holder.ReceiveCredential(huge_offer, none, reply_handler=lambda *a: huge_answer(),
                                 error_handler=huge_answer, timeout=120)
    ask_list()
    GLib.timeout_add(100, tick)
    GLib.timeout_add_seconds(60, loop.quit)
    loop.run()
    json.dump(result, open(out, "w"))


def busy_cancel(adapter):
    bus = private_bus(main_loop=True)
    signals = collect_signals(bus)
    holder = dbus.Interface(bus.get_object(NAME, PATH), HOLDER)
    session, uri = holder.StartProximity({"adapter": adapter}, timeout=30)
    result = {"first": int(session), "uri": str(uri).startswith("mdoc:")}
    try:
        holder.StartProximity({"adapter": adapter}, timeout=30)
        result["second"] = "started"
    except dbus.DBusException as error:
        result["second"] = error.get_dbus_name()
        result["second_message"] = error.get_dbus_message()
    holder.Cancel(dbus.UInt64(session))
    loop = GLib.MainLoop()

    def check():
        if any(s["member"] == "Ended" and s["args"][0] == int(session) for s in signals):
            loop.quit()
            return False
        return True

    GLib.timeout_add(50, check)
    GLib.timeout_add_seconds(20, loop.quit)
    loop.run()
    result["signals"] = [s for s in signals if s["args"][0] == int(session)]
    try:
        holder.Cancel(dbus.UInt64(session))
        result["cancel_again"] = "ok"
    except dbus.DBusException as error:
        result["cancel_again"] = error.get_dbus_name()
    try:
        holder.StartProximity({"adapter": "hci9"}, timeout=30)
        result["unknown_adapter"] = "started"
    except dbus.DBusException as error:
        result["unknown_adapter"] = f"{error.get_dbus_name()}: {error.get_dbus_message()}"
    print(json.dumps(result))


def history():
    bus = private_bus(main_loop=True)
    holder = dbus.Interface(bus.get_object(NAME, PATH), HOLDER)
    print(json.dumps(plain(holder.History(dbus.UInt32(0)))))


def shape(root):
    """interface name -> (methods, signals, properties), whitespace and comments ignored."""
    out = {}
    for interface in root.findall("interface"):
        name = interface.get("name")
        if not name.startswith("org.mdocholder."):
            continue
        methods = {m.get("name"): [(a.get("name"), a.get("type"), a.get("direction", "in"))
                                   for a in m.findall("arg")] for m in interface.findall("method")}
        signals = {s.get("name"): [(a.get("name"), a.get("type")) for a in s.findall("arg")]
                   for s in interface.findall("signal")}
        properties = {p.get("name"): (p.get("type"), p.get("access")) for p in interface.findall("property")}
        out[name] = {"methods": methods, "signals": signals, "properties": properties}
    return out


def introspect(xml_path):
    bus = private_bus(main_loop=True)
    exported = dbus.Interface(bus.get_object(NAME, PATH), "org.freedesktop.DBus.Introspectable").Introspect()
    want = shape(ET.parse(xml_path).getroot())
    got = shape(ET.fromstring(str(exported)))
    if want != got:
        print("the exported interfaces differ from " + xml_path, file=sys.stderr)
        print("expected: " + json.dumps(want, sort_keys=True), file=sys.stderr)
        print("exported: " + json.dumps(got, sort_keys=True), file=sys.stderr)
        sys.exit(1)
    standard = {i.get("name") for i in ET.fromstring(str(exported)).findall("interface")}
    for name in ("org.freedesktop.DBus.Introspectable", "org.freedesktop.DBus.Properties"):
        if name not in standard:
            print(f"{name} is not exported", file=sys.stderr)
            sys.exit(1)
    print(f"{len(got)} interfaces match: " + ", ".join(sorted(got)))


def option(args, name, default):
    return args[args.index(name) + 1] if name in args else default


if __name__ == "__main__":
    command, rest = sys.argv[1], sys.argv[2:]
    if command == "agent":
        agent(rest[0], rest[1], set(filter(None, option(rest, "--allow", "").split(","))),
              option(rest, "--code", "decline"), option(rest, "--browse", "decline"))
    elif command == "start":
        start(rest[0], option(rest, "--adapter", "hci0"), option(rest, "--mode", None))
    elif command == "online":
        online(rest[0], rest[1])
    elif command == "receive":
        receive(rest[0], rest[1], option(rest, "--batch", None), option(rest, "--wait", None))
    elif command == "resume":
        receive(None, rest[0], None, option(rest, "--wait", None))
    elif command == "list":
        list_credentials()
    elif command == "pending":
        list_credentials(pending=True)
    elif command == "busy-receive":
        busy_receive(rest[0], rest[1], int(rest[2]), rest[3])
    elif command == "busy-cancel":
        busy_cancel(option(rest, "--adapter", "hci0"))
    elif command == "history":
        history()
    elif command == "introspect":
        introspect(rest[0])
    else:
        sys.exit(__doc__)
