#!/usr/bin/env python3
"""An independent OpenID4VP 1.0 verifier for the online presentation tests, on loopback.

Run by Tests/OnlineTransportTests from .venv-test (cbor2, cryptography, joserfc, openvc-core):

    oid4vp_verifier.py --dir TMPDIR --iaca Fixtures/pki/iaca.pem

It makes its own test CA, a TLS certificate for localhost / 127.0.0.1 and a request signing
certificate (SAN DNS localhost), writes the CA to TMPDIR/ca.pem, listens with HTTPS on a free
port of 127.0.0.1 and prints one JSON line {"port": N, "ca": "TMPDIR/ca.pem"} (also written to
--ready-file when given). For kind=preregistered (client_id "verifier.localhost", no prefix) it
also writes TMPDIR/verifiers.toml, the wallet's pre-registered verifiers file naming its public
signing JWK (TMPDIR/verifier-signing.jwk) and response URI. It exits by itself after --lifetime seconds, or on SIGTERM.

Endpoints (all HTTPS):
  POST /start          form: kind=signed|unsigned|preregistered, delivery=get|post|value,
                       mode=direct_post|direct_post.jwt, variant=none|tampered|wrong-client|
                       missing-element|no-nonce-echo|no-mdoc-format, claims=ns:element,...,
                       enc=A128GCM,A256GCM,... (encrypted_response_enc_values_supported;
                       absent: the member is left out, so the wallet's default applies),
                       pid=given_name,address.locality,nationalities.*,... (adds a dc+sd-jwt
                       query "pid" for vct urn:eudi:pid:1 with these claim paths: dots separate,
                       * is null, digits are indices), only=pid (leaves the mdl query out),
                       trickle=request|response (the Request Object at request_uri, or the
                       answer to a direct_post response with this state: headers at once, then
                       one body byte per second, for the holder's deadline)
                       hostile_text=names|doctype|error (escape sequences, a bidi override, a
                       newline and a C1 CSI in client_name; doctype: in the mdl query's
                       doctype_value too; error: the verified response is answered 400 with them
                       in error and error_description), for the holder's output,
                       claim_sets=N (the mdl query's claims get ids c0, c1, ... and N claim sets
                       of up to four of them: thousands make a query far past the wallet's limits),
                       -> {"session", "url"}: the request URL a QR code would carry.
  GET|POST /request/ID the signed Request Object (POST: wallet_metadata and wallet_nonce, which
                       the signed request then echoes).
  POST /response       the wallet's response (direct_post: vp_token, state; direct_post.jwt:
                       response = JWE) or error response (error, error_description, state).
                       A vp_token is checked with openvc.mdoc.verify_device_response against
                       the IACA and the OpenID4VP 1.0 SessionTranscript computed here, after
                       checking that deviceSignature / deviceMac travel detached. An SD-JWT VC
                       is checked with the IETF reference library (PyPI sd-jwt): the issuer
                       signature with its x5c leaf, that leaf's chain to --sd-jwt-ca, every
                       Disclosure, and the Key Binding JWT (typ kb+jwt, aud = client_id,
                       nonce, sd_hash, iat within 5 minutes).
  GET /result/ID       what this verifier saw for the session (JSON; for an SD-JWT VC that verified,
                       sd_jwt_cnf_jwk: the cnf.jwk its Key Binding JWT was checked with).
  GET /slow?s=N        answers after N seconds (timeouts); GET /big?mb=N: N MiB (2 by default); GET /redirect: 302;
  GET /trickle?n=N     headers at once, then N body bytes at one a second.

Nothing here is for production: fresh test keys every run, no persistence.
"""
import argparse
import base64
import datetime
import hashlib
import json
import os
import secrets
import sys
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler

import cbor2
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID
from joserfc import jwe
from joserfc.jwk import ECKey
from openvc import mdoc as openvc_mdoc
from jwcrypto.jwk import JWK as JWCryptoJWK
from sd_jwt.verifier import SDJWTVerifier

from testpeers import HOSTILE, announce, b64url, b64url_decode, exit_with_the_test, https_server, tls_context

