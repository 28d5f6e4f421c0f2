#!/usr/bin/env python3
"""Remakes Fixtures/sd-jwt/: SD-JWTs made by an independent implementation (the IETF reference
library, PyPI `sd-jwt`), which the SDJWT tests read back.

Usage: .venv-test/bin/python3 Tests/Support/make-sd-jwt-fixtures.py [Fixtures/sd-jwt]

Writes, with fresh test keys (published on purpose, never trust them outside tests):
  issuer.jwk.json, holder.jwk.json   P-256 private JWKs
  pid.sd-jwt                         issued SD-JWT VC (typ dc+sd-jwt): flat, recursive (nested)
                                     and array-element Disclosures, decoy digests
  pid.claims.json                    the claims with every Disclosure in place
  pid.presentation.sd-jwt            the library's holder presentation of given_name,
                                     address.locality and nationalities[1], with a Key Binding JWT
  pid.presentation.json              that presentation's aud and nonce and the claims a verifier
                                     sees, as the library's verifier read them
"""
import json
import os
import sys

from jwcrypto.jwk import JWK
from sd_jwt.common import SDObj
from sd_jwt.holder import SDJWTHolder
from sd_jwt.issuer import SDJWTIssuer
from sd_jwt.verifier import SDJWTVerifier

out = sys.argv[1] if len(sys.argv) > 1 else "Fixtures/sd-jwt"
os.makedirs(out, exist_ok=True)
issuer_key = JWK.generate(kty="EC", crv="P-256")
holder_key = JWK.generate(kty="EC", crv="P-256")

claims = {
    "iss": "https://pid-issuer.example",
    "vct": "urn:eudi:pid:1",
    "iat": 1767225600,
    "exp": 2082758400,
    SDObj("given_name"): "Erika",
    SDObj("family_name"): "Mustermann",
    SDObj("birthdate"): "1964-08-12",
    SDObj("address"): {
        SDObj("street_address"): "Heidestraße 17",
        SDObj("locality"): "Köln",
        "country": "DE",
    },
    "nationalities": [SDObj("DE"), SDObj("FR")],
    SDObj("age_equal_or_over"): {SDObj("18"): True, SDObj("65"): False},
}
issuer = SDJWTIssuer(
    claims, issuer_key, holder_key, sign_alg="ES256", add_decoy_claims=True,
    extra_header_parameters={"typ": "dc+sd-jwt"})
issued = issuer.sd_jwt_issuance


def plain(value):
    if isinstance(value, dict):
        return {(k.value if isinstance(k, SDObj) else k): plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [plain(v) for v in value]
    return value.value if isinstance(value, SDObj) else value


expected = plain(claims)
expected["cnf"] = {"jwk": holder_key.export_public(as_dict=True)}
full = SDJWTVerifier(issued, lambda iss, header: issuer_key).get_verified_payload()
assert full == expected, "the library's own reading differs from the claims"

aud, nonce = "x509_san_dns:verifier.example", "fixture-nonce-3f2a"
holder = SDJWTHolder(issued)
holder.create_presentation(
    {"given_name": True, "address": {"locality": True}, "nationalities": [False, True]},
    nonce=nonce, aud=aud, holder_key=holder_key, sign_alg="ES256")
presentation = holder.sd_jwt_presentation
seen = SDJWTVerifier(
    presentation, lambda iss, header: issuer_key, expected_aud=aud, expected_nonce=nonce).get_verified_payload()


def write(name, text):
    with open(os.path.join(out, name), "w", encoding="utf-8") as f:
        f.write(text)


write("issuer.jwk.json", issuer_key.export_private() + "\n")
write("holder.jwk.json", holder_key.export_private() + "\n")
write("pid.sd-jwt", issued + "\n")
write("pid.claims.json", json.dumps(expected, ensure_ascii=False, indent=1, sort_keys=True) + "\n")
write("pid.presentation.sd-jwt", presentation + "\n")
write("pid.presentation.json", json.dumps(
    {"aud": aud, "nonce": nonce, "claims": seen}, ensure_ascii=False, indent=1, sort_keys=True) + "\n")
print(f"sd-jwt fixtures written to {out}: {len(issued.split('~')) - 2} disclosures issued, "
      f"{len(presentation.split('~')) - 2} presented")
