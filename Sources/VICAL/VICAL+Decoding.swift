import CBOR
import FoundationEssentials

extension VICAL {
    /// Reads the VICAL payload (the CBOR map inside the COSE_Sign1).
    public init(payload: [UInt8]) throws(VICALError) {
        let map: CBOR
        do {
            map = try CBOR.decode(payload)
        } catch {
            throw .malformed("the payload is not CBOR (\(error))")
        }
        guard map.mapEntries != nil else { throw .malformed("the payload is not a map (\(map.kindName))") }
        let fields = VICALFields(map, what: "VICAL")
        version = try fields.text("version")
        vicalProvider = try fields.text("vicalProvider")
        date = try fields.date("date")
        vicalIssueID = try fields.optionalUInt("vicalIssueID")
        nextUpdate = try fields.optionalDate("nextUpdate")
        guard let infos = map["certificateInfos"]?.arrayValue else {
            throw .malformed("certificateInfos is missing or not an array")
        }
        var read: [CertificateInfo] = []
        for (index, info) in infos.enumerated() {
            read.append(try CertificateInfo(info, index: index))
        }
        certificateInfos = read
    }
}

extension CertificateInfo {
    init(_ cbor: CBOR, index: Int) throws(VICALError) {
        guard cbor.mapEntries != nil else { throw .malformed("certificateInfos[\(index)] is not a map") }
        let fields = VICALFields(cbor, what: "certificateInfos[\(index)]")
        certificate = try fields.bytes("certificate")
        serialNumber = try fields.biguint("serialNumber")
        ski = try fields.bytes("ski")
        guard let types = cbor["docType"]?.arrayValue, !types.isEmpty else {
            throw .malformed("certificateInfos[\(index)].docType is missing or not a non-empty array")
        }
        var docTypes: [String] = []
        for type in types {
            guard let text = type.textValue else {
                throw .malformed("certificateInfos[\(index)].docType holds a \(type.kindName)")
            }
            docTypes.append(text)
        }
        docType = docTypes
        // AAMVA writes CertificateProfile and Extensions capitalised: accepted as the same fields.
        certificateProfile = try fields.optionalTextArray("certificateProfile", alias: "CertificateProfile")
        issuingAuthority = try fields.optionalText("issuingAuthority")
        issuingCountry = try fields.optionalText("issuingCountry")
        stateOrProvinceName = try fields.optionalText("stateOrProvinceName")
        issuer = try fields.optionalBytes("issuer")
        subject = try fields.optionalBytes("subject")
        notBefore = try fields.optionalDate("notBefore")
        notAfter = try fields.optionalDate("notAfter")
        hasExtensions = cbor["extensions"] != nil || cbor["Extensions"] != nil
    }
}

/// Typed reads of a VICAL map's fields, each failure naming the field.
struct VICALFields {
    let map: CBOR
    let what: String

    init(_ map: CBOR, what: String) {
        self.map = map
        self.what = what
    }

    private func wrong(_ key: String, _ expected: String) -> VICALError {
        .malformed(
            "\(what).\(key) is \(map[key].map { "of the wrong type (\($0.kindName))" } ?? "missing"): expected \(expected)"
        )
    }

    func text(_ key: String) throws(VICALError) -> String {
        guard let value = map[key]?.textValue else { throw wrong(key, "a text string") }
        return value
    }

    func optionalText(_ key: String) throws(VICALError) -> String? {
        guard map[key] != nil else { return nil }
        return try text(key)
    }

    func bytes(_ key: String) throws(VICALError) -> [UInt8] {
        guard let value = map[key]?.bytesValue else { throw wrong(key, "a byte string") }
        return value
    }

    func optionalBytes(_ key: String) throws(VICALError) -> [UInt8]? {
        guard map[key] != nil else { return nil }
        return try bytes(key)
    }

    func date(_ key: String) throws(VICALError) -> Date {
        guard let value = map[key]?.dateValue else { throw wrong(key, "a tdate (tag 0) or epoch date (tag 1)") }
        return value
    }

    func optionalDate(_ key: String) throws(VICALError) -> Date? {
        guard map[key] != nil else { return nil }
        return try date(key)
    }

    func optionalUInt(_ key: String) throws(VICALError) -> UInt64? {
        guard let value = map[key] else { return nil }
        guard let number = value.uint64Value else { throw wrong(key, "an unsigned integer") }
        return number
    }

    /// biguint: tag 2 over the big-endian bytes; a plain unsigned integer is accepted too.
    func biguint(_ key: String) throws(VICALError) -> [UInt8] {
        switch map[key] {
        case .tagged(2, .bytes(let b))?: return b
        case .unsigned(let n)?:
            return withUnsafeBytes(of: n.bigEndian) { Array($0) }.drop { $0 == 0 }.map { $0 }
        default: throw wrong(key, "a biguint (tag 2)")
        }
    }

    func optionalTextArray(_ key: String, alias: String) throws(VICALError) -> [String]? {
        guard let value = map[key] ?? map[alias] else { return nil }
        // A single text is read as a one-element list.
        if let single = value.textValue { return [single] }
        guard let items = value.arrayValue else { throw wrong(key, "an array of text strings") }
        var texts: [String] = []
        for item in items {
            guard let text = item.textValue else { throw wrong(key, "an array of text strings") }
            texts.append(text)
        }
        return texts
    }
}
