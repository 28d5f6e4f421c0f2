import Consent
import DBus

/// The `org.mdocholder.ConsentAgent1` wire format (dbus/org.mdocholder.ConsentAgent1.xml):
/// a ``ConsentRequest`` as the `a{sv}` the agent gets, and its `a(sss)` answer as a
/// ``ConsentDecision``. The request carries names and flags only: it has no claim values.
enum AgentConsentWire {
    static let interface = "org.mdocholder.ConsentAgent1"
    static let approvedSignature = "a(sss)"

    /// The `request` argument of `RequestConsent`.
    static func encode(_ request: ConsentRequest) -> DBusValue {
        var fields: [String: DBusValue] = [
            "channel": .string(request.channel.rawValue),
            "requester": .string(request.requester.displayName),
            "authentication": .string(authenticationKind(request.requester.authentication)),
            "authentication_detail": .string(request.requester.authentication.summary),
            "documents": .array(
                .dictionary(key: .string, value: .variant), request.documents.map(encode)),
        ]
        if let identifier = request.requester.identifier { fields["requester_id"] = .string(identifier) }
        if let warning = request.warning { fields["warning"] = .string(warning) }
        if !request.useCases.isEmpty {
            fields["use_cases"] = .array(.dictionary(key: .string, value: .variant), request.useCases.map(encode))
        }
        return .properties(fields)
    }

    /// One use case of a second-edition request: "index" u (0 first), "mandatory" b,
    /// "purpose_hints" a{si}, "answered_by" as (doc types; absent when it cannot be answered).
    private static func encode(_ useCase: ConsentUseCase) -> DBusValue {
        var fields: [String: DBusValue] = [
            "index": .uint32(UInt32(clamping: useCase.index)),
            "mandatory": .boolean(useCase.mandatory),
            "purpose_hints": .dictionary(
                key: .string, value: .int32,
                useCase.purposeHints.sorted { $0.key < $1.key }.map {
                    DBusDictEntry(.string($0.key), .int32(Int32(clamping: $0.value)))
                }),
        ]
        if let answeredBy = useCase.answeredBy {
            fields["answered_by"] = .array(.string, answeredBy.map { .string($0) })
        }
        return .properties(fields)
    }

    static let elementType = DBusType.structure([.string, .string, .boolean, .boolean, .boolean])

    private static func encode(_ document: DocumentRequest) -> DBusValue {
        var fields: [String: DBusValue] = [
            "doctype": .string(document.docType),
            "held": .boolean(document.credentialID != nil),
            "elements": .array(
                elementType,
                document.elements.map { element in
                    .structure([
                        .string(element.id.nameSpace), .string(element.id.identifier),
                        .boolean(element.intentToRetain), .boolean(element.available), .boolean(element.required),
                    ])
                }),
        ]
        // Elements answering in place of a requested one the credential lacks:
        // (namespace, element, in place of namespace, in place of element).
        let alternatives = document.elements.compactMap { element in
            element.alternativeFor.map { original in
                DBusValue.structure([
                    .string(element.id.nameSpace), .string(element.id.identifier), .string(original.nameSpace),
                    .string(original.identifier),
                ])
            }
        }
        if !alternatives.isEmpty {
            fields["alternatives"] = .array(.structure([.string, .string, .string, .string]), alternatives)
        }
        return .properties(fields)
    }

    /// trusted, untrusted, unauthenticated or invalid.
    static func authenticationKind(_ authentication: RequesterAuthentication) -> String {
        switch authentication {
        case .trusted: "trusted"
        case .untrusted: "untrusted"
        case .unauthenticated: "unauthenticated"
        case .invalid: "invalid"
        }
    }

    /// Why an agent's answer was not taken.
    enum AnswerError: Error, Equatable, CustomStringConvertible {
        case wrongSignature(String)

        var description: String {
            switch self {
            case .wrongSignature(let signature):
                "the agent answered with signature '\(signature)', expected '\(approvedSignature)'"
            }
        }
    }

    /// The agent's reply body as a decision. Only elements that were requested and that the
    /// held credential has count; nothing left = decline.
    static func decode(_ body: [DBusValue], for request: ConsentRequest) throws(AnswerError) -> ConsentDecision {
        let signature = body.map(\.signature).joined()
        guard signature == approvedSignature, let entries = body[0].arrayValue else {
            throw .wrongSignature(signature)
        }
        var allowed: [String: Set<ElementID>] = [:]
        for document in request.documents where document.credentialID != nil {
            allowed[document.docType, default: []].formUnion(document.elements.filter(\.available).map(\.id))
        }
        var approved: [String: Set<ElementID>] = [:]
        for entry in entries {
            guard let fields = entry.structureFields, fields.count == 3,
                let docType = fields[0].stringValue, let nameSpace = fields[1].stringValue,
                let identifier = fields[2].stringValue
            else { continue }
            let id = ElementID(nameSpace, identifier)
            if allowed[docType]?.contains(id) == true { approved[docType, default: []].insert(id) }
        }
        return approved.isEmpty ? .decline : .approve(approved)
    }
}
