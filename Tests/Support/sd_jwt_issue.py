#!/usr/bin/env python3
"""Issues SD-JWT VCs with the IETF reference library (PyPI `sd-jwt`) for the SD-JWT tier: a test
CA and an issuer certificate (PyPI `cryptography`), the issuer's x5c chain in the JWT header, and
variants a holder must refuse.

Usage: sd_jwt_issue.py OUT_DIR
Writes to OUT_DIR: ca.pem, other-ca.pem, holder.pem (the holder's private key, PKCS#8),
pid.sd-jwt (flat, recursive and array Disclosures, decoys), and the refused variants
changed-disclosure.sd-jwt, dropped-digest.sd-jwt, wrong-holder.sd-jwt, expired.sd-jwt,
with-kb.sd-jwt (a presentation, not an issuance), wrong-typ.sd-jwt; values.txt lists claim
values that must never appear in logs or listings.
"""
import base64
import datetime
import hashlib
import json
import os
import sys

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID
from jwcrypto.jwk import JWK
from sd_jwt.common import SDObj
from sd_jwt.holder import SDJWTHolder
from sd_jwt.issuer import SDJWTIssuer

from testpeers import b64url, b64url_decode

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
now = datetime.datetime.now(datetime.timezone.utc)


def certificate(subject, issuer_name, public_key, signing_key, ca):
    builder = (x509.CertificateBuilder().subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, subject)]))
               .issuer_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, issuer_name)]))
               .public_key(public_key).serial_number(x509.random_serial_number())
               .not_valid_before(now - datetime.timedelta(days=1)).not_valid_after(now + datetime.timedelta(days=365))
               .add_extension(x509.BasicConstraints(ca=ca, path_length=0 if ca else None), critical=True))
    if ca:
        builder = builder.add_extension(x509.KeyUsage(False, False, False, False, False, True, True, False, False), True)
    else:
        builder = builder.add_extension(x509.KeyUsage(True, False, False, False, False, False, False, False, False), True)
    return builder.sign(signing_key, hashes.SHA256())


ca_key = ec.generate_private_key(ec.SECP256R1())
ca = certificate("Test SD-JWT VC CA", "Test SD-JWT VC CA", ca_key.public_key(), ca_key, True)
other_key = ec.generate_private_key(ec.SECP256R1())
other_ca = certificate("Another CA", "Another CA", other_key.public_key(), other_key, True)
issuer_ec = ec.generate_private_key(ec.SECP256R1())
issuer_cert = certificate("Test PID Issuer", "Test SD-JWT VC CA", issuer_ec.public_key(), ca_key, False)
issuer_key = JWK.from_pem(issuer_ec.private_bytes(
    serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()))
x5c = [base64.b64encode(issuer_cert.public_bytes(serialization.Encoding.DER)).decode()]

holder_ec = ec.generate_private_key(ec.SECP256R1())
holder_pem = holder_ec.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                     serialization.NoEncryption())
holder_key = JWK.from_pem(holder_pem)
stranger_key = JWK.generate(kty="EC", crv="P-256")


def write(name, data):
    mode = "wb" if isinstance(data, bytes) else "w"
    with open(os.path.join(out, name), mode) as f:
        f.write(data)


def claims(exp_days=365):
    return {
        "iss": "https://pid-issuer.example",
        "vct": "urn:eudi:pid:1",
        "iat": int(now.timestamp()),
        "exp": int((now + datetime.timedelta(days=exp_days)).timestamp()),
        SDObj("given_name"): "Erika",
        SDObj("family_name"): "Mustermann",
        SDObj("birthdate"): "1964-08-12",
        SDObj("address"): {SDObj("street_address"): "Heidestrasse 17", SDObj("locality"): "Koeln", "country": "DE"},
        "nationalities": [SDObj("DE"), SDObj("FR")],
    }


def issue(user_claims, holder=holder_key, typ="dc+sd-jwt"):
    return SDJWTIssuer(user_claims, issuer_key, holder, sign_alg="ES256", add_decoy_claims=True,
                       extra_header_parameters={"typ": typ, "x5c": x5c}).sd_jwt_issuance



pid = issue(claims())
write("pid.sd-jwt", pid + "\n")
write("ca.pem", ca.public_bytes(serialization.Encoding.PEM))
write("other-ca.pem", other_ca.public_bytes(serialization.Encoding.PEM))
write("holder.pem", holder_pem)

parts = pid.split("~")
# A Disclosure changed after issuance: the same salt and claim, another value.
index = next(i for i, d in enumerate(parts[1:-1], 1) if json.loads(b64url_decode(d))[1:2] == ["birthdate"])
salt = json.loads(b64url_decode(parts[index]))[0]
changed = list(parts)
changed[index] = b64url(json.dumps([salt, "birthdate", "2010-01-01"]).encode())
write("changed-disclosure.sd-jwt", "~".join(changed) + "\n")
# A digest dropped from the signed payload (re-signed by the issuer, so only the Disclosure check catches it).
header_b64, payload_b64, _ = parts[0].split(".")
payload = json.loads(b64url_decode(payload_b64))
digest = b64url(hashlib.sha256(parts[index].encode()).digest())
payload["_sd"].remove(digest)
from jwcrypto.jws import JWS  # noqa: E402
jws = JWS(payload=json.dumps(payload))
jws.add_signature(issuer_key, alg="ES256", protected=json.dumps({"alg": "ES256", "typ": "dc+sd-jwt", "x5c": x5c}))
write("dropped-digest.sd-jwt", "~".join([jws.serialize(compact=True)] + parts[1:]) + "\n")
write("wrong-holder.sd-jwt", issue(claims(), holder=stranger_key) + "\n")
write("expired.sd-jwt", issue(claims(exp_days=-1)) + "\n")
write("wrong-typ.sd-jwt", issue(claims(), typ="JWT") + "\n")
holder = SDJWTHolder(pid)
holder.create_presentation({"given_name": True}, nonce="n", aud="a", holder_key=holder_key, sign_alg="ES256")
write("with-kb.sd-jwt", holder.sd_jwt_presentation + "\n")
write("values.txt", "Erika\nMustermann\n1964-08-12\nHeidestrasse\nKoeln\n")
print(f"issued pid.sd-jwt with {len(parts) - 2} disclosures and 6 refused variants in {out}")
