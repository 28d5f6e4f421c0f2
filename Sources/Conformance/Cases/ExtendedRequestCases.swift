import CBOR
import ISO18013
import MdocIssuer
import Presentation

/// Second-edition request members: ignored in a "1.0" request (mDL_MS_DR_Ver_NN); honoured
/// by a holder that advertises extended request support (Capabilities key 4): an element
/// answered through its alternative, and maximumResponseSize.
enum ExtendedRequestCases {
    static let all = [firstEditionIgnoresAll, firstEditionKeepsReaderAuth, alternative, maximumResponseSize]

    static let versionReference =
        "ISO/IEC 18013-5 second edition 8.3.2.1.2.1 (deviceRequestInfo and readerAuthAll are \"1.1\" members; "
        + "a \"1.0\" request has neither)"
    static let extendedReference =
        "ISO/IEC 18013-5 second edition 8.3.2.1.2.1 (ItemsRequest requestInfo: alternativeDataElements, "
        + "maximumResponseSize), Capabilities key 4"

    static let firstEditionIgnoresAll = ConformanceCase(
        id: "mDL_MS_DR_Ver_01",
        title: "a \"1.0\" request with deviceRequestInfo and a trusted reader's readerAuthAll, no readerAuth",
        expectation: "the 1.1 members are ignored: not an error (DeviceResponse status 0), not an authentication "
            + "(the reader is unauthenticated: nothing released by a holder that refuses unauthenticated readers)",
        reference: versionReference
    ) { context throws(CaseStop) in
        let identity = try ReaderAuthenticationAllCases.identity(context)
        let crafted = RawDeviceRequest(
            items: [context.settings.request.cbor], deviceRequestInfo: RawDeviceRequest.oneUseCase,
            signAll: ReaderAuthenticationAllCases.signer(identity))
        let exchange = try await context.firstMessage("SessionEstablishment (1.0 with readerAuthAll)") { session in
            try session.establishment(plaintext: crafted.encoded(session: session))
        }
        guard case .response(let summary, _, _) = exchange.answer, summary.status == 0 else {
            throw .fail("expected a DeviceResponse with status 0 (the 1.1 members ignored), got \(exchange.answer)")
        }
        guard summary.releasedElements.isEmpty else {
            throw .fail("data released on a \"1.0\" readerAuthAll, which is no authentication: \(summary)")
        }
        return "nothing released, no error (\(summary))"
    }

    static let firstEditionKeepsReaderAuth = ConformanceCase(
        id: "mDL_MS_DR_Ver_02",
        title: "a \"1.0\" request with a trusted readerAuth, deviceRequestInfo and an untrusted readerAuthAll",
        expectation: "the 1.1 members are ignored: the trusted readerAuth counts, DeviceResponse status 0 "
            + "releasing data (an untrusted readerAuthAll is not checked in a 1.0 request)",
        reference: versionReference, needsConsent: true
    ) { context throws(CaseStop) in
        let identity = try ReaderAuthenticationAllCases.identity(context)
        let stranger: ReaderIdentity
        do {
            let pki = try TestPKI.generate()
            stranger = ReaderIdentity(key: pki.readerKey, chain: [pki.reader])
        } catch {
            throw .skip("cannot make a reader CA for the run: \(error)")
        }
        let crafted = RawDeviceRequest(
            items: [context.settings.request.cbor], identity: identity,
            deviceRequestInfo: RawDeviceRequest.oneUseCase, signAll: ReaderAuthenticationAllCases.signer(stranger))
        let exchange = try await context.firstMessage("SessionEstablishment (1.0, readerAuth and readerAuthAll)") {
            session in
            try session.establishment(plaintext: crafted.encoded(session: session))
        }
        guard case .response(let summary, _, _) = exchange.answer, summary.status == 0,
            !summary.releasedElements.isEmpty
        else {
            throw .fail(
                "expected data for the trusted readerAuth (the 1.0 request's readerAuthAll ignored), got "
                    + "\(exchange.answer)")
        }
        return "\(summary)"
    }

