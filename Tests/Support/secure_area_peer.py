"""An independent peer for the secure-area contract tests (Python cryptography).

    secure_area_peer.py verify SPKI_HEX ALG MESSAGE_HEX SIGNATURE_HEX
        exit 0 when SIGNATURE (COSE form: raw r||s, or EdDSA bytes) is valid, 1 otherwise
    secure_area_peer.py ecdh SPKI_HEX
        prints a fresh peer key's SPKI and the ECDH shared secret with SPKI, hex, one a line
"""
import sys

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, ed25519, ed448
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature

HASHES = {"ES256": hashes.SHA256, "ES384": hashes.SHA384, "ES512": hashes.SHA512}


def verify(spki, alg, message, signature):
    key = serialization.load_der_public_key(spki)
    try:
        if alg == "EdDSA":
            if not isinstance(key, (ed25519.Ed25519PublicKey, ed448.Ed448PublicKey)):
                return 1
            key.verify(signature, message)
        else:
            half = len(signature) // 2
            der = encode_dss_signature(int.from_bytes(signature[:half], "big"), int.from_bytes(signature[half:], "big"))
            key.verify(der, message, ec.ECDSA(HASHES[alg]()))
    except InvalidSignature:
        return 1
    return 0


def ecdh(spki):
    key = serialization.load_der_public_key(spki)
    peer = ec.generate_private_key(key.curve)
    shared = peer.exchange(ec.ECDH(), key)
    peer_spki = peer.public_key().public_bytes(
        serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    print(peer_spki.hex())
    print(shared.hex())
    return 0


def main(argv):
    if argv[1] == "verify":
        return verify(bytes.fromhex(argv[2]), argv[3], bytes.fromhex(argv[4]), bytes.fromhex(argv[5]))
    if argv[1] == "ecdh":
        return ecdh(bytes.fromhex(argv[2]))
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