MDL = "org.iso.18013.5.1.mDL"
NS = "org.iso.18013.5.1"
REQUEST_TYPE = "oauth-authz-req+jwt"
PREREGISTERED_CLIENT_ID = "verifier.localhost"
PID_VCT = "urn:eudi:pid:1"
SD_JWT_REGISTERED = {"iss", "iat", "nbf", "exp", "cnf", "vct", "status", "sub", "_sd_alg"}


def claim_path(text: str) -> list:
    return [None if p == "*" else int(p) if p.isdigit() else p for p in text.split(".")]


def disclosed_paths(value, prefix="") -> list:
    """The leaf claims a verifier sees, as dotted paths (array positions are the verifier's)."""
    if isinstance(value, dict):
        out = []
        for key, member in value.items():
            if prefix == "" and key in SD_JWT_REGISTERED:
                continue
            out += disclosed_paths(member, f"{prefix}.{key}" if prefix else key)
        return out
    if isinstance(value, list):
        return [p for i, member in enumerate(value) for p in disclosed_paths(member, f"{prefix}.{i}")]
    return [prefix]


def verify_sd_jwt(presentation: str, ca, client_id: str, nonce: str) -> dict:
    """Checks an SD-JWT VC presentation with the reference library; returns the claims seen."""
    def issuer_key(_iss, header):
        chain = [x509.load_der_x509_certificate(base64.b64decode(c)) for c in header["x5c"]]
        chain[0].verify_directly_issued_by(ca)
        now = datetime.datetime.now(datetime.timezone.utc)
        assert chain[0].not_valid_before_utc <= now <= chain[0].not_valid_after_utc, "issuer certificate not valid now"
        return JWCryptoJWK.from_pyca(chain[0].public_key())
    verifier = SDJWTVerifier(presentation, issuer_key, expected_aud=client_id, expected_nonce=nonce)
    kb_header, kb_payload = [json.loads(b64url_decode(p)) for p in presentation.rsplit("~", 1)[1].split(".")[:2]]
    assert kb_header.get("typ") == "kb+jwt", kb_header
    assert abs(time.time() - kb_payload["iat"]) < 300, "KB-JWT iat is not recent"
    return verifier.get_verified_payload()


# --------------------------------------------------------------------------- PKI