    /// Skips unless the engagement advertises extended request support.
    static func needsExtendedRequests(_ context: CaseContext) throws(CaseStop) -> ReaderIdentity {
        let identity = try ReaderAuthenticationAllCases.identity(context)
        guard EngagementCapabilities(of: context.engagement).advertises(EngagementCapabilities.extendedRequestSupport)
        else { throw .skip("the engagement does not advertise extended request support (Capabilities key 4)") }
        return identity
    }

    /// An element identifier no mdoc holds.
    static let unheldElement = "conformance_element_not_held"

    static let alternative = ConformanceCase(
        id: "mDL_MS_DR_Alt_01",
        title:
            "an ItemsRequest for an element the mdoc does not hold, with alternativeDataElements naming one it holds",
        expectation: "the alternative element set is answered: DeviceResponse status 0 releasing the alternative "
            + "(the first element of the run's request), nothing of the unheld element",
        reference: extendedReference, needsConsent: true
    ) { context throws(CaseStop) in
        let identity = try needsExtendedRequests(context)
        let request = context.settings.request
        guard let nameSpace = request.nameSpaces.first, let held = nameSpace.elements.first?.identifier else {
            throw .skip("the run's request names no element")
        }
        let reference = { (id: String) -> CBOR in .array([.text(nameSpace.name), .text(id)]) }
        let items = RawDeviceRequest.items(
            ItemsRequest(docType: request.docType, nameSpaces: [.init(nameSpace.name, [.init(unheldElement)])]),
            requestInfo: [
                CBORMapEntry(
                    "alternativeDataElements",
                    .array([
                        .map([
                            CBORMapEntry("requestedElement", reference(unheldElement)),
                            CBORMapEntry("alternativeElementSets", .array([.array([reference(held)])])),
                        ])
                    ]))
            ])
        let crafted = RawDeviceRequest(version: "1.1", items: [items], identity: identity)
        let exchange = try await context.firstMessage("SessionEstablishment (alternativeDataElements)") { session in
            try session.establishment(plaintext: crafted.encoded(session: session))
        }
        guard case .response(let summary, _, _) = exchange.answer, summary.status == 0 else {
            throw .fail("expected a DeviceResponse with status 0, got \(exchange.answer)")
        }
        guard summary.releasedElements.contains("\(nameSpace.name)/\(held)") else {
            throw .fail("the alternative \(nameSpace.name)/\(held) was not released: \(summary)")
        }
        return "answered through the alternative: \(summary)"
    }

    /// The maximumResponseSize the case asks for: below a document with a portrait (3.5 KB
    /// with our test mDL), above one with the short elements only (1.5 KB with family_name).
    static let responseSizeBound = 2048

    static let maximumResponseSize = ConformanceCase(
        id: "mDL_MS_DR_MaxSize_01",
        title: "an ItemsRequest with maximumResponseSize \(responseSizeBound) for the run's elements",
        expectation:
            "the DeviceResponse (its CBOR, before encryption) is at most \(responseSizeBound) bytes: what does "
            + "not fit is left out (and reported in the errors), never sent",
        reference: extendedReference, needsConsent: true
    ) { context throws(CaseStop) in
        let identity = try needsExtendedRequests(context)
        let items = RawDeviceRequest.items(
            context.settings.request,
            requestInfo: [CBORMapEntry("maximumResponseSize", .int(responseSizeBound))])
        let crafted = RawDeviceRequest(version: "1.1", items: [items], identity: identity)
        let exchange = try await context.firstMessage("SessionEstablishment (maximumResponseSize)") { session in
            try session.establishment(plaintext: crafted.encoded(session: session))
        }
        guard case .response(let summary, let plaintext, _) = exchange.answer else {
            throw .fail("expected a DeviceResponse, got \(exchange.answer)")
        }
        context.evidence.note("DeviceResponse of \(plaintext.count) bytes: \(summary)")
        guard plaintext.count <= responseSizeBound else {
            throw .fail(
                "the DeviceResponse is \(plaintext.count) bytes, over maximumResponseSize \(responseSizeBound): \(summary)"
            )
        }
        return "\(plaintext.count) bytes, within \(responseSizeBound): \(summary)"
    }
}
