#!/usr/bin/env python3
"""Writes seed inputs for every fuzz target into DIR/TARGET/ (standard library only): the
standard's vectors for the ISO 18013-5 messages, the same messages cut into BLE chunks and
L2CAP frames, JOSE, DCQL and authorization-request examples, and the repository's TOML files.
Usage: fuzz-seeds.py DIR"""
import base64
import json
import pathlib
import struct
import sys

out = pathlib.Path(sys.argv[1])


def seed(target, name, data):
    d = out / target
    d.mkdir(parents=True, exist_ok=True)
    (d / f"seed-{name}").write_bytes(data if isinstance(data, bytes) else data.encode())


def b64(data):
    return base64.urlsafe_b64encode(data if isinstance(data, bytes) else data.encode()).rstrip(b"=").decode()


vectors = {}
for name in ["iso18013-5-annex-d.json", "oid4vp-mdoc.json", "iso18013-7.json"]:
    for key, entry in json.load(open(f"Fixtures/vectors/{name}")).items():
        if isinstance(entry, dict) and isinstance(entry.get("hex"), str):
            vectors[key] = bytes.fromhex(entry["hex"])
for key, data in vectors.items():
    seed("cbor", key, data)
for key in ["SessionEstablishment", "SessionData", "DeviceRequest", "DeviceEngagement", "DeviceResponse"]:
    for k, data in vectors.items():
        if k.startswith(key):
            target = {"SessionEstablishment": "session-establishment", "SessionData": "session-data"}.get(
                key, "device-request")
            seed(target, k, data)
seed("cbor", "mdl", open("Fixtures/mdl.cbor", "rb").read())


def pieces(stream, size):
    return b"".join(bytes([len(stream[i:i + size]) - 1]) + stream[i:i + size] for i in range(0, len(stream), size))


for k in ["SessionEstablishment", "SessionData"]:
    message = next((d for key, d in vectors.items() if key.startswith(k)), b"\xa0")
    chunks = b""
    for i in range(0, len(message), 19):
        part = message[i:i + 19]
        chunks += bytes([len(part)]) + (b"\x01" if i + 19 < len(message) else b"\x00") + part
    seed("ble-chunks", k, chunks)
    framed = struct.pack(">I", len(message)) + message
    seed("l2cap-framing", k, pieces(framed + struct.pack(">I", 0), 17))

jwk = {"kty": "EC", "crv": "P-256", "x": b64(b"\x01" * 32), "y": b64(b"\x02" * 32), "kid": "k1", "use": "enc"}
seed("jose", "jwk", json.dumps(jwk))
seed("jose", "jwk-okp", json.dumps({"kty": "OKP", "crv": "Ed25519", "x": b64(b"\x03" * 32)}))
header = {"alg": "ES256", "typ": "oauth-authz-req+jwt", "x5c": [base64.b64encode(b"\x30\x03\x02\x01\x01").decode()]}
seed("jose", "jws", b64(json.dumps(header)) + "." + b64(json.dumps({"client_id": "x", "nonce": "n"})) + "." + b64(b"\x00" * 64))
jwe_header = {"alg": "ECDH-ES", "enc": "A128GCM", "epk": jwk, "apu": b64("u"), "apv": b64("v")}
seed("jose", "jwe", ".".join([b64(json.dumps(jwe_header)), "", b64(b"\x00" * 12), b64(b"ciphertext"), b64(b"\x00" * 16)]))

dcql = {"credentials": [{"id": "mdl", "format": "mso_mdoc", "meta": {"doctype_value": "org.iso.18013.5.1.mDL"},
                         "claims": [{"id": "a", "path": ["org.iso.18013.5.1", "family_name"], "intent_to_retain": False},
                                    {"path": ["org.iso.18013.5.1", "age_over_18"], "values": [True]}],
                         "claim_sets": [["a"]]}],
        "credential_sets": [{"options": [["mdl"]], "required": True}]}
seed("dcql", "mdl", json.dumps(dcql))
params = {"response_type": "vp_token", "client_id": "x509_san_dns:verifier.example.org", "nonce": "n-0S6_WzA2Mj",
          "response_mode": "direct_post.jwt", "response_uri": "https://verifier.example.org/post", "state": "s",
          "dcql_query": dcql, "client_metadata": {"jwks": {"keys": [jwk]},
                                                  "vp_formats_supported": {"mso_mdoc": {"alg": ["ES256"]}},
                                                  "encrypted_response_enc_values_supported": ["A128GCM"]}}
seed("authorization-request", "params", json.dumps(params))
seed("authorization-request", "url", "openid4vp://?client_id=x509_san_dns%3Averifier.example.org"
     "&request_uri=https%3A%2F%2Fverifier.example.org%2Freq%2F1&request_uri_method=post")
seed("authorization-request", "url-by-value", "mdoc-openid4vp://?response_type=vp_token&client_id=redirect_uri%3Ahttps%3A%2F%2Fv.example%2Fcb"
     "&dcql_query=" + json.dumps(dcql).replace(" ", ""))

seed("toml", "kiosk-policy", open("docs/kiosk-policy.toml").read())
seed("toml", "verifiers", '[[verifier]]\nclient_id = "shop"\nname = "Shop"\nresponse_uris = ["https://shop.example/post"]\n'
     'trust_anchors = ["ca.pem"]\n')
seed("toml", "inline", "rule = [{ reader = 'any', doctype = 'x', allow = ['ns:a'] }]\n")

# VICALs: the smallest public one (../shared beside the project, when it is there) and a
# minimal unsigned payload of our own.
vical_dir = pathlib.Path("../shared/vectors/trust-lists/vical")
if (vical_dir / "aamva-vical-2024-09-24-issue-616575.cbor").exists():
    seed("vical", "aamva-2024", (vical_dir / "aamva-vical-2024-09-24-issue-616575.cbor").read_bytes())
# {"version": "1.0", "vicalProvider": "P", "date": 0("2021-05-01T00:00:00Z"), "vicalIssueID": 1,
#  "certificateInfos": [{"certificate": h'30', "serialNumber": 2(h'01'), "ski": h'01', "docType": ["d"]}]}
seed("vical", "payload", bytes.fromhex(
    "a56776657273696f6e63312e306d766963616c50726f766964657261506464617465c074323032312d30352d30315430303a30303a"
    "30305a6c766963616c4973737565494401706365727469666963617465496e666f7381a46b636572746966696361746541306c7365"
    "7269616c4e756d626572c2410163736b69410167646f6354797065816164"))

# Status List Tokens (draft-ietf-oauth-status-list examples) and compressed lists (first byte: bits).
status_dir = pathlib.Path("Fixtures/vectors/status-list")
seed("status-list", "cwt", (status_dir / "status_list_cwt.cbor").read_bytes())
seed("status-list", "jwt", (status_dir / "status_list_jwt.jwt").read_bytes())
for entry in json.load(open(status_dir / "draft-20-vectors.json"))["status_lists"]:
    name = entry["name"].replace(" ", "-")
    if entry.get("compressed_hex"):
        bits_choice = {1: 0, 2: 1, 4: 2, 8: 3}[entry["bits"]]
        seed("status-list", name, bytes([bits_choice]) + bytes.fromhex(entry["compressed_hex"]))
    seed("status-list", name + "-cbor", bytes.fromhex(entry["cbor_hex"]))
