import CBOR
import COSE
import FoundationEssentials
import MdocCrypto

/// `MobileSecurityObject` (9.1.2.4): digests of every IssuerSignedItemBytes, the device key,
/// the doc type and the validity, signed by the issuer (issuerAuth payload, tag 24).
public struct MobileSecurityObject: Sendable, Hashable {
    public struct ValidityInfo: Sendable, Hashable {
        public var signed: Date
        public var validFrom: Date
        public var validUntil: Date
        public var expectedUpdate: Date?
        public init(signed: Date, validFrom: Date, validUntil: Date, expectedUpdate: Date? = nil) {
            self.signed = signed
            self.validFrom = validFrom
            self.validUntil = validUntil
            self.expectedUpdate = expectedUpdate
        }
    }

    public var version: String
    /// "SHA-256", "SHA-384" or "SHA-512".
    public var digestAlgorithm: String
    /// namespace => digestID => digest.
    public var valueDigests: [String: [UInt64: [UInt8]]]
    public var deviceKey: COSEKey
    /// keyAuthorizations, keyInfo: kept as they came.
    public var deviceKeyInfoOther: [CBORMapEntry]
    public var docType: String
    public var validityInfo: ValidityInfo
    /// `status` (18013-5 second edition; draft-ietf-oauth-status-list section 6.3):
    /// `{"status_list": {"idx": uint, "uri": tstr}}`, kept as it came (the TokenStatusList
    /// target reads it as a StatusReference). nil when the MSO has none.
    public var status: CBOR?

    public init(
        digestAlgorithm: String, valueDigests: [String: [UInt64: [UInt8]]], deviceKey: COSEKey, docType: String,
        validityInfo: ValidityInfo, status: CBOR? = nil
    ) {
        self.version = "1.0"
        self.digestAlgorithm = digestAlgorithm
        self.valueDigests = valueDigests
        self.deviceKey = deviceKey
        self.deviceKeyInfoOther = []
        self.docType = docType
        self.validityInfo = validityInfo
        self.status = status
    }

    public init(cbor value: CBOR) throws(ISO18013Error) {
        let s = "MobileSecurityObject"
        _ = try Read.map(value, s)
        version = try Read.text(value["version"], s, "version")
        digestAlgorithm = try Read.text(value["digestAlgorithm"], s, "digestAlgorithm")
        var digests: [String: [UInt64: [UInt8]]] = [:]
        for ns in try Read.entries(value["valueDigests"], s, "valueDigests") {
            guard let name = ns.key.textValue, case .map(let ids) = ns.value else {
                throw .invalid(structure: s, reason: "valueDigests entry is not namespace => map")
            }
            var byID: [UInt64: [UInt8]] = [:]
            for id in ids {
                guard let digestID = id.key.uint64Value, let d = id.value.bytesValue else {
                    throw .invalid(structure: s, reason: "a digest in \(name) is not uint => bstr")
                }
                byID[digestID] = d
            }
            digests[name] = byID
        }
        valueDigests = digests
        let keyInfo = try Read.entries(value["deviceKeyInfo"], s, "deviceKeyInfo")
        guard let keyValue = keyInfo.first(where: { $0.key == "deviceKey" })?.value else {
            throw .invalid(structure: s, reason: "deviceKeyInfo.deviceKey missing")
        }
        do {
            deviceKey = try COSEKey(cbor: keyValue)
        } catch {
            throw .cose(structure: "deviceKey", error)
        }
        deviceKeyInfoOther = keyInfo.filter { $0.key != "deviceKey" }
        docType = try Read.text(value["docType"], s, "docType")
        let validity = try Read.map(value["validityInfo"] ?? .null, "validityInfo")
        func date(_ field: String) throws(ISO18013Error) -> Date {
            guard let d = validity[field]?.dateValue else {
                throw .invalid(structure: "validityInfo", reason: "\(field) missing or not a tdate")
            }
            return d
        }
        validityInfo = ValidityInfo(
            signed: try date("signed"), validFrom: try date("validFrom"), validUntil: try date("validUntil"),
            expectedUpdate: validity["expectedUpdate"]?.dateValue)
        status = value["status"]
    }

    /// The MSO map, fields in the standard's order, namespaces and digest IDs sorted.
    public var cbor: CBOR {
        let digests = valueDigests.keys.sorted().map { ns in
            CBORMapEntry(
                .text(ns),
                .map(
                    valueDigests[ns]!.keys.sorted().map { CBORMapEntry(.unsigned($0), .bytes(valueDigests[ns]![$0]!)) })
            )
        }
        var validity: [CBORMapEntry] = [
            CBORMapEntry("signed", .tdate(validityInfo.signed)),
            CBORMapEntry("validFrom", .tdate(validityInfo.validFrom)),
            CBORMapEntry("validUntil", .tdate(validityInfo.validUntil)),
        ]
        if let u = validityInfo.expectedUpdate { validity.append(CBORMapEntry("expectedUpdate", .tdate(u))) }
        var fields: [CBORMapEntry] = [
            CBORMapEntry("version", .text(version)), CBORMapEntry("digestAlgorithm", .text(digestAlgorithm)),
            CBORMapEntry("valueDigests", .map(digests)),
            CBORMapEntry("deviceKeyInfo", .map([CBORMapEntry("deviceKey", deviceKey.cbor)] + deviceKeyInfoOther)),
            CBORMapEntry("docType", .text(docType)), CBORMapEntry("validityInfo", .map(validity)),
        ]
        if let status { fields.append(CBORMapEntry("status", status)) }
        return .map(fields)
    }

    /// The digest function the MSO names, or nil for one we do not support.
    public var digest: DigestAlgorithm? {
        switch digestAlgorithm {
        case "SHA-256": return .sha256
        case "SHA-384": return .sha384
        case "SHA-512": return .sha512
        default: return nil
        }
    }
}
