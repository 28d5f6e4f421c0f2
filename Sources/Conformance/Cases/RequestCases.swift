import CBOR
import ISO18013

/// Malformed and unknown requests (mDL_MS_DR_UF_NN): a DeviceRequest that breaks its CDDL is
/// answered with an error and no documents; a request for a document or namespace the holder
/// does not have releases nothing of it.
enum RequestCases {
    static let all = [notAMap, noVersion, noDocRequests, unknownDocType, noNameSpaces, unknownNameSpace, noElements]

    static let malformedReference =
        "ISO/IEC 18013-5 8.3.2.1.2.1 (DeviceRequest CDDL), 8.3.2.1.2.3 (DeviceResponse status 10/11/12)"
    static let unknownReference = "ISO/IEC 18013-5 8.3.2.1.2.3 (documentErrors, element errors: data not returned)"

    /// What a holder does with a request that breaks the CDDL.
    static let refusal = "DeviceResponse status 10, 11 or 12 without documents (or SessionData status 10/11)"

    /// The case mDL_MS_DR_UF_`number`.
    static func requestCase(
        _ number: String, _ title: String, expectation: String = refusal, reference: String = malformedReference,
        body: @escaping @Sendable (CaseContext) async throws(CaseStop) -> String
    ) -> ConformanceCase {
        ConformanceCase(
            id: "mDL_MS_DR_UF_\(number)", title: title, expectation: expectation, reference: reference, body: body)
    }

    /// A case whose DeviceRequest plaintext is `craft` of the well-formed request.
    static func malformed(_ number: String, _ title: String, craft: @escaping @Sendable (DeviceRequest) -> [UInt8])
        -> ConformanceCase
    {
        requestCase(number, title) { context throws(CaseStop) in
            let exchange = try await context.firstMessage("SessionEstablishment (\(title))", watchAfterwards: true) {
                session in
                try session.establishment(plaintext: craft(context.wellFormedRequest(session)))
            }
            return try context.expectRequestRefused(exchange)
        }
    }

    /// A case whose ItemsRequest is the CBOR `items` makes of the run's request, encoded as is
    /// (signed with the run's identity when given).
    static func rawItems(_ number: String, _ title: String, _ items: @escaping @Sendable (ItemsRequest) -> CBOR)
        -> ConformanceCase
    {
        requestCase(number, title) { context throws(CaseStop) in
            let identity = context.settings.identity
            let exchange = try await context.firstMessage(
                "SessionEstablishment (\(title))", identity: identity, watchAfterwards: true
            ) { session in
                try session.establishment(
                    plaintext: RawDeviceRequest.encoded(
                        items: items(context.settings.request), session: session, identity: identity))
            }
            return try context.expectRequestRefused(exchange)
        }
    }

    static func malformedItems(
        _ number: String, _ title: String, _ items: @escaping @Sendable (ItemsRequest) -> ItemsRequest,
        expectation: String = refusal, reference: String = malformedReference,
        check: @escaping @Sendable (CaseContext, FirstExchange) throws(CaseStop) -> String
    ) -> ConformanceCase {
        requestCase(number, title, expectation: expectation, reference: reference) { context throws(CaseStop) in
            let exchange = try await context.firstMessage(
                "SessionEstablishment (\(title))", identity: context.settings.identity, watchAfterwards: true
            ) { session in
                try session.establishment(for: session.deviceRequest([items(context.settings.request)]))
            }
            return try check(context, exchange)
        }
    }

    static let notAMap = malformed("01", "a DeviceRequest that is an array, not a map") { request in
        var bytes = request.encoded
        bytes[0] = 0x84
        return bytes
    }

    static let noVersion = malformed("03", "a DeviceRequest without version") { request in
        CBOR.map((request.cbor.mapEntries ?? []).filter { $0.key != "version" }).encoded()
    }

    static let noDocRequests = malformed("06", "a DeviceRequest with an empty docRequests array") { request in
        CBOR.map((request.cbor.mapEntries ?? []).map { $0.key == "docRequests" ? CBORMapEntry($0.key, []) : $0 })
            .encoded()
    }

    static let unknownDocType = malformedItems(
        "07", "an ItemsRequest for a doc type no holder has",
        { ItemsRequest(docType: "org.example.conformance.unknown", nameSpaces: $0.nameSpaces) },
        expectation: "DeviceResponse status 0 with no document and a documentErrors entry for the doc type",
        reference: unknownReference, check: unknownDocTypeAnswered)

    static func unknownDocTypeAnswered(_ context: CaseContext, _ exchange: FirstExchange) throws(CaseStop) -> String {
        guard case .response(let summary, _, _) = exchange.answer else {
            throw .fail("expected a DeviceResponse with documentErrors, got \(exchange.answer)")
        }
        guard summary.documents.isEmpty else { throw .fail("documents returned: \(summary)") }
        guard summary.documentErrors.contains(where: { $0.hasPrefix("org.example.conformance.unknown:") }) else {
            throw .fail("no documentErrors entry for the unknown doc type: \(summary)")
        }
        return "\(summary)"
    }

    static let noNameSpaces = rawItems("08", "an ItemsRequest with an empty nameSpaces map") {
        .map([CBORMapEntry("docType", .text($0.docType)), CBORMapEntry("nameSpaces", .map([]))])
    }

    static let unknownNameSpace = malformedItems(
        "10", "an ItemsRequest for a namespace the document does not have",
        {
            ItemsRequest(
                docType: $0.docType, nameSpaces: [.init("org.example.conformance.unknown", [.init("family_name")])])
        },
        expectation: "no element of the unknown namespace released (documentErrors, or element errors)",
        reference: unknownReference,
        check: { context, exchange throws(CaseStop) in try context.expectNothingReleased(exchange) })

    static let noElements = rawItems("11", "an ItemsRequest with a namespace that lists no data elements") {
        let nameSpace = $0.nameSpaces.first?.name ?? "org.iso.18013.5.1"
        return .map([
            CBORMapEntry("docType", .text($0.docType)),
            CBORMapEntry("nameSpaces", .map([CBORMapEntry(.text(nameSpace), .map([]))])),
        ])
    }
}
