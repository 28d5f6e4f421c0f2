#!/usr/bin/env python3
"""A loopback HTTP CONNECT proxy for the holder's proxy tests (https_proxy / no_proxy).

    connect_proxy.py --log FILE --ready-file FILE [--mode tunnel|mitm|deny] [--dir DIR]

Listens on a free port of 127.0.0.1 and writes {"port": N} to the ready file once listening.
Every request is appended to --log as one JSON line {"method", "target", "status"} (for
CONNECT, the target is the authority the client asked for: what the tests count and check).

  tunnel  opens a TCP connection to the CONNECT target and relays bytes both ways (a
          plain tunnel: TLS stays between the client and the server).
  mitm    answers 200, then terminates TLS itself with a certificate of its own for
          localhost / 127.0.0.1 (self-signed, made in --dir): a client that verifies the
          server end to end refuses it. A completed handshake is logged as {"mitm": "handshake"},
          a request read through it as {"mitm": "request"}.
  deny    answers every CONNECT with 403.

Anything but CONNECT is answered 405. Test code only; nothing persists.
"""

import argparse
import datetime
import ipaddress
import json
import os
import socket
import socketserver
import ssl
import threading

from testpeers import announce, exit_with_the_test

LOCK = threading.Lock()


def log(path, entry):
    with LOCK, open(path, "a") as f:
        f.write(json.dumps(entry) + "\n")


def split_authority(target):
    """host, port of a CONNECT target (IPv6 literals in brackets)."""
    if target.startswith("["):
        host, _, rest = target[1:].partition("]")
        return host, int(rest.lstrip(":"))
    host, _, port = target.rpartition(":")
    return host, int(port)


def relay(a, b):
    """Copies a to b until a ends, then half-closes b."""
    try:
        while True:
            data = a.recv(65536)
            if not data:
                break
            b.sendall(data)
    except OSError:
        pass
    try:
        b.shutdown(socket.SHUT_WR)
    except OSError:
        pass


def self_signed(directory):
    """A self-signed certificate for localhost and 127.0.0.1 (cert path, key path)."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "intercepting proxy")])
    now = datetime.datetime.now(datetime.timezone.utc)
    cert = (
        x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5)).not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.SubjectAlternativeName(
            [x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), critical=False)
        .sign(key, hashes.SHA256())
    )
    cert_path, key_path = os.path.join(directory, "mitm.pem"), os.path.join(directory, "mitm.key")
    with open(cert_path, "wb") as f:
        f.write(cert.public_bytes(serialization.Encoding.PEM))
    with open(key_path, "wb") as f:
        f.write(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                  serialization.NoEncryption()))
    return cert_path, key_path


class Handler(socketserver.BaseRequestHandler):
    mode = "tunnel"
    log_path = None
    mitm_context = None

    def handle(self):
        client = self.request
        client.settimeout(30)
        head = b""
        while b"\r\n\r\n" not in head and len(head) < 8192:
            chunk = client.recv(4096)
            if not chunk:
                return
            head += chunk
        line = head.split(b"\r\n", 1)[0].decode("latin-1")
        parts = line.split(" ")
        method, target = (parts[0], parts[1]) if len(parts) == 3 else (line, "")
        if method != "CONNECT":
            log(self.log_path, {"method": method, "target": target, "status": 405})
            client.sendall(b"HTTP/1.1 405 Method Not Allowed\r\nContent-Length: 0\r\n\r\n")
            return
        if self.mode == "deny":
            log(self.log_path, {"method": method, "target": target, "status": 403})
            client.sendall(b"HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\n\r\n")
            return
        if self.mode == "mitm":
            log(self.log_path, {"method": method, "target": target, "status": 200})
            client.sendall(b"HTTP/1.1 200 Connection established\r\n\r\n")
            try:
                tls = self.mitm_context.wrap_socket(client, server_side=True)
            except (ssl.SSLError, OSError):
                return
            log(self.log_path, {"mitm": "handshake", "target": target})
            try:
                if tls.recv(4096):
                    log(self.log_path, {"mitm": "request", "target": target})
                    tls.sendall(b"HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n")
            except (ssl.SSLError, OSError):
                pass
            return
        try:
            upstream = socket.create_connection(split_authority(target), timeout=5)
        except (OSError, ValueError):
            log(self.log_path, {"method": method, "target": target, "status": 502})
            client.sendall(b"HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n")
            return
        log(self.log_path, {"method": method, "target": target, "status": 200})
        client.sendall(b"HTTP/1.1 200 Connection established\r\n\r\n")
        upstream.settimeout(None)
        client.settimeout(None)
        rest = head.split(b"\r\n\r\n", 1)[1]
        if rest:
            upstream.sendall(rest)
        back = threading.Thread(target=relay, args=(upstream, client), daemon=True)
        back.start()
        relay(client, upstream)
        back.join(60)
        upstream.close()


class Server(socketserver.ThreadingMixIn, socketserver.TCPServer):
    daemon_threads = True
    allow_reuse_address = True


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--log", required=True, help="append one JSON line per request here")
    parser.add_argument("--ready-file", required=True, help='write {"port": N} here once listening')
    parser.add_argument("--mode", choices=["tunnel", "mitm", "deny"], default="tunnel")
    parser.add_argument("--dir", help="where the mitm certificate goes (default: beside the log)")
    parser.add_argument("--lifetime", type=float, default=300, help="exit after this many seconds")
    args = parser.parse_args()
    Handler.mode = args.mode
    Handler.log_path = args.log
    open(args.log, "a").close()
    if args.mode == "mitm":
        cert, key = self_signed(args.dir or os.path.dirname(os.path.abspath(args.log)))
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(cert, key)
        Handler.mitm_context = context
    server = Server(("127.0.0.1", 0), Handler)
    exit_with_the_test(args.lifetime)
    announce({"port": server.server_address[1]}, args.ready_file)
    server.serve_forever()


if __name__ == "__main__":
    main()
