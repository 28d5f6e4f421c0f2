import CBOR
import ISO18013
import Testing

/// DeviceRequestInfo and the extended ItemsRequest `requestInfo` (second edition), read as
/// their CDDL says, with unknown keys ignored and broken structures refused.
struct ExtendedRequestParsingTests {
    static let items = ItemsRequest(docType: "org.iso.18013.5.1.mDL", nameSpaces: [.init("ns", [.init("a")])])

    static func request(info: CBOR, version: String = "1.1", docRequests: Int = 2) throws -> DeviceRequest {
        let built = DeviceRequest(
            docRequests: Array(repeating: DocRequest(itemsRequest: items), count: docRequests), version: version,
            deviceRequestInfo: EmbeddedCBOR(info))
        return try DeviceRequest(bytes: built.encoded)
    }

    @Test func readsUseCasesWithPurposeHintsAndIgnoresUnknownKeys() throws {
        let info: CBOR = [
            "useCases": [
                ["mandatory": true, "documentSets": [[0, 1], [1]], "purposeHints": ["org.example": 3], "x": 1],
                ["mandatory": false, "documentSets": [[0]]],
            ],
            "vendorKey": "ignored",
        ]
        let read = try #require(try DeviceRequestInfo(of: Self.request(info: info)))
        #expect(
            read.useCases == [
                .init(mandatory: true, documentSets: [[0, 1], [1]], purposeHints: ["org.example": 3]),
                .init(mandatory: false, documentSets: [[0]]),
            ])
        // What we write reads back the same.
        #expect(try DeviceRequestInfo(cbor: read.cbor, docRequestCount: 2) == read)
    }

    @Test func refusesAnIndexOutsideDocRequestsAndEmptySets() throws {
        let outside: CBOR = ["useCases": [["mandatory": true, "documentSets": [[2]]]]]
        #expect(throws: ISO18013Error.self) { try DeviceRequestInfo(of: Self.request(info: outside)) }
        let empty: CBOR = ["useCases": [["mandatory": true, "documentSets": [[]]]]]
        #expect(throws: ISO18013Error.self) { try DeviceRequestInfo(of: Self.request(info: empty)) }
        let noFlag: CBOR = ["useCases": [["documentSets": [[0]]]]]
        #expect(throws: ISO18013Error.self) { try DeviceRequestInfo(of: Self.request(info: noFlag)) }
    }

    @Test func aFirstEditionRequestHasNoDeviceRequestInfo() throws {
        let info: CBOR = ["useCases": [["mandatory": true, "documentSets": [[7]]]]]
        #expect(try DeviceRequestInfo(of: Self.request(info: info, version: "1.0")) == nil)
    }

    @Test func readsDocRequestInfoKeysAndLeavesOthers() throws {
        let entries: [CBORMapEntry] = [
            CBORMapEntry(
                "alternativeDataElements",
                [["requestedElement": ["ns", "age_over_18"], "alternativeElementSets": [[["ns", "birth_date"]]]]]),
            CBORMapEntry("issuerIdentifiers", .array([.bytes([1, 2, 3])])),
            CBORMapEntry("uniqueDocSetRequired", true),
            CBORMapEntry("maximumResponseSize", 4096),
            CBORMapEntry("zkRequest", ["systemSpecs": []]),
        ]
        let info = try ItemsRequest(docType: "d", nameSpaces: Self.items.nameSpaces, requestInfo: entries)
            .docRequestInfo()
        #expect(
            info.alternatives(for: ElementReference("ns", "age_over_18")) == [[ElementReference("ns", "birth_date")]])
        #expect(info.alternatives(for: ElementReference("ns", "a")).isEmpty)
        #expect(info.issuerIdentifiers == [[1, 2, 3]])
        #expect(info.uniqueDocSetRequired == true)
        #expect(info.maximumResponseSize == 4096)
        #expect(try DocRequestInfo(entries: info.entries) == info)
    }

    @Test func refusesABrokenElementReference() {
        let entries = [
            CBORMapEntry(
                "alternativeDataElements", [["requestedElement": ["ns"], "alternativeElementSets": [[["ns", "b"]]]]])
        ]
        #expect(throws: ISO18013Error.self) { try DocRequestInfo(entries: entries) }
        #expect(throws: ISO18013Error.self) { try DocRequestInfo(entries: [CBORMapEntry("maximumResponseSize", -1)]) }
    }
}
