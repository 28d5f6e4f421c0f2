#!/usr/bin/env python3
"""A loopback HTTPS server of Status List Tokens for the status tests (standard library only).

    status_list_server.py --dir DIR --cert PEM --key PEM [--ready-file F] [--lifetime S]

Serves the files of DIR on a free port of 127.0.0.1: GET /NAME answers DIR/NAME, with
Content-Type application/statuslist+cwt for *.cwt, application/statuslist+jwt for *.jwt
(application/octet-stream otherwise); 404 for a missing file. GET /NAME?delay=S waits S seconds
first (a slow server). Every request is appended to DIR/requests.log as one line "GET /NAME"
(the tests count them: a cached token is not fetched again). The files may be replaced while it
runs. Prints one JSON line {"port": N} (also written to the ready file), and exits on SIGTERM or
after --lifetime seconds.
"""
import argparse
import os
import sys
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from testpeers import announce, exit_with_the_test, https_server, tls_context  # noqa: E402

MEDIA_TYPES = {".cwt": "application/statuslist+cwt", ".jwt": "application/statuslist+jwt"}


def handler_for(directory: str):
    lock = threading.Lock()

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *_):
            pass

        def do_GET(self):
            url = urllib.parse.urlsplit(self.path)
            with lock:
                with open(os.path.join(directory, "requests.log"), "a") as log:
                    log.write(f"GET {url.path}\n")
            query = urllib.parse.parse_qs(url.query)
            if "delay" in query:
                time.sleep(float(query["delay"][0]))
            name = os.path.basename(url.path)
            path = os.path.join(directory, name)
            if not name or name == "requests.log" or not os.path.isfile(path):
                return self.reply(404, b"not found\n", "text/plain")
            with open(path, "rb") as f:
                body = f.read()
            self.reply(200, body, MEDIA_TYPES.get(os.path.splitext(name)[1], "application/octet-stream"))

        def reply(self, status: int, body: bytes, media_type: str):
            self.send_response(status)
            self.send_header("Content-Type", media_type)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            try:
                self.wfile.write(body)
            except (BrokenPipeError, ConnectionResetError):
                pass

    return Handler


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dir", required=True, help="the files served")
    parser.add_argument("--cert", required=True, help="TLS certificate chain (PEM), naming localhost")
    parser.add_argument("--key", required=True, help="its private key (PEM)")
    parser.add_argument("--ready-file", help="where to write {\"port\": N} once listening")
    parser.add_argument("--lifetime", type=float, default=300, help="seconds before it exits by itself")
    args = parser.parse_args()
    exit_with_the_test(args.lifetime)
    server = https_server("127.0.0.1", handler_for(args.dir), tls_context(args.cert, args.key))
    print(announce({"port": server.server_address[1]}, args.ready_file), flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
