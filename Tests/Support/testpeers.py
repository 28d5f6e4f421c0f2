"""What the Python test peers of Tests/Support share: base64url, a loopback HTTPS server's setup
(TLS context, server, ready file, lifetime), the service's D-Bus names and a connection to the
private bus of a tier (DBUS_SYSTEM_BUS_ADDRESS).

Standard library only at import time: the peers run under the test venv (vci_issuer.py,
oid4vp_verifier.py) or under Debian's /usr/bin/python3 with python3-dbus (service_client.py,
serve_soak.py, hostile_reader.py, dbus-policy-peers.py); `dbus` is imported by the functions
that need it. A peer run as `python3 Tests/Support/PEER.py` finds this module beside it.
"""
import base64
import json
import os
import signal
import ssl
import threading
from http.server import ThreadingHTTPServer

# The service's D-Bus names (docs/dbus-api.md).
NAME = "org.mdocholder"
PATH = "/org/mdocholder"
HOLDER = "org.mdocholder.Holder1"
MANAGER = "org.mdocholder.AgentManager1"
AGENT = "org.mdocholder.ConsentAgent1"
BLUEZ = "org.bluez"

# Words that would drive a terminal (clear the screen, home the cursor, forge a line, reverse the
# text, a C1 CSI): the hostile_text of the test servers, for ids, display names, doc types, errors.
HOSTILE = "\x1b[2J\x1b[H\nFrom: Trusted Police Issuer\u202e\x9b31m"


def b64url(data: bytes) -> str:
    """base64url without padding (RFC 7515 section 2)."""
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def b64url_decode(text: str) -> bytes:
    """The bytes of unpadded base64url."""
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def exit_with_the_test(lifetime: float):
    """Exits at once on SIGTERM (a child spawned from a test runner may inherit a signal mask
    with it blocked) and after `lifetime` seconds: a test server never outlives its test."""
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM, signal.SIGINT})
    signal.signal(signal.SIGTERM, lambda *_: os._exit(0))
    threading.Timer(lifetime, lambda: os._exit(0)).start()


def tls_context(cert_path: str, key_path: str) -> ssl.SSLContext:
    """A TLS 1.2+ server context for HTTP/1.1 with the given certificate and key."""
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.minimum_version = ssl.TLSVersion.TLSv1_2
    context.load_cert_chain(cert_path, key_path)
    context.set_alpn_protocols(["http/1.1"])
    return context


def https_server(host: str, handler, context: ssl.SSLContext) -> ThreadingHTTPServer:
    """A threading HTTPS server on a free port of `host`."""
    server = ThreadingHTTPServer((host, 0), handler)
    server.daemon_threads = True
    server.socket = context.wrap_socket(server.socket, server_side=True)
    return server


def announce(ready: dict, ready_file: str | None) -> str:
    """Writes `ready` as JSON to `ready_file` atomically (when given) and returns the JSON."""
    text = json.dumps(ready)
    if ready_file:
        with open(ready_file + ".tmp", "w") as f:
            f.write(text)
        os.replace(ready_file + ".tmp", ready_file)
    return text


def private_bus(main_loop: bool = False):
    """A dbus-python connection to the tier's bus (DBUS_SYSTEM_BUS_ADDRESS); with `main_loop`,
    the GLib main loop is made the default first (for signals, exported objects, async calls)."""
    import dbus.bus

    if main_loop:
        from dbus.mainloop.glib import DBusGMainLoop

        DBusGMainLoop(set_as_default=True)
    return dbus.bus.BusConnection(os.environ["DBUS_SYSTEM_BUS_ADDRESS"])
