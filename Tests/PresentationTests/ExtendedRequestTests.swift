import CBOR
import Consent
import Foundation
import ISO18013
import MdocCrypto
import Presentation
import Testing

/// Second-edition requests against the holder engine: alternatives, use cases,
/// issuerIdentifiers, uniqueDocSetRequired and maximumResponseSize, each seeded; and the
/// same fields ignored in a "1.0" request.
struct ExtendedRequestTests {
    typealias I = IssuedCredentials

    /// Holder and reader back to back: sends `request`, approves what consent offers; returns
    /// the consent request, the verified response, the DeviceResponse size and the records.
    struct Run {
        var consent: ConsentRequest?
        var response: VerifiedResponse
        var responseSize: Int
        var records: [PresentationRecord]
    }

    static func run(_ request: DeviceRequest, credentials: [PresentableCredential], iacas: [Certificate], now: Date)
        throws -> Run
    {
        var x = try InMemoryExchange(credentials: credentials, iacas: iacas, time: now)
        var event: ReaderEvent?
        let replies = x.deliver(try x.reader.establishment(for: request), decide: { .approveAll($0) })
        for reply in replies { event = try x.reader.receive(reply, at: now) }
        let sessionData = try SessionData(bytes: try #require(x.sent.last))
        // AES-GCM adds a 16-byte tag to the DeviceResponse.
        let size = try #require(sessionData.data).count - 16
        return Run(
            consent: x.consentRequests.first, response: try #require(event?.verified), responseSize: size,
            records: x.records)
    }

    static func items(
        _ elements: [String], docType: String = I.mDL, nameSpace: String = I.ns, info: DocRequestInfo = DocRequestInfo()
    ) -> ItemsRequest {
        ItemsRequest(
            docType: docType, nameSpaces: [.init(nameSpace, elements.map { .init($0) })],
            requestInfo: info.entries.isEmpty ? nil : info.entries)
    }

    static func request(_ items: [ItemsRequest], version: String = "1.1", useCases: [DeviceRequestInfo.UseCase] = [])
        -> DeviceRequest
    {
        let info = useCases.isEmpty ? nil : EmbeddedCBOR(DeviceRequestInfo(useCases: useCases).cbor)
        return DeviceRequest(
            docRequests: items.map { DocRequest(itemsRequest: $0) }, version: version, deviceRequestInfo: info)
    }

    static let ageAlternative = DocRequestInfo(alternativeDataElements: [
        .init(
            requestedElement: ElementReference(I.ns, "age_over_18"),
            alternativeElementSets: [[ElementReference(I.ns, "age_in_years")], [ElementReference(I.ns, "birth_date")]])
    ])

    /// An mDL without age_over_18 (it has birth_date).
    static func withoutAgeOver18(_ issued: I) throws -> PresentableCredential {
        try issued.issue(elements: [("family_name", "Mustermann"), ("birth_date", .fullDate("1971-09-01"))])
    }

    @Test func anElementTheCredentialLacksIsAnsweredByTheFirstAlternativeItHolds() throws {
        let issued = try I()
        let request = Self.request([Self.items(["family_name", "age_over_18"], info: Self.ageAlternative)])
        let run = try Self.run(
            request, credentials: [Self.withoutAgeOver18(issued)], iacas: [issued.pki.iaca], now: issued.now)
        let offered = try #require(run.consent?.documents.first?.elements)
        let birthDate = try #require(offered.first { $0.id == ElementID(I.ns, "birth_date") })
        #expect(birthDate.alternativeFor == ElementID(I.ns, "age_over_18") && birthDate.available)
        #expect(offered.first { $0.id == ElementID(I.ns, "age_over_18") }?.available == false)
        let document = try #require(run.response.documents.first)
        #expect(run.response.isValid)
        #expect(Set(document.elements.map(\.id)) == [ElementID(I.ns, "family_name"), ElementID(I.ns, "birth_date")])
        #expect(document.notReturned.map(\.id) == [ElementID(I.ns, "age_over_18")])
    }

    @Test func aFirstEditionRequestIgnoresAlternativesAndMaximumResponseSize() throws {
        let issued = try I()
        var info = Self.ageAlternative
        info.maximumResponseSize = 200
        let request = Self.request([Self.items(["family_name", "age_over_18"], info: info)], version: "1.0")
        let run = try Self.run(
            request, credentials: [Self.withoutAgeOver18(issued)], iacas: [issued.pki.iaca], now: issued.now)
        #expect(
            run.consent?.documents.first?.elements.map(\.id) == [
                ElementID(I.ns, "family_name"), ElementID(I.ns, "age_over_18"),
            ])
        #expect(run.response.documents.first?.elements.map(\.id) == [ElementID(I.ns, "family_name")])
        #expect(run.responseSize > 200)
    }

