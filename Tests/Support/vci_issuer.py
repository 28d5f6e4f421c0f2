#!/usr/bin/env python3
"""An independent OpenID4VCI 1.0 issuer for the credential receiving tests, on loopback HTTPS.

Run by Tests/Support/vci-test.sh from .venv-test (cryptography, joserfc, pymdoccbor, cbor2):

    vci_issuer.py --dir TMPDIR --ds-key Fixtures/pki/ds.key.pem --ds-cert Fixtures/pki/ds.pem

It makes its own TLS test CA (TMPDIR/ca.pem) and a certificate for localhost / 127.0.0.1
(and --host), listens on two free ports of 127.0.0.1 (or --host: then the issuer identifiers
name that address) and prints one JSON line {"port": N, "port2": M, "ca": PATH}.

Every offer is a session with its own Credential Issuer Identifier https://localhost:PORT/s/ID
(so the metadata lives at /.well-known/openid-credential-issuer/s/ID, between host and path):

  POST /start          form: delivery=value|reference|https, tx_code=CODE (numeric, offer asks
                       for it), dpop=1 (the AS lists dpop_signing_alg_values_supported and
                       challenges the first token and credential request for a DPoP nonce),
                       batch_size=N, signer=trusted|untrusted (a fresh IACA the holder does not
                       know), identifiers=1 (authorization_details with credential_identifiers),
                       as_metadata=oauth|openid (where the AS metadata is served), notify=1,
                       grant=pre|code (code: an authorization_code grant with issuer_state),
                       par=1|0 (a pushed authorization request endpoint, required when 1),
                       deferred=N (the credential request answers 202 with a transaction_id and
                       interval 1; the deferred endpoint answers 202 N times, then the credentials),
                       encrypt=1 (credential_request_encryption and credential_response_encryption,
                       both required: requests must come as JWEs to the issuer's key, answers go as
                       JWEs to the key in the request's credential_response_encryption),
                       signed_metadata=trusted|untrusted|tampered (the metadata as a JWT when
                       the request accepts application/jwt: signed by the trusted document signer,
                       a fresh IACA's, or changed after signing),
                       format=sd-jwt (the offer's configuration "pid": dc+sd-jwt, vct
                       urn:eudi:pid:1, SD-JWT VCs issued by the IETF reference library `sd-jwt`
                       with the issuer's x5c chain to TMPDIR/sd-jwt-ca.pem, cnf.jwk the proved key;
                       signer=untrusted: a chain to a fresh CA the holder does not know)
                       trickle=metadata|credential (the issuer metadata or the credential
                       answer: headers at once, then one body byte a second, for the holder's deadline),
                       token_at=second|HOST:PORT, credential_at=HOST:PORT (the token endpoint on the
                       issuer's second port, or the token / credential endpoint at another authority
                       such as 169.254.169.254:443: for the holder's endpoint address policy),
                       many_ids=N (the offer names N distinct configuration ids more, as short
                       as they come: 150000 make an offer of about 1 MB, for the holder's limit),
                       hostile_text=names|doctype|error (escape sequences, a bidi override, a
                       newline and a C1 CSI in the configuration id and the issuer's, credential's
                       and claims' display names; doctype: in the metadata's doctype too; error: in
                       the token endpoint's error and error_description), for the holder's output,
                       scope=only|both (the configurations have a scope; only: a separate
                       authorization server at ISSUER/as, named in authorization_servers, that lists
                       no authorization_details_types_supported, wants scope and resource = the issuer
                       identifier, and answers server_error to authorization_details, as servers in
                       the field do; both: the issuer's own server lists openid_credential in
                       authorization_details_types_supported), redirect_error=nostate (the
                       authorization endpoint redirects with error server_error and no state),
                       tx_code_error=description (a wrong tx_code is answered invalid_request with
                       a `description` member, not error_description, as issuers in the field do),
                       key_attestations=required (the configurations' jwt proof type lists
                       key_attestations_required: the issuer takes no proof without a key attestation),
                       deferred_key=first|other (with encrypt=1 and deferred=N: the deferred
                       credentials go encrypted to the key of the first credential request, not
                       the deferred request's; other: to a key nobody has),
                       status_uri=URI, status_index=N (format=sd-jwt: each SD-JWT VC carries the
                       status claim {"status_list": {"idx": N (+ the copy's number), "uri": URI}};
                       its Status List Token is signed with TMPDIR/sd-jwt-status-list.pem and .key.pem,
                       a status list signer under TMPDIR/sd-jwt-ca.pem),
                       -> {"session", "offer"}: what a QR code would carry.
  POST /s/ID/par       RFC 9126: checks the authorization request (response_type code, client_id,
                       a loopback http redirect_uri, state, PKCE S256 challenge, authorization_details
                       for mdl, issuer_state) -> 201 {"request_uri"}.
  GET  /s/ID/authorize with PAR only client_id and request_uri (else the parameters checked as for
                       PAR) -> 302 to redirect_uri?code&state&iss: the test follows it as a browser.
  POST /published-sd-jwt form: jwk=HOLDER_PUBLIC_JWK_JSON, keys=inline|uri|wrong -> {"id", "credential"}:
                       an SD-JWT VC without x5c (kid k1) whose iss https://localhost:PORT/jv/ID
                       publishes its key in JWT VC Issuer Metadata at /.well-known/jwt-vc-issuer/jv/ID
                       (inline jwks, or jwks_uri /jv/ID/jwks; wrong: another key under kid k1).
  GET  /offer/ID       the offer by reference.
  GET  /result/ID      what the issuer saw: violations (every rule of the spec the holder broke;
                       a test fails unless it is empty), counts, notifications, issued copies.

Checked on every request (a violation is recorded and answered 400 invalid_request):
token request form (grant_type, pre-authorized_code, tx_code only when asked), DPoP proofs
(typ dpop+jwt, ES256, a public jwk, a valid signature, htm, htu, iat, unique jti, the server
nonce, ath on resource requests, the same key for the token and the credential requests),
the Authorization scheme (DPoP or Bearer), key proofs (typ openid4vci-proof+jwt, ES256, jwk in
the header and nothing else to name the key, a valid signature, aud = the issuer identifier,
nonce = an unused c_nonce of this issuer, iat, distinct keys, no more than batch_size), the
credential request body, the notification body; in the authorization code flow the PAR
request, the authorization request, the token request's PKCE code_verifier (S256 of it is the
challenge), redirect_uri and client_id, and the proofs' iss (the client_id). Test keys only;
nothing persists.
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
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature
from cryptography.x509.oid import NameOID, ObjectIdentifier
from joserfc import jwe, jws
from joserfc.jwk import ECKey
from jwcrypto.jwk import JWK
from pymdoccbor.mdoc.issuer import MdocCborIssuer
from sd_jwt.common import SDObj
from sd_jwt.issuer import SDJWTIssuer

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from oid4vp_verifier import make_pki, trickle  # noqa: E402  (the same TLS test PKI, slow answers)
from testpeers import HOSTILE, announce, b64url, b64url_decode, exit_with_the_test, https_server, tls_context  # noqa: E402

MDL = "org.iso.18013.5.1.mDL"
PID_VCT = "urn:eudi:pid:1"
NS = "org.iso.18013.5.1"
PRE_AUTH = "urn:ietf:params:oauth:grant-type:pre-authorized_code"
CLOCK_SKEW = 120


class Violation(Exception):
    """The holder broke a rule of the spec."""


def parse_jws(token: str):
    parts = token.split(".")
    if len(parts) != 3:
        raise Violation("a JWS has 3 parts")
    header = json.loads(b64url_decode(parts[0]))
    payload = json.loads(b64url_decode(parts[1]))
    return header, payload, (parts[0] + "." + parts[1]).encode(), b64url_decode(parts[2])


def verify_es256(jwk: dict, signing_input: bytes, signature: bytes):
    if jwk.get("kty") != "EC" or jwk.get("crv") != "P-256":
        raise Violation("the jwk is not an EC P-256 key")
    if "d" in jwk:
        raise Violation("the jwk carries a private key")
    numbers = ec.EllipticCurvePublicNumbers(
        int.from_bytes(b64url_decode(jwk["x"]), "big"), int.from_bytes(b64url_decode(jwk["y"]), "big"),
        ec.SECP256R1())
    key = numbers.public_key()
    if len(signature) != 64:
        raise Violation("an ES256 signature is 64 bytes (r||s)")
    der = encode_dss_signature(int.from_bytes(signature[:32], "big"), int.from_bytes(signature[32:], "big"))
    try:
        key.verify(der, signing_input, ec.ECDSA(hashes.SHA256()))
    except Exception:
        raise Violation("the signature does not verify with the header's jwk")
    return key


def thumbprint(jwk: dict) -> str:
    canonical = json.dumps({k: jwk[k] for k in ("crv", "kty", "x", "y")}, separators=(",", ":"), sort_keys=True)
    return b64url(hashlib.sha256(canonical.encode()).digest())


def make_untrusted_signer():
    now = datetime.datetime.now(datetime.timezone.utc)
    name = lambda cn: x509.Name([x509.NameAttribute(NameOID.COUNTRY_NAME, "UT"), x509.NameAttribute(NameOID.COMMON_NAME, cn)])
    iaca_key = ec.generate_private_key(ec.SECP256R1())
    iaca = (x509.CertificateBuilder().subject_name(name("Untrusted IACA")).issuer_name(name("Untrusted IACA"))
            .public_key(iaca_key.public_key()).serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(days=1)).not_valid_after(now + datetime.timedelta(days=30))
            .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
            .add_extension(x509.KeyUsage(False, False, False, False, False, True, True, False, False), critical=True)
            .sign(iaca_key, hashes.SHA256()))
    ds_key = ec.generate_private_key(ec.SECP256R1())
    ds = (x509.CertificateBuilder().subject_name(name("Untrusted DS")).issuer_name(iaca.subject)
          .public_key(ds_key.public_key()).serial_number(x509.random_serial_number())
          .not_valid_before(now - datetime.timedelta(days=1)).not_valid_after(now + datetime.timedelta(days=30))
          .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
          .add_extension(x509.KeyUsage(True, False, False, False, False, False, False, False, False), critical=True)
          .add_extension(x509.ExtendedKeyUsage([ObjectIdentifier("1.0.18013.5.1.2")]), critical=True)
          .sign(iaca_key, hashes.SHA256()))
    return ds_key, ds


def make_sd_jwt_signer(ca_name="VCI Test SD-JWT VC CA", status_signer_dir=None):
    """A CA and an issuer certificate it signed (P-256): the CA, and the issuer's key and x5c.
    With status_signer_dir: also a status list signer certificate under the CA, written there as
    sd-jwt-status-list.pem and sd-jwt-status-list.key.pem (status list tokens for the status claim)."""
    now = datetime.datetime.now(datetime.timezone.utc)

    def certificate(subject, issuer_name, public_key, signing_key, ca):
        builder = (x509.CertificateBuilder()
                   .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, subject)]))
                   .issuer_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, issuer_name)]))
                   .public_key(public_key).serial_number(x509.random_serial_number())
                   .not_valid_before(now - datetime.timedelta(days=1))
                   .not_valid_after(now + datetime.timedelta(days=30))
                   .add_extension(x509.BasicConstraints(ca=ca, path_length=0 if ca else None), critical=True))
        usage = (False, False, False, False, False, True, True, False, False) if ca else \
            (True, False, False, False, False, False, False, False, False)
        return builder.add_extension(x509.KeyUsage(*usage), critical=True).sign(signing_key, hashes.SHA256())

    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca = certificate(ca_name, ca_name, ca_key.public_key(), ca_key, True)
    issuer_ec = ec.generate_private_key(ec.SECP256R1())
    issuer_cert = certificate("VCI Test PID Issuer", ca_name, issuer_ec.public_key(), ca_key, False)
    issuer_key = JWK.from_pem(issuer_ec.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()))
    x5c = [base64.b64encode(issuer_cert.public_bytes(serialization.Encoding.DER)).decode()]
    if status_signer_dir:
        status_ec = ec.generate_private_key(ec.SECP256R1())
        status_cert = certificate("VCI Test Status List Signer", ca_name, status_ec.public_key(), ca_key, False)
        with open(os.path.join(status_signer_dir, "sd-jwt-status-list.pem"), "wb") as f:
            f.write(status_cert.public_bytes(serialization.Encoding.PEM))
        with open(os.path.join(status_signer_dir, "sd-jwt-status-list.key.pem"), "wb") as f:
            f.write(status_ec.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                            serialization.NoEncryption()))
    return ca, issuer_key, x5c


def issue_pid(signer, issuer_id: str, jwk: dict, status=None) -> str:
    """A compact SD-JWT VC (flat, nested and array Disclosures) bound to `jwk` (cnf.jwk); with
    status (uri, idx), the status claim referring to that status list entry."""
    _, issuer_key, x5c = signer
    now = int(time.time())
    claims = {
        "iss": issuer_id, "vct": PID_VCT, "iat": now, "exp": now + 365 * 86400,
        SDObj("given_name"): "Erika", SDObj("family_name"): "Mustermann", SDObj("birthdate"): "1964-08-12",
        SDObj("address"): {SDObj("locality"): "Koeln", "country": "DE"},
        "nationalities": [SDObj("DE")],
    }
    if status:
        claims["status"] = {"status_list": {"idx": status[1], "uri": status[0]}}
    holder = JWK(**{k: jwk[k] for k in ("kty", "crv", "x", "y")})
    return SDJWTIssuer(claims, issuer_key, holder, sign_alg="ES256", add_decoy_claims=True,
                       extra_header_parameters={"typ": "dc+sd-jwt", "x5c": x5c}).sd_jwt_issuance


def issue_mdl(ds_key, ds_cert, jwk: dict) -> bytes:
    """An IssuerSigned (CBOR) for the device key `jwk`, signed by ds_key (pymdoccbor)."""
    x, y = b64url_decode(jwk["x"]), b64url_decode(jwk["y"])
    # The point as a COSE_Key with both coordinates at their full 32 bytes (RFC 9053 section 2.1).
    # Handed a PEM, pymdoccbor 1.4.0 drops leading zero octets (about 1 key in 128), which strict
    # verifiers (the loopback one) refuse; the holder's tolerance of that is a unit test's.
    point = ec.EllipticCurvePublicNumbers(int.from_bytes(x, "big"), int.from_bytes(y, "big"), ec.SECP256R1())
    point.public_key()  # raises unless the point is on the curve
    device_key = {1: 2, -1: 1, -2: x, -3: y}
    now = datetime.datetime.now(datetime.timezone.utc)
    issuer = MdocCborIssuer(
        private_key={"KTY": "EC2", "CURVE": "P_256", "ALG": "ES256",
                     "D": ds_key.private_numbers().private_value.to_bytes(32, "big"), "KID": b"ds"},
        alg="ES256")
    issuer.new(
        data={NS: {
            "family_name": "Mustermann", "given_name": "Erika", "birth_date": "1971-09-01",
            "issue_date": "2024-01-01", "expiry_date": "2034-01-01", "issuing_country": "UT",
            "issuing_authority": "Utopia DMV", "document_number": "VCI123456", "age_over_18": True,
            "un_distinguishing_sign": "UT",
        }},
        doctype=MDL,
        validity={"issuance_date": (now - datetime.timedelta(days=1)).strftime("%Y-%m-%d"),
                  "expiry_date": (now + datetime.timedelta(days=365)).strftime("%Y-%m-%d")},
        devicekeyinfo=device_key,
        x509_chain=[ds_cert.public_bytes(serialization.Encoding.DER)],
    )
    container = cbor2.loads(issuer.dump())
    return cbor2.dumps(container["documents"][0]["issuerSigned"])


def base36(n: int) -> str:
    """n in base 36 (0-9a-z): the shortest distinct configuration ids."""
    digits = "0123456789abcdefghijklmnopqrstuvwxyz"
    text = digits[n % 36]
    while n >= 36:
        n //= 36
        text = digits[n % 36] + text
    return text


class Issuer:
    def __init__(self, port, ds_key, ds_cert, sd_jwt_signer, host="localhost", port2=None):
        self.sd_jwt_signer = sd_jwt_signer
        self.port = port
        self.host = host
        self.port2 = port2
        self.base = f"https://{host}:{port}"
        self.ds_key = ds_key
        self.ds_cert = ds_cert
        self.lock = threading.Lock()
        self.sessions = {}
        self.published = {}  # jwt-vc-issuer test issuers, by ID

    def start(self, form: dict) -> dict:
        sid = secrets.token_urlsafe(9)
        issuer_id = f"{self.base}/s/{sid}"
        session = {
            "id": sid, "issuer": issuer_id, "delivery": form.get("delivery", "value"),
            "tx_code": form.get("tx_code") or None, "dpop": form.get("dpop") == "1",
            "batch_size": int(form.get("batch_size", "1")), "signer": form.get("signer", "trusted"),
            "identifiers": form.get("identifiers") == "1", "as_metadata": form.get("as_metadata", "oauth"),
            "notify": form.get("notify", "1") == "1",
            "code": secrets.token_urlsafe(16), "code_used": False, "tokens": {}, "c_nonces": set(),
            "used_nonces": set(), "dpop_nonce": secrets.token_urlsafe(12), "dpop_nonces_given": set(), "jtis": set(), "dpop_jkt": None,
            "notification_id": secrets.token_urlsafe(8),
            "grant": form.get("grant", "pre"), "par": form.get("par", "1") == "1",
            "issuer_state": secrets.token_urlsafe(8), "requests": {}, "authz": None, "client_id": None,
            "deferred": int(form.get("deferred", "0")), "transaction_id": None, "deferred_keys": None,
            "encrypt": form.get("encrypt") == "1", "enc_key": ECKey.generate_key("P-256", private=True),
            "config": "pid" if form.get("format") == "sd-jwt" else "mdl",
            "signed_metadata": form.get("signed_metadata") or None,
            "trickle": form.get("trickle"), "endpoint_urls": {},
            # names: the configuration id, the issuer's, credential's and claims' display names;
            # doctype: also the metadata's doctype (not the credential's); error: the token
            # endpoint answers an error whose code and description carry escape sequences.
            "hostile_text": form.get("hostile_text"),
            "scope": form.get("scope"), "redirect_error": form.get("redirect_error"),
            "tx_code_error": form.get("tx_code_error"), "key_attestations": form.get("key_attestations"),
            "deferred_key": form.get("deferred_key"), "first_spec": None,
            "status": (form["status_uri"], int(form.get("status_index", "0"))) if form.get("status_uri") else None,
            "result": {"metadata_accept": None, "violations": [], "token_requests": 0, "token_errors": [], "credential_requests": 0,
                       "nonce_requests": 0, "dpop_challenges": 0, "proofs": 0, "issued": 0, "notifications": [],
                       "metadata_fetches": 0, "as_metadata_fetches": 0, "offer_fetches": 0,
                       "tx_code_sent": None, "request_target": None, "par_requests": 0,
                       "authorization_requests": 0, "pkce_checked": False, "redirect_uri": None,
                       "deferred_polls": 0, "encrypted_requests": 0, "encrypted_responses": 0,
                       "authorization_asked_by": None},
        }
        # scope=only: a separate authorization server (ISSUER/as) on the same host.
        session["as_id"] = issuer_id + "/as" if session["scope"] == "only" else issuer_id
        with self.lock:
            self.sessions[sid] = session
        if session["grant"] == "code":
            grants = {"authorization_code": {"issuer_state": session["issuer_state"]}}
        else:
            grant = {"pre-authorized_code": session["code"]}
            if session["tx_code"]:
                grant["tx_code"] = {"input_mode": "numeric", "length": len(session["tx_code"]),
                                    "description": "the code in your letter"}
            grants = {PRE_AUTH: grant}
        if session["hostile_text"] in ("names", "doctype") and session["config"] == "mdl":
            session["config"] = "mdl" + HOSTILE
        offer = {"credential_issuer": issuer_id, "credential_configuration_ids": [session["config"]], "grants": grants}
        for name in ("token", "credential"):
            at = form.get(f"{name}_at")
            if at == "second":
                at = f"{self.host}:{self.port2}"
            if at:
                session["endpoint_urls"][name] = f"https://{at}/s/{sid}/{name}"
        offer["credential_configuration_ids"] += [base36(i) for i in range(int(form.get("many_ids", "0")))]
        session["offer"] = offer
        if session["delivery"] == "value":
            url = "openid-credential-offer://?credential_offer=" + urllib.parse.quote(json.dumps(offer), safe="")
        elif session["delivery"] == "https":
            url = "https://wallet.example/offer?credential_offer_uri=" + urllib.parse.quote(f"{self.base}/offer/{sid}", safe="")
        else:
            url = "openid-credential-offer://?credential_offer_uri=" + urllib.parse.quote(f"{self.base}/offer/{sid}", safe="")
        return {"session": sid, "offer": url}

    # -- SD-JWT VCs whose issuer publishes its keys (JWT VC Issuer Metadata), no x5c

    def published_sd_jwt(self, form: dict) -> dict:
        """A compact SD-JWT VC for the holder key `jwk` (JSON), signed by a fresh key named by kid
        only; its iss https://localhost:PORT/jv/ID publishes the key at /.well-known/jwt-vc-issuer/jv/ID
        (keys=inline: jwks; uri: jwks_uri; wrong: another key under the same kid)."""
        pid = secrets.token_urlsafe(9)
        issuer_id = f"{self.base}/jv/{pid}"
        key = JWK.generate(kty="EC", crv="P-256")
        published = key if form.get("keys", "inline") != "wrong" else JWK.generate(kty="EC", crv="P-256")
        public = dict(published.export_public(as_dict=True), kid="k1", use="sig", alg="ES256")
        self.published[pid] = {"issuer": issuer_id, "jwk": public, "mode": form.get("keys", "inline"), "fetches": 0}
        holder = json.loads(form["jwk"])
        now = int(time.time())
        claims = {"iss": issuer_id, "vct": PID_VCT, "iat": now, "exp": now + 86400,
                  SDObj("given_name"): "Erika", SDObj("family_name"): "Mustermann"}
        compact = SDJWTIssuer(claims, key, JWK(**{k: holder[k] for k in ("kty", "crv", "x", "y")}), sign_alg="ES256",
                              extra_header_parameters={"typ": "dc+sd-jwt", "kid": "k1"}).sd_jwt_issuance
        return {"id": pid, "credential": compact}

    def jwt_vc_issuer_metadata(self, pid):
        p = self.published.get(pid)
        if not p:
            return None
        p["fetches"] += 1
        if p["mode"] == "uri":
            return {"issuer": p["issuer"], "jwks_uri": f"{p['issuer']}/jwks"}
        return {"issuer": p["issuer"], "jwks": {"keys": [p["jwk"]]}}

    # -- metadata

    def signed_issuer_metadata(self, s):
        """OpenID4VCI 1.0 section 12.2.3: the metadata as a JWT (typ
        openid-credential-issuer-metadata+jwt, x5c, sub = the issuer, iat), signed by the trusted
        document signer (a chain to the test IACA); untrusted: by a fresh IACA's; tampered: a
        member changed after signing."""
        metadata = self.issuer_metadata(s)
        metadata["display"] = [{"name": "Utopia Test DMV (signed)", "locale": "en"}]
        metadata.update({"sub": s["issuer"], "iat": int(time.time())})
        key, cert = make_untrusted_signer() if s["signed_metadata"] == "untrusted" else (self.ds_key, self.ds_cert)
        pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                serialization.NoEncryption())
        header = {"alg": "ES256", "typ": "openid-credential-issuer-metadata+jwt",
                  "x5c": [base64.b64encode(cert.public_bytes(serialization.Encoding.DER)).decode()]}
        token = jws.serialize_compact(header, json.dumps(metadata).encode(), ECKey.import_key(pem))
        if s["signed_metadata"] == "tampered":
            protected, _, signature = token.split(".")
            metadata["credential_endpoint"] = "https://attacker.example/credential"
            token = ".".join([protected, b64url(json.dumps(metadata).encode()), signature])
        return token

    def issuer_metadata(self, s):
        s["result"]["metadata_fetches"] += 1
        metadata = {
            "credential_issuer": s["issuer"],
            "credential_endpoint": s["endpoint_urls"].get("credential", f"{s['issuer']}/credential"),
            "nonce_endpoint": f"{s['issuer']}/nonce",
            "display": [{"name": "Utopia Test DMV", "locale": "en"}],
            "credential_configurations_supported": {
                "mdl": {
                    "format": "mso_mdoc", "doctype": MDL, "cryptographic_binding_methods_supported": ["cose_key"],
                    "credential_signing_alg_values_supported": [-7],
                    "proof_types_supported": {"jwt": {"proof_signing_alg_values_supported": ["ES256"]}},
                    "credential_metadata": {
                        "display": [{"name": "Utopia driving licence", "locale": "en"}],
                        "claims": [
                            {"path": [NS, "family_name"], "display": [{"name": "Family name", "locale": "en"}]},
                            {"path": [NS, "given_name"], "display": [{"name": "Given name", "locale": "en"}]},
                            {"path": [NS, "age_over_18"], "display": [{"name": "Over 18", "locale": "en"}]},
                        ]},
                },
                "pid": {
                    "format": "dc+sd-jwt", "vct": PID_VCT, "cryptographic_binding_methods_supported": ["jwk"],
                    "credential_signing_alg_values_supported": ["ES256"],
                    "proof_types_supported": {"jwt": {"proof_signing_alg_values_supported": ["ES256"]}},
                    "credential_metadata": {
                        "display": [{"name": "Utopia PID", "locale": "en"}],
                        "claims": [
                            {"path": ["given_name"], "display": [{"name": "Given name", "locale": "en"}]},
                            {"path": ["family_name"], "display": [{"name": "Family name", "locale": "en"}]},
                            {"path": ["address", "locality"], "display": [{"name": "Town", "locale": "en"}]},
                        ]},
                }},
        }
        if s["config"] not in metadata["credential_configurations_supported"]:  # hostile_text
            mdl = json.loads(json.dumps(metadata["credential_configurations_supported"]["mdl"]))
            mdl["credential_metadata"]["display"][0]["name"] = "Utopia licence" + HOSTILE
            for claim in mdl["credential_metadata"]["claims"]:
                claim["display"][0]["name"] += HOSTILE
            if s["hostile_text"] == "doctype":
                mdl["doctype"] = MDL + HOSTILE
            metadata["credential_configurations_supported"][s["config"]] = mdl
            metadata["display"][0]["name"] = "Utopia" + HOSTILE
        if s["scope"]:
            metadata["credential_configurations_supported"]["mdl"]["scope"] = MDL
            metadata["credential_configurations_supported"]["pid"]["scope"] = "eu.europa.ec.eudi.pid.1"
        if s["as_id"] != s["issuer"]:
            metadata["authorization_servers"] = [s["as_id"]]
        if s["key_attestations"] == "required":
            for config in metadata["credential_configurations_supported"].values():
                config["proof_types_supported"]["jwt"]["key_attestations_required"] = {
                    "key_storage": ["iso_18045_moderate"]}
        if s["notify"]:
            metadata["notification_endpoint"] = f"{s['issuer']}/notification"
        if s["batch_size"] > 1:
            metadata["batch_credential_issuance"] = {"batch_size": s["batch_size"]}
        if s["deferred"]:
            metadata["deferred_credential_endpoint"] = f"{s['issuer']}/deferred"
        if s["encrypt"]:
            public = s["enc_key"].as_dict(private=False)
            public.update({"kid": "issuer-enc-1", "use": "enc", "alg": "ECDH-ES"})
            metadata["credential_request_encryption"] = {
                "jwks": {"keys": [public]}, "enc_values_supported": ["A128GCM", "A256GCM"], "encryption_required": True}
            metadata["credential_response_encryption"] = {
                "alg_values_supported": ["ECDH-ES"], "enc_values_supported": ["A256GCM"], "encryption_required": True}
        return metadata

    # -- encryption (OpenID4VCI section 10)

    def decrypt_request(self, s, headers, body):
        """The JSON of a credential or deferred request; checks encryption when required."""
        ctype = headers.get("Content-Type", "")
        if not s["encrypt"]:
            if not ctype.startswith("application/json"):
                raise Violation("the request is not JSON")
            return json.loads(body), None
        if not ctype.startswith("application/jwt"):
            raise Violation("the request is not encrypted (application/jwt) although the issuer requires it")
        token = body.decode()
        header = json.loads(b64url_decode(token.split(".")[0]))
        if header.get("kid") != "issuer-enc-1":
            raise Violation("the request JWE does not name the issuer key's kid")
        if header.get("alg") != "ECDH-ES" or header.get("enc") not in ("A128GCM", "A256GCM"):
            raise Violation("the request JWE alg/enc is not what the issuer supports")
        registry = jwe.JWERegistry(algorithms=["ECDH-ES", "A128GCM", "A256GCM"])
        request = json.loads(jwe.decrypt_compact(token, s["enc_key"], registry=registry).plaintext)
        s["result"]["encrypted_requests"] += 1
        spec = request.get("credential_response_encryption")
        if not isinstance(spec, dict) or spec.get("enc") != "A256GCM":
            raise Violation("credential_response_encryption is missing or its enc is not supported")
        jwk = spec.get("jwk")
        if not isinstance(jwk, dict) or jwk.get("alg") != "ECDH-ES" or "d" in jwk:
            raise Violation("credential_response_encryption.jwk must be a public key with alg ECDH-ES")
        return request, spec

    def encrypted(self, s, spec, status, value, extra):
        if spec is None or status >= 400:  # errors go unencrypted
            return status, value, extra
        registry = jwe.JWERegistry(algorithms=["ECDH-ES", "A256GCM"])
        protected = {"alg": "ECDH-ES", "enc": spec["enc"]}
        if "kid" in spec["jwk"]:
            protected["kid"] = spec["jwk"]["kid"]
        token = jwe.encrypt_compact(protected, json.dumps(value).encode(), ECKey.import_key(spec["jwk"]),
                                    registry=registry)
        s["result"]["encrypted_responses"] += 1
        return status, ("jwt", token), extra

    def as_metadata(self, s):
        s["result"]["as_metadata_fetches"] += 1
        metadata = {"issuer": s["as_id"], "token_endpoint": s["endpoint_urls"].get("token", f"{s['issuer']}/token"),
                    "grant_types_supported": [PRE_AUTH], "pre-authorized_grant_anonymous_access_supported": True}
        if s["dpop"]:
            metadata["dpop_signing_alg_values_supported"] = ["ES256"]
        if s["grant"] == "code":
            metadata["authorization_endpoint"] = f"{s['issuer']}/authorize"
            metadata["code_challenge_methods_supported"] = ["S256"]
            metadata["grant_types_supported"] = ["authorization_code"]
            if s["par"]:
                metadata["pushed_authorization_request_endpoint"] = f"{s['issuer']}/par"
                metadata["require_pushed_authorization_requests"] = True
        if s["scope"] == "both":
            metadata["authorization_details_types_supported"] = ["openid_credential"]
        return metadata

    # -- the authorization code flow

    def check_authorization_request(self, s, form):
        if form.get("response_type") != "code":
            raise Violation("response_type is not code")
        if not form.get("client_id"):
            raise Violation("no client_id")
        redirect = urllib.parse.urlparse(form.get("redirect_uri", ""))
        if redirect.scheme != "http" or redirect.hostname != "127.0.0.1" or not redirect.port:
            raise Violation("redirect_uri is not a loopback http://127.0.0.1:PORT URI (RFC 8252 section 7.3)")
        if len(form.get("state", "")) < 16:
            raise Violation("state is missing or guessable")
        if form.get("code_challenge_method") != "S256":
            raise Violation("code_challenge_method is not S256")
        if len(form.get("code_challenge", "")) != 43:
            raise Violation("code_challenge is not a base64url SHA-256")
        if s["scope"] == "only":
            self.check_scope_request(s, form)
        else:
            details = json.loads(form.get("authorization_details", "null"))
            if details != [{"type": "openid_credential", "credential_configuration_id": s["config"]}]:
                raise Violation(f"authorization_details is not one openid_credential entry for mdl: {details}")
            if "scope" in form or "resource" in form:
                raise Violation("scope or resource beside authorization_details the server supports")
            s["result"]["authorization_asked_by"] = "authorization_details"
        if form.get("issuer_state") != s["issuer_state"]:
            raise Violation("issuer_state is not the offer's")
        return {k: form[k] for k in ("client_id", "redirect_uri", "state", "code_challenge")}

    def check_scope_request(self, s, form):
        """scope=only: the request names the configuration's scope and the issuer as resource."""
        scope = MDL if s["config"] == "mdl" else "eu.europa.ec.eudi.pid.1"
        if form.get("scope") != scope:
            raise Violation(f"scope is not the configuration's {scope}")
        if form.get("resource") != s["issuer"]:
            raise Violation("resource is not the Credential Issuer Identifier (RFC 8707)")
        s["result"]["authorization_asked_by"] = "scope+resource"

    def par(self, s, headers, form, url):
        s["result"]["par_requests"] += 1
        if not headers.get("Content-Type", "").startswith("application/x-www-form-urlencoded"):
            raise Violation("the pushed authorization request is not a form")
        if "request_uri" in form:
            raise Violation("request_uri in a pushed authorization request")
        if s["dpop"]:
            challenge = self.check_dpop(s, headers, url)
            if challenge:
                return challenge
        if s["scope"] == "only" and "authorization_details" in form:  # what such servers answer
            s["result"]["authorization_asked_by"] = "authorization_details"
            return 400, {"error": "server_error", "error_description": "Internal server error"}, {}
        request = self.check_authorization_request(s, form)
        request_uri = "urn:ietf:params:oauth:request_uri:" + secrets.token_urlsafe(12)
        s["requests"][request_uri] = request
        return 201, {"request_uri": request_uri, "expires_in": 60}, {"Cache-Control": "no-store"}

    def authorization_endpoint(self, s, query):
        """The browser's GET: a 302 back to the wallet with the code (the user 'agreed')."""
        s["result"]["authorization_requests"] += 1
        if s["par"]:
            if set(query) != {"client_id", "request_uri"}:
                raise Violation("with PAR the authorization request carries client_id and request_uri only")
            request = s["requests"].pop(query["request_uri"], None)
            if request is None:
                raise Violation("request_uri is unknown or used")
            if query["client_id"] != request["client_id"]:
                raise Violation("client_id differs from the pushed request's")
        else:
            request = self.check_authorization_request(s, query)
        code = secrets.token_urlsafe(16)
        s["authz"] = dict(request, code=code)
        s["result"]["redirect_uri"] = request["redirect_uri"]
        if s["redirect_error"] == "nostate":
            s["authz"] = None
            return request["redirect_uri"] + "?" + urllib.parse.urlencode(
                {"error": "server_error", "error_description": "The request could not be processed" + HOSTILE})
        location = request["redirect_uri"] + "?" + urllib.parse.urlencode(
            {"code": code, "state": request["state"], "iss": s["as_id"]})
        return location

    # -- checks

    def check_dpop(self, s, headers, url, access_token=None):
        """Returns None when the proof is good, or (status, body, headers) for a nonce challenge."""
        proof = headers.get("DPoP")
        if proof is None:
            raise Violation(f"no DPoP header at {url} although the server supports DPoP")
        if len(headers.get_all("DPoP") or []) != 1:
            raise Violation("more than one DPoP header")
        header, payload, signing_input, signature = parse_jws(proof)
        if header.get("typ") != "dpop+jwt":
            raise Violation("DPoP typ is not dpop+jwt")
        if header.get("alg") != "ES256":
            raise Violation("DPoP alg is not ES256")
        jwk = header.get("jwk")
        if not isinstance(jwk, dict):
            raise Violation("DPoP header has no jwk")
        verify_es256(jwk, signing_input, signature)
        if payload.get("htm") != "POST":
            raise Violation("DPoP htm is not POST")
        if payload.get("htu") != url:
            raise Violation(f"DPoP htu {payload.get('htu')} is not {url}")
        if not isinstance(payload.get("iat"), int) or abs(payload["iat"] - time.time()) > CLOCK_SKEW:
            raise Violation("DPoP iat is missing or off")
        jti = payload.get("jti")
        if not isinstance(jti, str) or len(jti) < 8:
            raise Violation("DPoP jti is missing or short")
        if jti in s["jtis"]:
            raise Violation("DPoP jti was used before")
        s["jtis"].add(jti)
        if access_token is not None:
            expected = b64url(hashlib.sha256(access_token.encode()).digest())
            if payload.get("ath") != expected:
                raise Violation("DPoP ath is not the hash of the access token")
            if thumbprint(jwk) != s["dpop_jkt"]:
                raise Violation("the DPoP key of a resource request is not the key the token was bound to")
        elif "ath" in payload:
            raise Violation("DPoP ath in a token request")
        if payload.get("nonce") != s["dpop_nonce"]:
            if "nonce" in payload and payload["nonce"] not in s["dpop_nonces_given"]:
                raise Violation("DPoP nonce is not one the server gave")
            s["result"]["dpop_challenges"] += 1
            s["dpop_nonces_given"].add(s["dpop_nonce"])
            if access_token is None:
                return 400, {"error": "use_dpop_nonce", "error_description": "a DPoP nonce is required"}, {
                    "DPoP-Nonce": s["dpop_nonce"]}
            return 401, {"error": "use_dpop_nonce"}, {
                "DPoP-Nonce": s["dpop_nonce"], "WWW-Authenticate": 'DPoP error="use_dpop_nonce"'}
        return None

    def authorize(self, s, headers, url):
        auth = headers.get("Authorization", "")
        scheme, _, token = auth.partition(" ")
        if token not in s["tokens"]:
            raise Violation("the access token is missing or unknown")
        want = "DPoP" if s["dpop"] else "Bearer"
        if scheme != want:
            raise Violation(f"Authorization scheme {scheme} is not {want}")
        if s["dpop"]:
            return token, self.check_dpop(s, headers, url, access_token=token)
        if headers.get("DPoP") is not None:
            raise Violation("a DPoP proof although the server does not support DPoP")
        return token, None

    def token(self, s, headers, form, url):
        s["result"]["token_requests"] += 1
        if not headers.get("Content-Type", "").startswith("application/x-www-form-urlencoded"):
            raise Violation("the token request is not a form")
        if s["dpop"]:
            challenge = self.check_dpop(s, headers, url)
            if challenge:
                return challenge
        elif headers.get("DPoP") is not None:
            raise Violation("a DPoP proof although the server does not support DPoP")
        if s["grant"] == "code":
            if form.get("grant_type") != "authorization_code":
                raise Violation("grant_type is not authorization_code")
            authz = s["authz"]
            if authz is None or form.get("code") != authz["code"]:
                raise Violation("the code is not the one the authorization endpoint gave")
            verifier = form.get("code_verifier", "")
            if not (43 <= len(verifier) <= 128):
                raise Violation("code_verifier length is outside 43...128")
            if b64url(hashlib.sha256(verifier.encode()).digest()) != authz["code_challenge"]:
                raise Violation("S256(code_verifier) is not the code_challenge (PKCE)")
            if form.get("redirect_uri") != authz["redirect_uri"]:
                raise Violation("redirect_uri differs from the authorization request's")
            if form.get("client_id") != authz["client_id"]:
                raise Violation("client_id differs from the authorization request's")
            s["result"]["pkce_checked"] = True
            s["client_id"] = authz["client_id"]
            s["authz"] = None  # one use
            return self.token_answer(s, headers)
        if form.get("grant_type") != PRE_AUTH:
            raise Violation("grant_type is not the pre-authorized code grant")
        if s["hostile_text"] == "error":
            s["result"]["token_errors"].append("hostile")
            return 400, {"error": "invalid_grant" + HOSTILE, "error_description": "refused" + HOSTILE}, {}
        if "tx_code" in form and not s["tx_code"]:
            raise Violation("tx_code sent although the offer did not ask for one")
        s["result"]["tx_code_sent"] = "tx_code" in form
        if form.get("pre-authorized_code") != s["code"] or s["code_used"]:
            s["result"]["token_errors"].append("invalid_grant")
            return 400, {"error": "invalid_grant", "error_description": "unknown or used pre-authorized code"}, {}
        if s["tx_code"] and form.get("tx_code") != s["tx_code"] and s["tx_code_error"] == "description":
            s["result"]["token_errors"].append("invalid_request")
            return 400, {"error": "invalid_request", "description": "invalid tx_code"}, {}
        if s["tx_code"] and form.get("tx_code") != s["tx_code"]:
            s["result"]["token_errors"].append("invalid_grant")
            return 400, {"error": "invalid_grant", "error_description": "the transaction code is wrong"}, {}
        s["code_used"] = True
        return self.token_answer(s, headers)

    def token_answer(self, s, headers):
        # A new DPoP nonce, not sent here: the credential endpoint challenges for it (RFC 9449
        # section 9, resource server nonces).
        s["dpop_nonce"] = secrets.token_urlsafe(12)
        token = secrets.token_urlsafe(24)
        s["tokens"][token] = True
        answer = {"access_token": token, "token_type": "DPoP" if s["dpop"] else "Bearer", "expires_in": 300}
        if s["dpop"]:
            s["dpop_jkt"] = thumbprint(json.loads(b64url_decode(headers.get("DPoP").split(".")[0]))["jwk"])
        if s["identifiers"]:
            answer["authorization_details"] = [{"type": "openid_credential", "credential_configuration_id": s["config"],
                                                "credential_identifiers": [s["config"] + "-identifier-1"]}]
        return 200, answer, {"Cache-Control": "no-store"}

    def nonce(self, s):
        s["result"]["nonce_requests"] += 1
        nonce = secrets.token_urlsafe(16)
        s["c_nonces"].add(nonce)
        return 200, {"c_nonce": nonce}, {"Cache-Control": "no-store"}

    def credential(self, s, headers, body, url):
        s["result"]["credential_requests"] += 1
        token, challenge = self.authorize(s, headers, url)
        if challenge:
            return challenge
        request, spec = self.decrypt_request(s, headers, body)
        if s["identifiers"]:
            if request.get("credential_identifier") != s["config"] + "-identifier-1" or "credential_configuration_id" in request:
                raise Violation("credential_identifier must be used when the token response gave identifiers")
            s["result"]["request_target"] = "identifier"
        else:
            if request.get("credential_configuration_id") != s["config"] or "credential_identifier" in request:
                raise Violation(f"credential_configuration_id must be {s['config']}")
            s["result"]["request_target"] = "configuration"
        if "proof" in request:
            raise Violation("proof (singular) is not OpenID4VCI 1.0: use proofs")
        proofs = request.get("proofs", {}).get("jwt")
        if not isinstance(proofs, list) or not proofs or set(request["proofs"]) != {"jwt"}:
            raise Violation("proofs.jwt must be a non-empty array")
        if len(proofs) > s["batch_size"]:
            raise Violation(f"{len(proofs)} proofs exceed batch_size {s['batch_size']}")
        keys = []
        for proof in proofs:
            header, payload, signing_input, signature = parse_jws(proof)
            if header.get("typ") != "openid4vci-proof+jwt":
                raise Violation("proof typ is not openid4vci-proof+jwt")
            if header.get("alg") != "ES256":
                raise Violation("proof alg is not ES256")
            if "kid" in header or "x5c" in header:
                raise Violation("a proof names its key more than once (jwk with kid or x5c)")
            jwk = header.get("jwk")
            if not isinstance(jwk, dict):
                raise Violation("proof header has no jwk")
            verify_es256(jwk, signing_input, signature)
            if payload.get("aud") != s["issuer"]:
                raise Violation("proof aud is not the Credential Issuer Identifier")
            if not isinstance(payload.get("iat"), int) or abs(payload["iat"] - time.time()) > CLOCK_SKEW:
                raise Violation("proof iat is missing or off")
            nonce = payload.get("nonce")
            if nonce not in s["c_nonces"]:
                raise Violation("proof nonce is not a c_nonce of this issuer")
            if s["grant"] == "code":
                if payload.get("iss") != s["client_id"]:
                    raise Violation("proof iss is not the client_id")
            elif "iss" in payload:
                raise Violation("proof iss in anonymous pre-authorized access")
            keys.append(jwk)
            s["result"]["proofs"] += 1
        for proof in proofs:
            s["used_nonces"].add(parse_jws(proof)[1]["nonce"])
        if len({thumbprint(k) for k in keys}) != len(keys):
            raise Violation("two proofs of one request prove the same key")
        if s["deferred"]:
            s["transaction_id"] = secrets.token_urlsafe(12)
            s["deferred_keys"] = keys
            s["first_spec"] = spec
            return self.encrypted(
                s, spec, 202, {"transaction_id": s["transaction_id"], "interval": 1}, {"Cache-Control": "no-store"})
        return self.encrypted(s, spec, *self.issue(s, keys))

    def deferred(self, s, headers, body, url):
        token, challenge = self.authorize(s, headers, url)
        if challenge:
            return challenge
        request, spec = self.decrypt_request(s, headers, body)
        if set(request) - {"credential_response_encryption"} != {"transaction_id"}:
            raise Violation("the deferred credential request carries more than transaction_id")
        if s["transaction_id"] is None or request["transaction_id"] != s["transaction_id"]:
            return 400, {"error": "invalid_transaction_id"}, {}
        s["result"]["deferred_polls"] += 1
        if s["result"]["deferred_polls"] <= s["deferred"]:
            return self.encrypted(
                s, spec, 202, {"transaction_id": s["transaction_id"], "interval": 1}, {"Cache-Control": "no-store"})
        s["transaction_id"] = None
        if s["deferred_key"] == "first" and spec is not None:
            spec = s["first_spec"]
        elif s["deferred_key"] == "other" and spec is not None:
            other = ECKey.generate_key("P-256", private=True).as_dict(private=False)
            spec = {**spec, "jwk": {**other, "alg": "ECDH-ES", "use": "enc"}}
        return self.encrypted(s, spec, *self.issue(s, s["deferred_keys"]))

    def issue(self, s, keys):
        if s["config"] == "pid":
            signer = make_sd_jwt_signer("Untrusted CA") if s["signer"] == "untrusted" else self.sd_jwt_signer
            status = s["status"]
            credentials = [{"credential": issue_pid(signer, s["issuer"], k, status and (status[0], status[1] + i))}
                           for i, k in enumerate(keys)]
        else:
            if s["signer"] == "untrusted":
                ds_key, ds_cert = make_untrusted_signer()
            else:
                ds_key, ds_cert = self.ds_key, self.ds_cert
            credentials = [{"credential": b64url(issue_mdl(ds_key, ds_cert, k))} for k in keys]
        s["result"]["issued"] += len(credentials)
        answer = {"credentials": credentials}
        if s["notify"]:
            answer["notification_id"] = s["notification_id"]
        return 200, answer, {"Cache-Control": "no-store"}

    def notification(self, s, headers, body, url):
        token, challenge = self.authorize(s, headers, url)
        if challenge:
            return challenge
        request = json.loads(body)
        if request.get("notification_id") != s["notification_id"]:
            raise Violation("notification_id is not the one issued")
        if request.get("event") not in ("credential_accepted", "credential_failure", "credential_deleted"):
            raise Violation("unknown notification event")
        description = request.get("event_description")
        if description is not None and not (isinstance(description, str) and description.isascii()):
            raise Violation("event_description must be ASCII")
        s["result"]["notifications"].append(request["event"])
        return 204, None, {}


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    issuer: Issuer = None

    def log_message(self, fmt, *args):
        pass

    def reply(self, status, value, extra=None):
        if isinstance(value, tuple) and value[0] == "jwt":
            body, ctype = value[1].encode(), "application/jwt"
        else:
            body, ctype = (b"" if value is None else json.dumps(value).encode()), "application/json"
        self.send_response(status)
        if value is not None:
            self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        for k, v in (extra or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(body)

    def session(self, sid):
        return self.issuer.sessions.get(sid)

    def do_GET(self):
        path = urllib.parse.urlparse(self.path).path
        prefix_cred = "/.well-known/openid-credential-issuer/s/"
        prefix_as = "/.well-known/oauth-authorization-server/s/"
        if path.startswith(prefix_cred):
            s = self.session(path[len(prefix_cred):])
            if not s:
                return self.reply(404, {"error": "not found"})
            accept = self.headers.get("Accept", "")
            s["result"]["metadata_accept"] = accept
            if s["signed_metadata"] and "application/jwt" in accept:
                return self.reply(200, ("jwt", self.issuer.signed_issuer_metadata(s)))
            if s["trickle"] == "metadata":
                return self.trickle(json.dumps(self.issuer.issuer_metadata(s)).encode())
            return self.reply(200, self.issuer.issuer_metadata(s))
        if path.startswith(prefix_as):
            sid, _, tail = path[len(prefix_as):].partition("/")
            s = self.session(sid)
            if s and s["as_metadata"] == "oauth" and s["as_id"] == f"{s['issuer']}/{tail}".rstrip("/"):
                return self.reply(200, self.issuer.as_metadata(s))
            return self.reply(404, {"error": "not found"})
        if path.startswith("/s/") and path.endswith("/.well-known/openid-configuration"):
            s = self.session(path.split("/")[2])
            if s and s["as_metadata"] == "openid":
                return self.reply(200, self.issuer.as_metadata(s))
            return self.reply(404, {"error": "not found"})
        if path.startswith("/s/") and path.endswith("/authorize"):
            s = self.session(path.split("/")[2])
            if not s:
                return self.reply(404, {"error": "not found"})
            query = dict(urllib.parse.parse_qsl(urllib.parse.urlparse(self.path).query, keep_blank_values=True))
            try:
                with self.issuer.lock:
                    location = self.issuer.authorization_endpoint(s, query)
            except Violation as v:
                s["result"]["violations"].append(f"authorize: {v}")
                return self.reply(400, {"error": "invalid_request", "error_description": str(v)})
            return self.reply(302, None, {"Location": location})
        if path.startswith("/.well-known/jwt-vc-issuer/jv/"):
            metadata = self.issuer.jwt_vc_issuer_metadata(path.rsplit("/", 1)[1])
            return self.reply(200, metadata) if metadata else self.reply(404, {"error": "not found"})
        if path.startswith("/jv/") and path.endswith("/jwks"):
            p = self.issuer.published.get(path.split("/")[2])
            return self.reply(200, {"keys": [p["jwk"]]}) if p else self.reply(404, {"error": "not found"})
        if path.startswith("/offer/"):
            s = self.session(path.rsplit("/", 1)[1])
            if not s:
                return self.reply(404, {"error": "not found"})
            s["result"]["offer_fetches"] += 1
            if len(s["offer"]["credential_configuration_ids"]) > 1000:  # many_ids: compact, under 1 MiB
                body = json.dumps(s["offer"], separators=(",", ":")).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
                return None
            return self.reply(200, s["offer"])
        if path.startswith("/result/"):
            s = self.session(path.rsplit("/", 1)[1])
            return self.reply(200, s["result"]) if s else self.reply(404, {"error": "not found"})
        return self.reply(404, {"error": "not found"})

    def do_POST(self):
        path = urllib.parse.urlparse(self.path).path
        length = int(self.headers.get("Content-Length", "0"))
        body = self.rfile.read(length)
        if path == "/start":
            return self.reply(200, self.issuer.start(dict(urllib.parse.parse_qsl(body.decode()))))
        if path == "/published-sd-jwt":
            return self.reply(200, self.issuer.published_sd_jwt(dict(urllib.parse.parse_qsl(body.decode()))))
        parts = path.split("/")
        if len(parts) != 4 or parts[1] != "s":
            return self.reply(404, {"error": "not found"})
        s = self.session(parts[2])
        if not s:
            return self.reply(404, {"error": "not found"})
        url = s["endpoint_urls"].get(parts[3], f"{s['issuer']}/{parts[3]}")
        try:
            with self.issuer.lock:
                if parts[3] == "token":
                    s["result"]["token_port"] = self.server.server_address[1]
                    form = dict(urllib.parse.parse_qsl(body.decode(), keep_blank_values=True))
                    status, value, extra = self.issuer.token(s, self.headers, form, url)
                elif parts[3] == "par":
                    form = dict(urllib.parse.parse_qsl(body.decode(), keep_blank_values=True))
                    status, value, extra = self.issuer.par(s, self.headers, form, url)
                elif parts[3] == "nonce":
                    status, value, extra = self.issuer.nonce(s)
                elif parts[3] == "credential":
                    status, value, extra = self.issuer.credential(s, self.headers, body, url)
                elif parts[3] == "deferred":
                    status, value, extra = self.issuer.deferred(s, self.headers, body, url)
                elif parts[3] == "notification":
                    status, value, extra = self.issuer.notification(s, self.headers, body, url)
                else:
                    return self.reply(404, {"error": "not found"})
        except Violation as v:
            s["result"]["violations"].append(f"{parts[3]}: {v}")
            return self.reply(400, {"error": "invalid_request", "error_description": str(v)})
        except Exception as e:  # a malformed request is a violation too
            s["result"]["violations"].append(f"{parts[3]}: {type(e).__name__}: {e}")
            return self.reply(400, {"error": "invalid_request", "error_description": "malformed request"})
        if s["trickle"] == "credential" and parts[3] == "credential" and status < 300:
            return self.trickle(json.dumps(value).encode() if not isinstance(value, tuple) else value[1].encode())
        return self.reply(status, value, extra)

    def trickle(self, body: bytes):
        trickle(self, body, "application/json")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dir", required=True)
    parser.add_argument("--ds-key", required=True, help="PEM private key of the trusted document signer")
    parser.add_argument("--ds-cert", required=True, help="PEM certificate of the trusted document signer")
    parser.add_argument("--lifetime", type=float, default=300)
    parser.add_argument("--ready-file")
    parser.add_argument("--host", default=None,
                        help="listen on this address and name it in the issuer identifiers (default 127.0.0.1, localhost)")
    args = parser.parse_args()

    ca_path, tls_path, tls_key_path, _, _ = make_pki(args.dir, [args.host] if args.host else [])
    with open(args.ds_key, "rb") as f:
        ds_key = serialization.load_pem_private_key(f.read(), None)
    with open(args.ds_cert, "rb") as f:
        ds_cert = x509.load_pem_x509_certificate(f.read())

    context = tls_context(tls_path, tls_key_path)
    server = https_server(args.host or "127.0.0.1", Handler, context)
    port = server.server_address[1]
    # A second port of the same issuer (token_at=second).
    second = https_server(args.host or "127.0.0.1", Handler, context)
    port2 = second.server_address[1]
    threading.Thread(target=second.serve_forever, daemon=True).start()
    sd_jwt_signer = make_sd_jwt_signer(status_signer_dir=args.dir)
    with open(os.path.join(args.dir, "sd-jwt-ca.pem"), "wb") as f:
        f.write(sd_jwt_signer[0].public_bytes(serialization.Encoding.PEM))
    Handler.issuer = Issuer(port, ds_key, ds_cert, sd_jwt_signer, args.host or "localhost", port2)
    exit_with_the_test(args.lifetime)
    print(announce({"port": port, "port2": port2, "ca": ca_path}, args.ready_file), flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
