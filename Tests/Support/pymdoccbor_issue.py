"""Issues a test mDL with pymdoccbor (an independent implementation) for interop tests.

Usage: pymdoccbor_issue.py OUTDIR
Writes: OUTDIR/mdoc.cbor (MdocCborIssuer's DeviceResponse-shaped container),
OUTDIR/iaca.pem (the root the document signer chains to), OUTDIR/device-key.pem (PKCS#8).
Test data only: every key is fresh and fictional.
"""
import base64
import datetime
import pathlib
import sys

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID, ObjectIdentifier
from pymdoccbor.mdoc.issuer import MdocCborIssuer

out = pathlib.Path(sys.argv[1])
out.mkdir(parents=True, exist_ok=True)
now = datetime.datetime.now(datetime.timezone.utc)


def name(cn):
    return x509.Name([x509.NameAttribute(NameOID.COUNTRY_NAME, "UT"), x509.NameAttribute(NameOID.COMMON_NAME, cn)])


iaca_key = ec.generate_private_key(ec.SECP256R1())
iaca = (
    x509.CertificateBuilder().subject_name(name("pymdoccbor test IACA")).issuer_name(name("pymdoccbor test IACA"))
    .public_key(iaca_key.public_key()).serial_number(x509.random_serial_number())
    .not_valid_before(now - datetime.timedelta(days=1)).not_valid_after(now + datetime.timedelta(days=3650))
    .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
    .add_extension(x509.KeyUsage(False, False, False, False, False, True, True, False, False), critical=True)
    .sign(iaca_key, hashes.SHA256())
)
ds_key = ec.generate_private_key(ec.SECP256R1())
ds = (
    x509.CertificateBuilder().subject_name(name("pymdoccbor test DS")).issuer_name(iaca.subject)
    .public_key(ds_key.public_key()).serial_number(x509.random_serial_number())
    .not_valid_before(now - datetime.timedelta(days=1)).not_valid_after(now + datetime.timedelta(days=365))
    .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
    .add_extension(x509.KeyUsage(True, False, False, False, False, False, False, False, False), critical=True)
    .add_extension(x509.ExtendedKeyUsage([ObjectIdentifier("1.0.18013.5.1.2")]), critical=True)
    .sign(iaca_key, hashes.SHA256())
)
device_key = ec.generate_private_key(ec.SECP256R1())
device_public_pem = device_key.public_key().public_bytes(
    serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)

issuer = MdocCborIssuer(
    private_key={"KTY": "EC2", "CURVE": "P_256", "ALG": "ES256",
                 "D": ds_key.private_numbers().private_value.to_bytes(32, "big"), "KID": b"ds"},
    alg="ES256",
)
ns = "org.iso.18013.5.1"
issuer.new(
    data={ns: {
        "family_name": "Mustermann", "given_name": "Erika", "birth_date": "1971-09-01",
        "issue_date": "2024-01-01", "expiry_date": "2034-01-01", "issuing_country": "UT",
        "issuing_authority": "Utopia DMV", "document_number": "PY123456", "age_over_18": True,
        "portrait": b"\xff\xd8\xff\xe0" + bytes(60) + b"\xff\xd9",
        "driving_privileges": [{"vehicle_category_code": "B", "issue_date": "2024-01-01", "expiry_date": "2034-01-01"}],
        "un_distinguishing_sign": "UT",
    }},
    doctype="org.iso.18013.5.1.mDL",
    validity={"issuance_date": now.strftime("%Y-%m-%d"), "expiry_date": (now + datetime.timedelta(days=365)).strftime("%Y-%m-%d")},
    devicekeyinfo=base64.urlsafe_b64encode(device_public_pem).decode(),
    x509_chain=[ds.public_bytes(serialization.Encoding.DER)],
)
(out / "mdoc.cbor").write_bytes(issuer.dump())
(out / "iaca.pem").write_bytes(iaca.public_bytes(serialization.Encoding.PEM))
(out / "device-key.pem").write_bytes(device_key.private_bytes(
    serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()))
print(f"issued {out / 'mdoc.cbor'}")
