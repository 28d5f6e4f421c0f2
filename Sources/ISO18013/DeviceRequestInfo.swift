import CBOR

/// `DeviceRequestInfo` (ISO/IEC 18013-5 second edition, DeviceRequest "1.1"), carried as
/// `deviceRequestInfo = DeviceRequestInfoBytes = #6.24(bstr .cbor DeviceRequestInfo)`:
///
/// ```
/// DeviceRequestInfo = { ? "useCases": [+ UseCase], * tstr => any }
/// UseCase = { "mandatory": bool, "documentSets": [+ DocumentSet], ? "purposeHints": PurposeHints }
/// DocumentSet = [+ DocRequestID]          ; DocRequestID = uint, an index into docRequests
/// PurposeHints = {+ PurposeControllerId => PurposeCode}   ; tstr => int
/// ```
///
/// A use case is answered by one of its document sets (the reader's preferred first); a
/// mandatory one the holder cannot answer is reported, never silently dropped. Keys this
/// holder does not know are ignored, as the `* tstr => any` member allows. A "1.0" request
/// has no DeviceRequestInfo (``DeviceRequest`` does not read it there).
public struct DeviceRequestInfo: Sendable, Hashable {
    /// One `UseCase`.
    public struct UseCase: Sendable, Hashable {
        public var mandatory: Bool
        /// Each set lists docRequests indexes; the first set the holder can answer is used.
        public var documentSets: [[Int]]
        /// `purposeHints`: purpose controller id (e.g. a scheme's registry) => purpose code.
        public var purposeHints: [String: Int]

        public init(mandatory: Bool, documentSets: [[Int]], purposeHints: [String: Int] = [:]) {
            self.mandatory = mandatory
            self.documentSets = documentSets
            self.purposeHints = purposeHints
        }
    }

    public var useCases: [UseCase]

    public init(useCases: [UseCase]) { self.useCases = useCases }

    /// The most use cases, document sets per use case, indexes per set and purpose hints per
    /// use case that are read (readers send one to a few of each).
    public static let maximumListLength = 64

    /// Reads DeviceRequestInfo and checks every index against `docRequestCount`.
    public init(cbor value: CBOR, docRequestCount: Int) throws(ISO18013Error) {
        let s = "DeviceRequestInfo"
        _ = try Read.map(value, s)
        var cases: [UseCase] = []
        if let list = value["useCases"] {
            let items = try Self.bounded(Read.array(list, s, "useCases"), "useCases")
            for item in items { cases.append(try Self.useCase(item, docRequestCount: docRequestCount)) }
        }
        useCases = cases
    }

    /// Reads the DeviceRequestInfoBytes of `request` (nil when it has none, or is "1.0").
    public init?(of request: DeviceRequest) throws(ISO18013Error) {
        guard let bytes = request.deviceRequestInfo else { return nil }
        try self.init(cbor: bytes.value, docRequestCount: request.docRequests.count)
    }

    private static func useCase(_ value: CBOR, docRequestCount: Int) throws(ISO18013Error) -> UseCase {
        let s = "UseCase"
        _ = try Read.map(value, s)
        guard let mandatory = value["mandatory"]?.boolValue else {
            throw .invalid(structure: s, reason: "mandatory missing or not a bool")
        }
        var sets: [[Int]] = []
        for set in try bounded(Read.array(value["documentSets"], s, "documentSets"), "documentSets") {
            var indexes: [Int] = []
            for index in try bounded(Read.array(set, s, "a document set"), "a document set") {
                guard let i = index.uint64Value, i < UInt64(docRequestCount) else {
                    throw .invalid(
                        structure: s, reason: "a document set names a docRequest that is not in the request")
                }
                indexes.append(Int(i))
            }
            sets.append(indexes)
        }
        var hints: [String: Int] = [:]
        if let entries = value["purposeHints"] {
            for entry in try bounded(Read.entries(entries, s, "purposeHints"), "purposeHints") {
                guard let id = entry.key.textValue, let code = entry.value.intValue else {
                    throw .invalid(structure: s, reason: "a purpose hint is not text => int")
                }
                hints[id] = code
            }
        }
        return UseCase(mandatory: mandatory, documentSets: sets, purposeHints: hints)
    }

    private static func bounded<T>(_ list: [T], _ field: String) throws(ISO18013Error) -> [T] {
        try Read.bounded(list, "DeviceRequestInfo", field, limit: maximumListLength)
    }

    public var cbor: CBOR {
        .map([
            CBORMapEntry(
                "useCases",
                .array(
                    useCases.map { useCase in
                        var entries = [
                            CBORMapEntry("mandatory", .bool(useCase.mandatory)),
                            CBORMapEntry(
                                "documentSets",
                                .array(useCase.documentSets.map { .array($0.map { .unsigned(UInt64($0)) }) })),
                        ]
                        if !useCase.purposeHints.isEmpty {
                            entries.append(
                                CBORMapEntry(
                                    "purposeHints",
                                    .map(
                                        useCase.purposeHints.sorted { $0.key < $1.key }.map {
                                            CBORMapEntry(.text($0.key), .int($0.value))
                                        })))
                        }
                        return .map(entries)
                    }))
        ])
    }
}