def make_pki(directory: str, extra_ips=()):
    now = datetime.datetime.now(datetime.timezone.utc)
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "OID4VP Test Verifier CA")])
    ca = (
        x509.CertificateBuilder()
        .subject_name(ca_name)
        .issuer_name(ca_name)
        .public_key(ca_key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(hours=1))
        .not_valid_after(now + datetime.timedelta(days=2))
        .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
        .add_extension(
            x509.KeyUsage(False, False, False, False, False, True, True, False, False), critical=True)
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(ca_key.public_key()), critical=False)
        .sign(ca_key, hashes.SHA256())
    )

    def leaf(common_name, sans, eku):
        key = ec.generate_private_key(ec.SECP256R1())
        cert = (
            x509.CertificateBuilder()
            .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common_name)]))
            .issuer_name(ca_name)
            .public_key(key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(hours=1))
            .not_valid_after(now + datetime.timedelta(days=1))
            .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
            .add_extension(
                x509.KeyUsage(True, False, False, False, False, False, False, False, False), critical=True)
            .add_extension(x509.SubjectAlternativeName(sans), critical=False)
            .add_extension(x509.ExtendedKeyUsage(eku), critical=False)
            .add_extension(
                x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_key.public_key()), critical=False)
            .sign(ca_key, hashes.SHA256())
        )
        return key, cert

    import ipaddress
    tls_key, tls_cert = leaf(
        "localhost", [x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]
        + [x509.IPAddress(ipaddress.ip_address(ip)) for ip in extra_ips],
        [ExtendedKeyUsageOID.SERVER_AUTH])
    sign_key, sign_cert = leaf(
        "OID4VP Test Verifier", [x509.DNSName("localhost")], [ExtendedKeyUsageOID.CLIENT_AUTH])

    pem = serialization.Encoding.PEM
    ca_path = os.path.join(directory, "ca.pem")
    with open(ca_path, "wb") as f:
        f.write(ca.public_bytes(pem))
    tls_path = os.path.join(directory, "tls.pem")
    with open(tls_path, "wb") as f:
        f.write(tls_cert.public_bytes(pem) + ca.public_bytes(pem))
    tls_key_path = os.path.join(directory, "tls.key.pem")
    with os.fdopen(os.open(tls_key_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "wb") as f:
        f.write(tls_key.private_bytes(pem, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()))
    return ca_path, tls_path, tls_key_path, sign_key, [sign_cert, ca]


# --------------------------------------------------------------------------- JOSE


def sign_request(payload: dict, key, chain, tamper: bool = False) -> str:
    """ES256 compact JWS with typ oauth-authz-req+jwt and the x5c chain (leaf first)."""
    header = {
        "alg": "ES256", "typ": REQUEST_TYPE,
        "x5c": [base64.b64encode(c.public_bytes(serialization.Encoding.DER)).decode() for c in chain],
    }
    signing_input = b64url(json.dumps(header).encode()) + "." + b64url(json.dumps(payload).encode())
    r, s = decode_dss_signature(key.sign(signing_input.encode(), ec.ECDSA(hashes.SHA256())))
    signature = r.to_bytes(32, "big") + s.to_bytes(32, "big")
    if tamper:
        signature = signature[:10] + bytes([signature[10] ^ 0x01]) + signature[11:]
    return signing_input + "." + b64url(signature)


def jwk_thumbprint(public_jwk: dict) -> bytes:
    """RFC 7638 SHA-256 thumbprint of an EC public JWK."""
    canonical = json.dumps(
        {k: public_jwk[k] for k in ("crv", "kty", "x", "y")}, separators=(",", ":"), sort_keys=True)
    return hashlib.sha256(canonical.encode()).digest()


class LargeJWERegistry(jwe.JWERegistry):
    # joserfc's default caps a JWE at 64 KiB of ciphertext; a DeviceResponse with a portrait
    # may be larger.
    max_ciphertext_length = 4 * 1024 * 1024


JWE_REGISTRY = LargeJWERegistry(algorithms=["ECDH-ES", "A128GCM", "A192GCM", "A256GCM"])


# --------------------------------------------------------------------------- the verifier


def check_device_auth_detached(device_response: bytes) -> None:
    """ISO 18013-5: deviceSignature and deviceMac travel with a nil payload and alg in the
    protected header; the verifier checks them over bytes it computes itself. Refuse a wallet
    that attaches the payload, whatever the library below would make of it."""
    response = cbor2.loads(device_response)
    for document in response.get("documents", []):
        auth = document["deviceSigned"]["deviceAuth"]
        for name in ("deviceSignature", "deviceMac"):
            if name in auth:
                cose = auth[name]
                cose = cose.value if isinstance(cose, cbor2.CBORTag) else cose
                assert cose[2] is None, f"{name} carries an attached payload"
                protected = cbor2.loads(cose[0]) if cose[0] else {}
                assert 1 in protected, f"{name} has no alg in its protected header"


def session_transcript(client_id: str, nonce: str, thumbprint, response_uri: str) -> bytes:
    """OpenID4VP 1.0 (appendix B.2.6.1): [null, null, ["OpenID4VPHandover", SHA-256(cbor(
    [client_id, nonce, jwk_thumbprint or null, response_uri]))]]."""
    info = cbor2.dumps([client_id, nonce, thumbprint, response_uri])
    return cbor2.dumps([None, None, ["OpenID4VPHandover", hashlib.sha256(info).digest()]])


class Verifier:
    def __init__(self, port, sign_key, sign_chain, iaca, sd_jwt_ca=None, host=None):
        self.sd_jwt_ca = sd_jwt_ca
        self.port = port
        self.base = f"https://localhost:{port}"
        # Where request_uri points (--host): the response_uri stays at localhost.
        self.request_base = f"https://{host}:{port}" if host else self.base
        self.sign_key = sign_key
        self.sign_chain = sign_chain
        self.iaca = iaca
        self.lock = threading.Lock()
        self.sessions = {}
        self.by_state = {}

    def start(self, form: dict) -> dict:
        kind = form.get("kind", "signed")
        delivery = form.get("delivery", "post")
        mode = form.get("mode", "direct_post")
        variant = form.get("variant", "none")
        claims = [c for c in form.get("claims", f"{NS}:family_name,{NS}:given_name,{NS}:age_over_18").split(",") if c]
        if variant == "missing-element":
            claims.append(f"{NS}:signature_usual_mark")
        sid = secrets.token_urlsafe(12)
        state = secrets.token_urlsafe(12)
        nonce = secrets.token_urlsafe(16)
        response_uri = f"{self.base}/response"
        if kind == "preregistered":
            client_id = PREREGISTERED_CLIENT_ID
        elif kind == "signed":
            host = "wrong.localhost" if variant == "wrong-client" else "localhost"
            client_id = f"x509_san_dns:{host}"
            if variant == "wrong-client":
                response_uri = f"https://{host}:{self.port}/response"
        else:
            client_id = f"redirect_uri:{response_uri}"
        enc_key = ec.generate_private_key(ec.SECP256R1())
        enc_jwk = ECKey.import_key(enc_key.public_key()).as_dict()
        enc_jwk.update({"kid": "enc-" + sid[:6], "use": "enc", "alg": "ECDH-ES"})
        metadata = {
            "client_name": "OID4VP Test Verifier" + (HOSTILE if form.get("hostile_text") else ""),
            "vp_formats_supported": {"mso_mdoc": {"issuerauth_alg_values": [-7, -9], "deviceauth_alg_values": [-7, -9]},
                                     "dc+sd-jwt": {"sd-jwt_alg_values": ["ES256"], "kb-jwt_alg_values": ["ES256"]}},
        }
        if variant == "no-mdoc-format":
            # Neither mso_mdoc nor dc+sd-jwt: nothing this wallet can answer with.
            metadata["vp_formats_supported"] = {"jwt_vc_json": {"alg_values": ["ES256"]}}
        if mode == "direct_post.jwt":
            metadata["jwks"] = {"keys": [enc_jwk]}
            if form.get("enc"):
                metadata["encrypted_response_enc_values_supported"] = form["enc"].split(",")
        dcql = {"credentials": [{
            "id": "mdl", "format": "mso_mdoc", "meta": {"doctype_value": MDL},
            "claims": [{"path": c.split(":", 1), "intent_to_retain": False} for c in claims],
        }]}
        if form.get("hostile_text") == "doctype":
            dcql["credentials"][0]["meta"]["doctype_value"] = MDL + HOSTILE
        if form.get("claim_sets"):
            query = dcql["credentials"][0]
            for i, claim in enumerate(query["claims"]):
                claim["id"] = f"c{i}"
            width = min(4, len(query["claims"]))
            query["claim_sets"] = [[f"c{(i + j) % len(query['claims'])}" for j in range(width)]
                                   for i in range(int(form["claim_sets"]))]
        if form.get("pid"):
            pid_query = {"id": "pid", "format": "dc+sd-jwt", "meta": {"vct_values": [PID_VCT]},
                         "claims": [{"path": claim_path(c)} for c in form["pid"].split(",")]}
            dcql["credentials"] = ([] if form.get("only") == "pid" else dcql["credentials"]) + [pid_query]
        params = {
            "client_id": client_id, "response_type": "vp_token", "response_mode": mode,
            "response_uri": response_uri, "nonce": nonce, "state": state, "dcql_query": dcql,
            "client_metadata": metadata,
        }
        session = {
            "id": sid, "kind": kind, "delivery": delivery, "mode": mode, "variant": variant,
            "client_id": client_id, "nonce": nonce, "state": state, "response_uri": response_uri,
            "params": params, "enc_key": enc_key, "enc_jwk": enc_jwk, "trickle": form.get("trickle"),
            "hostile_text": form.get("hostile_text"),
            "queries": [q["id"] for q in dcql["credentials"]],
            "result": {
                "request_fetches": [], "received": False, "error": None, "verified": False,
                "verify_error": None, "disclosed": {}, "encrypted": None, "jwe_kid": None,
            },
        }
        with self.lock:
            self.sessions[sid] = session
            self.by_state[state] = session
        if kind in ("signed", "preregistered"):
            if delivery == "value":
                query = {"client_id": client_id, "request": self.request_object(session, None)}
            else:
                query = {"client_id": client_id, "request_uri": f"{self.request_base}/request/{sid}"}
                if delivery == "post":
                    query["request_uri_method"] = "post"
        else:
            query = {k: (json.dumps(v) if isinstance(v, dict) else v) for k, v in params.items()}
        url = "openid4vp://?" + urllib.parse.urlencode(query, quote_via=urllib.parse.quote)
        return {"session": sid, "url": url}

    def request_object(self, session, wallet_nonce) -> str:
        payload = dict(session["params"])
        payload["iat"] = int(time.time())
        payload["exp"] = int(time.time()) + 300
        if wallet_nonce is not None and session["variant"] != "no-nonce-echo":
            payload["wallet_nonce"] = wallet_nonce
        return sign_request(payload, self.sign_key, self.sign_chain, tamper=session["variant"] == "tampered")

    def response(self, form: dict):
        """Takes a direct_post / direct_post.jwt response; returns (status, JSON answer)."""
        encrypted = "response" in form
        fields = form
        header = None
        if encrypted:
            # The state is inside the JWE: try each session's key (a real verifier keys it by URL).
            token = form["response"]
            header = json.loads(b64url_decode(token.split(".")[0]))
            session = None
            with self.lock:
                candidates = list(self.sessions.values())
            for candidate in candidates:
                if candidate["enc_jwk"]["kid"] != header.get("kid"):
                    continue
                private = ECKey.import_key(candidate["enc_key"])
                plaintext = jwe.decrypt_compact(token, private, registry=JWE_REGISTRY).plaintext
                fields = json.loads(plaintext)
                session = candidate
                break
            if session is None:
                return 400, {"error": "invalid_request", "error_description": "no key for this JWE"}
        else:
            with self.lock:
                session = self.by_state.get(form.get("state"))
            if session is None:
                return 400, {"error": "invalid_request", "error_description": "unknown state"}
        result = session["result"]
        result["received"] = True
        result["encrypted"] = encrypted
        if header is not None:
            result["jwe_kid"] = header.get("kid")
            result["jwe_alg"] = header.get("alg")
            result["jwe_enc"] = header.get("enc")
        result["state_ok"] = fields.get("state") == session["state"]
        if "error" in fields:
            result["error"] = fields["error"]
            result["error_description"] = fields.get("error_description")
            return 200, {}
        vp_token = fields.get("vp_token")
        if isinstance(vp_token, str):
            vp_token = json.loads(vp_token)
        documents = []
        try:
            assert set(vp_token) <= set(session["queries"]), f"unrequested vp_token keys {sorted(vp_token)}"
            if "mdl" in vp_token:
                presentations = vp_token["mdl"]
                assert isinstance(presentations, list) and len(presentations) == 1
                device_response = b64url_decode(presentations[0])
                thumbprint = jwk_thumbprint(session["enc_jwk"]) if session["mode"] == "direct_post.jwt" else None
                transcript = session_transcript(
                    session["client_id"], session["nonce"], thumbprint, session["response_uri"])
                check_device_auth_detached(device_response)
                documents = openvc_mdoc.verify_device_response(
                    device_response, trust_anchors=[self.iaca], session_transcript=transcript,
                    expected_doc_type=MDL)
            if "pid" in vp_token:
                presentations = vp_token["pid"]
                assert isinstance(presentations, list) and len(presentations) == 1
                assert self.sd_jwt_ca is not None, "no --sd-jwt-ca to check an SD-JWT VC with"
                claims = verify_sd_jwt(presentations[0], self.sd_jwt_ca, session["client_id"], session["nonce"])
                assert claims.get("vct") == PID_VCT, claims.get("vct")
                result["sd_jwt_verified"] = True
                result["sd_jwt_disclosed"] = sorted(disclosed_paths(claims))
                # The key the holder proved possession of: which one-time copy was presented.
                result["sd_jwt_cnf_jwk"] = claims.get("cnf", {}).get("jwk")
        except Exception as exc:  # report any failure to the test
            result["verify_error"] = f"{type(exc).__name__}: {exc}"
            return 400, {"error": "invalid_request", "error_description": "the presentation does not verify"}
        result["verified"] = all(d.device_signed for d in documents) and (bool(documents) or "pid" in vp_token)
        result["vp_token_keys"] = sorted(vp_token)
        result["doc_types"] = [d.doc_type for d in documents]
        result["disclosed"] = {ns: sorted(d.namespaces[ns].keys()) for d in documents for ns in d.namespaces}
        if session["hostile_text"] == "error":
            return 400, {"error": "invalid_request" + HOSTILE, "error_description": "refused" + HOSTILE}
        return 200, {"redirect_uri": f"{self.base}/done?session={session['id']}"}


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    verifier: Verifier = None  # set in main

    def log_message(self, fmt, *args):  # quiet: the test reads /result
        pass

    def reply(self, status, body: bytes, content_type="application/json", extra=None):
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        for k, v in (extra or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(body)

    def reply_json(self, status, value):
        self.reply(status, json.dumps(value).encode())

    def form(self) -> dict:
        length = int(self.headers.get("Content-Length", "0"))
        raw = self.rfile.read(length).decode()
        return dict(urllib.parse.parse_qsl(raw, keep_blank_values=True))

    def do_GET(self):
        url = urllib.parse.urlparse(self.path)
        if url.path.startswith("/request/"):
            return self.request_uri(url.path.rsplit("/", 1)[1], None)
        if url.path.startswith("/result/"):
            session = self.verifier.sessions.get(url.path.rsplit("/", 1)[1])
            if session is None:
                return self.reply_json(404, {"error": "unknown session"})
            return self.reply_json(200, session["result"])
        if url.path == "/slow":
            seconds = float(urllib.parse.parse_qs(url.query).get("s", ["5"])[0])
            time.sleep(min(seconds, 60))
            return self.reply_json(200, {})
        if url.path == "/big":
            # ?mb=N: N MiB (at most 1024), streamed; the client is expected to hang up early.
            mib = min(int(urllib.parse.parse_qs(url.query).get("mb", ["2"])[0]), 1024)
            self.send_response(200)
            self.send_header("Content-Type", "application/octet-stream")
            self.send_header("Content-Length", str(mib * 1024 * 1024))
            self.end_headers()
            chunk = b"x" * (1024 * 1024)
            try:
                for _ in range(mib):
                    self.wfile.write(chunk)
            except OSError:
                pass
            self.close_connection = True
            return None
        if url.path == "/trickle":
            count = int(urllib.parse.parse_qs(url.query).get("n", ["60"])[0])
            return self.trickle(b"x" * min(count, 600), "text/plain")
        if url.path == "/redirect":
            return self.reply(302, b"", extra={"Location": f"{self.verifier.base}/big"})
        if url.path == "/done":
            return self.reply(200, b"done", "text/plain")
        return self.reply_json(404, {"error": "not found"})

    def do_POST(self):
        url = urllib.parse.urlparse(self.path)
        form = self.form()
        if url.path == "/start":
            return self.reply_json(200, self.verifier.start(form))
        if url.path.startswith("/request/"):
            return self.request_uri(url.path.rsplit("/", 1)[1], form)
        if url.path == "/response":
            if not (self.headers.get("Content-Type", "").startswith("application/x-www-form-urlencoded")):
                return self.reply_json(400, {"error": "invalid_request"})
            status, answer = self.verifier.response(form)
            session = self.verifier.by_state.get(form.get("state", ""))
            if session is not None and session.get("trickle") == "response":
                return self.trickle(json.dumps(answer).encode(), "application/json")
            return self.reply_json(status, answer)
        return self.reply_json(404, {"error": "not found"})

    def request_uri(self, sid, form):
        session = self.verifier.sessions.get(sid)
        if session is None:
            return self.reply_json(404, {"error": "unknown session"})
        fetch = {"method": "GET" if form is None else "POST", "accept": self.headers.get("Accept")}
        wallet_nonce = None
        if form is not None:
            fetch["content_type"] = self.headers.get("Content-Type")
            wallet_nonce = form.get("wallet_nonce")
            fetch["wallet_nonce_sent"] = wallet_nonce is not None
            try:
                metadata = json.loads(form.get("wallet_metadata", "null"))
                fetch["wallet_metadata_mso_mdoc"] = "mso_mdoc" in metadata.get("vp_formats_supported", {})
            except (ValueError, AttributeError):
                fetch["wallet_metadata_mso_mdoc"] = False
        session["result"]["request_fetches"].append(fetch)
        body = self.verifier.request_object(session, wallet_nonce).encode()
        if session.get("trickle") == "request":
            return self.trickle(body, "application/oauth-authz-req+jwt")
        return self.reply(200, body, "application/oauth-authz-req+jwt")

    def trickle(self, body: bytes, content_type):
        trickle(self, body, content_type)


def trickle(handler, body: bytes, content_type: str):
    """Headers at once, then one body byte a second (until the client goes away); shared with
    vci_issuer.py."""
    handler.send_response(200)
    handler.send_header("Content-Type", content_type)
    handler.send_header("Content-Length", str(len(body)))
    handler.end_headers()
    handler.wfile.flush()
    try:
        for i in range(len(body)):
            handler.wfile.write(body[i:i + 1])
            handler.wfile.flush()
            time.sleep(1)
    except OSError:
        pass
    handler.close_connection = True


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dir", required=True, help="where ca.pem and the TLS key go")
    parser.add_argument("--iaca", required=True, help="the IACA certificate (PEM) DeviceResponses chain to")
    parser.add_argument("--lifetime", type=float, default=300, help="exit after this many seconds")
    parser.add_argument("--ready-file", help="also write the JSON line here (atomically) once listening")
    parser.add_argument("--sd-jwt-ca", help="the CA certificate (PEM) SD-JWT VC issuers chain to")
    parser.add_argument("--host", help="listen on this address and put it in request_uri (the response_uri stays "
                                       "at localhost: for the wallet's endpoint address policy)")
    args = parser.parse_args()

    ca_path, tls_path, tls_key_path, sign_key, sign_chain = make_pki(args.dir, [args.host] if args.host else [])
    with open(args.iaca, "rb") as f:
        iaca = x509.load_pem_x509_certificate(f.read())

    server = https_server(args.host or "127.0.0.1", Handler, tls_context(tls_path, tls_key_path))
    port = server.server_address[1]
    sd_jwt_ca = None
    if args.sd_jwt_ca:
        with open(args.sd_jwt_ca, "rb") as f:
            sd_jwt_ca = x509.load_pem_x509_certificate(f.read())
    Handler.verifier = Verifier(port, sign_key, sign_chain, iaca, sd_jwt_ca, args.host)

    # The wallet-side registration of this verifier as a pre-registered client.
    jwk_path = os.path.join(args.dir, "verifier-signing.jwk")
    with open(jwk_path, "w") as f:
        json.dump(ECKey.import_key(sign_key.public_key()).as_dict(), f)
    with open(os.path.join(args.dir, "verifiers.toml"), "w") as f:
        f.write(
            "[[verifier]]\n"
            f'client_id = "{PREREGISTERED_CLIENT_ID}"\n'
            'name = "Pre-registered Test Verifier"\n'
            f'response_uris = ["https://localhost:{port}/response"]\n'
            'jwk = "verifier-signing.jwk"\n')

    exit_with_the_test(args.lifetime)
    print(announce({"port": port, "ca": ca_path}, args.ready_file), flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