    @Test func aMandatoryUseCaseThatCannotBeAnsweredIsReportedNotDropped() throws {
        let issued = try I()
        let request = Self.request(
            [Self.items(["family_name"]), Self.items(["points"], docType: I.loyalty, nameSpace: I.loyalty)],
            useCases: [
                .init(mandatory: true, documentSets: [[1]], purposeHints: ["org.example": 7]),
                .init(mandatory: false, documentSets: [[0]]),
            ])
        let run = try Self.run(request, credentials: [issued.issue()], iacas: [issued.pki.iaca], now: issued.now)
        let consent = try #require(run.consent)
        #expect(consent.useCases.count == 2)
        #expect(consent.unsatisfiableMandatoryUseCases.map(\.index) == [0])
        #expect(consent.useCases[0].purposeHints == ["org.example": 7])
        #expect(consent.useCases[1].answeredBy == [I.mDL])
        #expect(run.records.first { $0.docType == I.mDL }?.useCase == "use case 2 (optional)")
        #expect(run.response.documents.map(\.docType) == [I.mDL])
        #expect(run.response.documentErrors.map(\.docType) == [I.loyalty])
        let loyalty = try #require(run.records.first { $0.docType == I.loyalty })
        guard case .notReturned(let reason) = loyalty.outcome else {
            Issue.record("the loyalty card is recorded as \(loyalty.outcome)")
            return
        }
        #expect(reason.contains("use case 1 (mandatory"))
    }

    @Test func aUseCaseIsAnsweredByItsFirstDocumentSetThatCanBeAnswered() throws {
        let issued = try I()
        let loyalty = try issued.issue(docType: I.loyalty, nameSpace: I.loyalty, elements: [("points", 12)])
        let request = Self.request(
            [
                Self.items(["family_name"]), Self.items(["points"], docType: I.loyalty, nameSpace: I.loyalty),
                Self.items(["x"], docType: "org.example.absent", nameSpace: "org.example.absent"),
            ],
            useCases: [.init(mandatory: true, documentSets: [[2], [1], [0]])])
        let run = try Self.run(
            request, credentials: [issued.issue(), loyalty], iacas: [issued.pki.iaca], now: issued.now)
        #expect(run.consent?.documents.map(\.docType) == [I.loyalty])
        #expect(run.consent?.useCases.first?.answeredBy == [I.loyalty])
        #expect(run.response.documents.map(\.docType) == [I.loyalty])
        #expect(Set(run.response.documentErrors.map(\.docType)) == [I.mDL, "org.example.absent"])
    }

