import Consent
import JOSE

/// A DIF Presentation Exchange `presentation_definition` in the shape ISO/IEC TS 18013-7
/// Annex B uses before OpenID4VP 1.0: one input descriptor per doc type (its `id` is the doc
/// type), fields whose path is `$['namespace']['element']`.
///
/// Kept only to answer pre-1.0 verifiers; the matcher sees it as a ``DCQLQuery``
/// (``dcqlQuery``), where optional fields become a second, smaller claim set.
public struct PresentationDefinition: Sendable, Equatable {
    public var id: String
    public var inputDescriptors: [InputDescriptor]

    public struct InputDescriptor: Sendable, Equatable {
        /// The descriptor id: the doc type.
        public var id: String
        public var fields: [Field]
    }

    public struct Field: Sendable, Equatable {
        public var element: ElementID
        public var intentToRetain: Bool
        public var optional: Bool
    }

    /// Reads the definition.
    ///
    /// - Throws: `invalid_request` for a member of the wrong shape, a field path that is not
    ///   `$['namespace']['element']`.
    public init(json: JSONValue) throws(AuthorizationError) {
        guard let id = json["id"]?.stringValue else { throw .invalidRequest("presentation_definition has no id") }
        guard let descriptors = json["input_descriptors"]?.arrayValue, !descriptors.isEmpty else {
            throw .invalidRequest("presentation_definition has no input_descriptors")
        }
        try DCQLQuery.bound(descriptors.count, DCQLQuery.maximumCredentialQueries, "input_descriptors")
        self.id = id
        inputDescriptors = []
        for descriptor in descriptors {
            guard let descriptorID = descriptor["id"]?.stringValue, !descriptorID.isEmpty else {
                throw .invalidRequest("an input descriptor has no id")
            }
            var fields: [Field] = []
            let fieldValues = descriptor["constraints"]?["fields"]?.arrayValue ?? []
            try DCQLQuery.bound(fieldValues.count, DCQLQuery.maximumClaims, "an input descriptor's fields")
            for field in fieldValues {
                let paths = field["path"]?.arrayValue?.compactMap(\.stringValue) ?? []
                try DCQLQuery.bound(paths.count, DCQLQuery.maximumListLength, "an input descriptor field's path")
                guard let element = paths.lazy.compactMap(Self.element(fromPath:)).first else {
                    throw .invalidRequest("an input descriptor field path is not $['namespace']['element']")
                }
                fields.append(
                    Field(
                        element: element, intentToRetain: field["intent_to_retain"]?.boolValue ?? false,
                        optional: field["optional"]?.boolValue ?? false))
            }
            inputDescriptors.append(InputDescriptor(id: descriptorID, fields: fields))
        }
    }

    /// How long a field path may be, in bytes.
    static let maximumPathLength = 1024

    /// `$['org.iso.18013.5.1']['family_name']` (or with double quotes).
    static func element(fromPath path: String) -> ElementID? {
        // Two bracketed names; a longer text is no such path (and is not walked).
        guard path.hasPrefix("$["), path.utf8.count <= maximumPathLength else { return nil }
        var parts: [String] = []
        var rest = Substring(path.dropFirst())
        while !rest.isEmpty {
            guard rest.count >= 4, rest.first == "[", let quote = rest.dropFirst().first, quote == "'" || quote == "\""
            else { return nil }
            let body = rest.dropFirst(2)
            guard let end = body.firstIndex(of: quote), body[body.index(after: end)...].first == "]" else { return nil }
            parts.append(String(body[..<end]))
            guard parts.count <= 2 else { return nil }
            rest = body[body.index(end, offsetBy: 2)...]
        }
        guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else { return nil }
        return ElementID(parts[0], parts[1])
    }

    /// The same request as DCQL: one mso_mdoc credential query per descriptor (id and doc
    /// type = the descriptor id), all fields as claims; when some are optional, the claim
    /// sets are "all fields" then "the required ones".
    public var dcqlQuery: DCQLQuery {
        let credentials = inputDescriptors.map { descriptor -> DCQLQuery.CredentialQuery in
            let claims = descriptor.fields.enumerated().map { index, field in
                DCQLQuery.ClaimQuery(
                    id: "f\(index)", field.element.nameSpace, field.element.identifier,
                    intentToRetain: field.intentToRetain)
            }
            let all = claims.compactMap(\.id)
            let required = zip(descriptor.fields, all).filter { !$0.0.optional }.map(\.1)
            let claimSets = required.count < all.count && !required.isEmpty ? [all, required] : nil
            return DCQLQuery.CredentialQuery(
                id: descriptor.id, doctype: descriptor.id, claims: claims.isEmpty ? nil : claims, claimSets: claimSets)
        }
        // Descriptor ids are doc types (with dots), which DCQL ids may not be: built unchecked.
        return DCQLQuery(unchecked: credentials)
    }
}

extension DCQLQuery {
    /// A query built by this module from a checked source.
    init(unchecked credentials: [CredentialQuery]) {
        self.credentials = credentials
        self.credentialSets = nil
    }
}
