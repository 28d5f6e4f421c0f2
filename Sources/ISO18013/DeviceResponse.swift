import CBOR

/// Status of a DeviceResponse (8.3.2.1.2.3, table 8).
public enum DeviceResponseStatus: UInt64, Sendable, Hashable, CaseIterable {
    case ok = 0
    case generalError = 10
    case cborDecodingError = 11
    case cborValidationError = 12
}

/// Per-element or per-document error codes (8.3.2.1.2.3): 0 = data not returned.
public enum ErrorCode {
    public static let dataNotReturned: Int = 0
}

/// `Document = {"docType", "issuerSigned", "deviceSigned", ? "errors"}`.
public struct Document: Sendable, Hashable {
    public var docType: String
    public var issuerSigned: IssuerSigned
    public var deviceSigned: DeviceSigned
    /// namespace => element => error code, for requested elements not returned.
    public var errors: [(nameSpace: String, element: String, code: Int)]

    public init(
        docType: String, issuerSigned: IssuerSigned, deviceSigned: DeviceSigned,
        errors: [(nameSpace: String, element: String, code: Int)] = []
    ) {
        self.docType = docType
        self.issuerSigned = issuerSigned
        self.deviceSigned = deviceSigned
        self.errors = errors
    }

    init(cbor value: CBOR) throws(ISO18013Error) {
        let s = "Document"
        _ = try Read.map(value, s)
        docType = try Read.text(value["docType"], s, "docType")
        issuerSigned = try IssuerSigned(cbor: value["issuerSigned"] ?? .null)
        deviceSigned = try DeviceSigned(cbor: value["deviceSigned"] ?? .null)
        var errs: [(String, String, Int)] = []
        if let e = value["errors"] {
            for ns in try Read.entries(e, s, "errors") {
                guard let name = ns.key.textValue, case .map(let items) = ns.value else {
                    throw .invalid(structure: s, reason: "errors entry is not namespace => map")
                }
                for item in items {
                    guard let id = item.key.textValue, let code = item.value.intValue else {
                        throw .invalid(structure: s, reason: "an error item is not identifier => code")
                    }
                    errs.append((name, id, code))
                }
            }
        }
        errors = errs
    }

    var cbor: CBOR {
        var entries: [CBORMapEntry] = [
            CBORMapEntry("docType", .text(docType)), CBORMapEntry("issuerSigned", issuerSigned.cbor),
            CBORMapEntry("deviceSigned", deviceSigned.cbor),
        ]
        if !errors.isEmpty {
            var grouped: [(String, [CBORMapEntry])] = []
            for e in errors {
                let entry = CBORMapEntry(.text(e.element), .int(e.code))
                if let i = grouped.firstIndex(where: { $0.0 == e.nameSpace }) {
                    grouped[i].1.append(entry)
                } else {
                    grouped.append((e.nameSpace, [entry]))
                }
            }
            entries.append(CBORMapEntry("errors", .map(grouped.map { CBORMapEntry(.text($0.0), .map($0.1)) })))
        }
        return .map(entries)
    }

    public static func == (a: Document, b: Document) -> Bool { a.cbor == b.cbor }
    public func hash(into hasher: inout Hasher) { hasher.combine(cbor) }
}

/// `DeviceResponse = {"version": tstr, ? "documents": [+ Document], ? "documentErrors":
/// [+ DocumentError], "status": uint}`.
public struct DeviceResponse: Sendable, Hashable {
    public var version: String
    public var documents: [Document]
    /// Doc types requested but not returned, with their error code.
    public var documentErrors: [(docType: String, code: Int)]
    public var status: UInt64

    public init(
        documents: [Document], documentErrors: [(docType: String, code: Int)] = [],
        status: DeviceResponseStatus = .ok, version: String = "1.0"
    ) {
        self.version = version
        self.documents = documents
        self.documentErrors = documentErrors
        self.status = status.rawValue
    }

    public init(bytes: [UInt8], limits: CBORDecodingLimits = .default) throws(ISO18013Error) {
        let s = "DeviceResponse"
        let value = try Read.map(Read.decode(bytes, as: s, limits: limits), s)
        version = try Read.text(value["version"], s, "version")
        status = try Read.uint(value["status"], s, "status")
        var docs: [Document] = []
        if let d = value["documents"] {
            for item in try Read.array(d, s, "documents") { docs.append(try Document(cbor: item)) }
        }
        documents = docs
        var errs: [(String, Int)] = []
        if let e = value["documentErrors"] {
            for item in try Read.array(e, s, "documentErrors") {
                for entry in try Read.entries(item, s, "DocumentError") {
                    guard let t = entry.key.textValue, let c = entry.value.intValue else {
                        throw .invalid(structure: s, reason: "a DocumentError is not docType => code")
                    }
                    errs.append((t, c))
                }
            }
        }
        documentErrors = errs
    }

    public var cbor: CBOR {
        var entries: [CBORMapEntry] = [CBORMapEntry("version", .text(version))]
        if !documents.isEmpty { entries.append(CBORMapEntry("documents", .array(documents.map(\.cbor)))) }
        if !documentErrors.isEmpty {
            entries.append(
                CBORMapEntry(
                    "documentErrors",
                    .array(documentErrors.map { .map([CBORMapEntry(.text($0.docType), .int($0.code))]) })))
        }
        entries.append(CBORMapEntry("status", .unsigned(status)))
        return .map(entries)
    }

    public var encoded: [UInt8] { cbor.encoded() }

    public static func == (a: DeviceResponse, b: DeviceResponse) -> Bool { a.cbor == b.cbor }
    public func hash(into hasher: inout Hasher) { hasher.combine(cbor) }
}