    @Test func issuerIdentifiersChooseTheCredentialOfThatIssuer() throws {
        let first = try I()
        let second = try I()
        let a = try first.issue()
        let b = try second.issue()
        let secondIACA = try #require(second.pki.iaca.subjectKeyIdentifier)
        let wanted = Self.request([Self.items(["family_name"], info: DocRequestInfo(issuerIdentifiers: [secondIACA]))])
        let run = try Self.run(wanted, credentials: [a, b], iacas: [first.pki.iaca, second.pki.iaca], now: first.now)
        #expect(run.consent?.documents.first?.credentialID == b.id)
        #expect(run.response.isValid && run.response.documents.count == 1)
        let nobody = Self.request([Self.items(["family_name"], info: DocRequestInfo(issuerIdentifiers: [[9, 9, 9]]))])
        let none = try Self.run(nobody, credentials: [a, b], iacas: [first.pki.iaca], now: first.now)
        #expect(none.consent == nil && none.response.documents.isEmpty)
        #expect(none.response.documentErrors.map(\.docType) == [I.mDL])
    }

    @Test func uniqueDocSetRequiredGetsOneDocumentPerRequest() throws {
        let issued = try I()
        for unique in [true, false] {
            let request = Self.request([Self.items(["family_name"], info: DocRequestInfo(uniqueDocSetRequired: unique))]
            )
            let run = try Self.run(
                request, credentials: [issued.issue(), issued.issue()], iacas: [issued.pki.iaca], now: issued.now)
            #expect(run.response.documents.count == 1)
        }
    }

    @Test func theResponseNeverExceedsMaximumResponseSize() throws {
        let issued = try I()
        let elements = ["family_name", "given_name", "portrait"]
        let full = try Self.run(
            Self.request([Self.items(elements)]), credentials: [issued.issue()], iacas: [issued.pki.iaca],
            now: issued.now)
        #expect(full.responseSize > 2000)
        let limit = full.responseSize - 1000
        let run = try Self.run(
            Self.request([Self.items(elements, info: DocRequestInfo(maximumResponseSize: limit))]),
            credentials: [issued.issue()], iacas: [issued.pki.iaca], now: issued.now)
        #expect(run.responseSize <= limit)
        let document = try #require(run.response.documents.first)
        #expect(run.response.isValid)
        #expect(document.notReturned.map(\.id) == [ElementID(I.ns, "portrait")])
        #expect(run.records.first?.elementsSent == [ElementID(I.ns, "family_name"), ElementID(I.ns, "given_name")])
        // Nothing fits: no document, a documentError, and the record says why.
        let tiny = try Self.run(
            Self.request([Self.items(elements, info: DocRequestInfo(maximumResponseSize: 100))]),
            credentials: [issued.issue()], iacas: [issued.pki.iaca], now: issued.now)
        #expect(tiny.responseSize <= 100 && tiny.response.documents.isEmpty)
        #expect(tiny.response.documentErrors.map(\.docType) == [I.mDL])
        guard case .notReturned(let reason) = tiny.records.first?.outcome else {
            Issue.record("not recorded as not returned")
            return
        }
        #expect(reason.contains("maximumResponseSize"))
        // Below even the errors: the bare status.
        let bare = try Self.run(
            Self.request([Self.items(elements, info: DocRequestInfo(maximumResponseSize: 40))]),
            credentials: [issued.issue()], iacas: [issued.pki.iaca], now: issued.now)
        #expect(bare.responseSize <= 40 && bare.response.documents.isEmpty && bare.response.status == 0)
    }
    @Test func anUnreadableDeviceRequestInfoRefusesTheDocumentsAndSaysWhy() throws {
        let issued = try I()
        let broken = EmbeddedCBOR(["useCases": [["mandatory": true, "documentSets": [[5]]]]])
        let request = DeviceRequest(
            docRequests: [DocRequest(itemsRequest: Self.items(["family_name"]))], version: "1.1",
            deviceRequestInfo: broken)
        let run = try Self.run(request, credentials: [issued.issue()], iacas: [issued.pki.iaca], now: issued.now)
        #expect(run.consent == nil && run.response.documents.isEmpty)
        #expect(run.response.documentErrors.map(\.docType) == [I.mDL])
        guard case .notReturned(let reason) = run.records.first?.outcome else {
            Issue.record("not recorded as not returned")
            return
        }
        #expect(reason.contains("unreadable deviceRequestInfo"))
    }
}
