import CBOR
import ISO18013
import MdocCrypto

/// A VICAL whose signature, signer and dates were checked: its IACAs, those it can use
/// and those it skips (a key this reader cannot verify with does not refuse the whole list).
public struct VerifiedVICAL: Sendable {
    public let vical: VICAL
    public let entries: [IACAEntry]

    init(vical: VICAL) {
        self.vical = vical
        entries = Self.entries(of: vical)
    }

    /// Every certificateInfo of `vical`, read but not trusted (for showing a list).
    public static func entries(of vical: VICAL) -> [IACAEntry] {
        vical.certificateInfos.map(IACAEntry.init)
    }

    /// Where the trust comes from, for messages: "VICAL <provider> <date>".
    public var source: String { "VICAL \(vical.vicalProvider) \(RFC3339.string(from: vical.date))" }

    /// The usable IACAs as trust anchors, each for the docTypes the list names for it.
    public var scopedAnchors: [IssuerTrust.ScopedAnchor] {
        entries.compactMap { entry in
            entry.certificate.map {
                IssuerTrust.ScopedAnchor(certificate: $0, docTypes: Set(entry.info.docType), source: source)
            }
        }
    }
}

/// One certificateInfo and whether it can serve as an anchor.
public struct IACAEntry: Sendable {
    public let info: CertificateInfo
    /// The parsed IACA, nil when skipped.
    public let certificate: Certificate?
    /// Why it is skipped, e.g. "RSA key"; nil when usable.
    public let skipped: String?

    /// DER of the rsaEncryption algorithm identifier (1.2.840.113549.1.1.1).
    private static let rsaEncryption: [UInt8] = [0x06, 0x09, 0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x01, 0x01]

    init(_ info: CertificateInfo) {
        self.info = info
        let parsed: Certificate
        do {
            parsed = try Certificate(der: info.certificate)
        } catch {
            (certificate, skipped) = (nil, "certificate does not parse")
            return
        }
        do {
            let key = try parsed.publicKey
            guard key.curve.supportsSigning else {
                (certificate, skipped) = (nil, "\(key.curve.rawValue) key cannot sign")
                return
            }
            (certificate, skipped) = (parsed, nil)
        } catch {
            let rsa = Self.contains(info.certificate, Self.rsaEncryption)
            (certificate, skipped) = (nil, rsa ? "RSA key" : "unsupported public key")
        }
    }

    private static func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        guard haystack.count >= needle.count else { return false }
        return (0...(haystack.count - needle.count)).contains {
            haystack[$0..<($0 + needle.count)].elementsEqual(needle)
        }
    }
}
