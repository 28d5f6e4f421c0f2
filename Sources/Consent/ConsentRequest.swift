/// How a request reached the holder.
public enum PresentationChannel: String, Sendable, Codable, Hashable, CaseIterable {
    /// ISO 18013-5 proximity presentation over Bluetooth LE.
    case ble
    /// OpenID4VP online presentation.
    case online
    /// OpenID4VCI issuance: an issuer offers credentials; the "requester" is the issuer and the
    /// "elements" are the claims the credential will hold.
    case issuance
}

/// How well the requester proved who it is.
public enum RequesterAuthentication: Sendable, Codable, Hashable {
    /// No reader authentication / an unsigned request.
    case unauthenticated
    /// A signature or certificate was present but did not verify.
    case invalid(reason: String)
    /// Verified, but not chained to a configured anchor (or outside the profile).
    case untrusted(reason: String)
    /// Verified and chained to the configured anchor with this subject.
    case trusted(anchor: String)

    public var isTrusted: Bool {
        if case .trusted = self { return true }
        return false
    }

    /// One line for prompts, logs and history.
    public var summary: String {
        switch self {
        case .unauthenticated: return "not authenticated"
        case .invalid(let r): return "authentication failed: \(r)"
        case .untrusted(let r): return "not trusted: \(r)"
        case .trusted(let anchor): return "trusted by \(anchor)"
        }
    }
}

/// Who is asking. Shown to the user, matched by policy, written to history.
public struct Requester: Sendable, Codable, Hashable {
    /// A short name: the reader certificate's common name, the verifier's client_name, ...
    public var displayName: String
    /// The reader certificate subject or the OpenID4VP client_id.
    public var identifier: String?
    public var authentication: RequesterAuthentication
    /// DER of the requester's certificate chain, leaf first (for `anchor:` policy rules).
    public var certificateChain: [[UInt8]]

    public init(
        displayName: String, identifier: String? = nil, authentication: RequesterAuthentication,
        certificateChain: [[UInt8]] = []
    ) {
        self.displayName = displayName
        self.identifier = identifier
        self.authentication = authentication
        self.certificateChain = certificateChain
    }
}

/// A data element, named as the standard names it: an mdoc's namespace and element
/// identifier, or an SD-JWT VC claim by its path (no namespace; the identifier is the path as
/// `address.locality`, `nationalities[0]`).
public struct ElementID: Sendable, Codable, Hashable, Comparable, CustomStringConvertible {
    public var nameSpace: String
    public var identifier: String

    public init(_ nameSpace: String, _ identifier: String) {
        self.nameSpace = nameSpace
        self.identifier = identifier
    }

    /// An SD-JWT VC claim, by its path.
    public init(claimPath: String) {
        self.init("", claimPath)
    }

    /// `namespace:element`, the form policy files and history use; an SD-JWT VC claim path as
    /// it is.
    public var description: String { nameSpace.isEmpty ? identifier : "\(nameSpace):\(identifier)" }

    /// The order of ``description`` ("namespace:element"), without building it in the common
    /// cases (a response sorts its elements on every presentation).
    public static func < (a: ElementID, b: ElementID) -> Bool {
        if a.nameSpace == b.nameSpace { return a.identifier < b.identifier }
        let left = a.nameSpace.utf8
        let right = b.nameSpace.utf8
        // Where neither namespace starts with the other, they decide alone.
        if !left.starts(with: right) && !right.starts(with: left) { return a.nameSpace < b.nameSpace }
        return a.description < b.description
    }
}

/// One requested element and what the holder can do with it.
public struct RequestedElement: Sendable, Codable, Hashable {
    public var id: ElementID
    /// The requester says it will keep the value.
    public var intentToRetain: Bool
    /// The credential has this element (if not, it cannot be sent whatever the answer).
    public var available: Bool
    /// The request cannot be satisfied without it (OpenID4VP claim sets); BLE requests mark
    /// nothing required.
    public var required: Bool
    /// A name for the user, when the other side gave one (an issuer's claim display name).
    public var displayName: String?

    public init(
        _ id: ElementID, intentToRetain: Bool, available: Bool, required: Bool = false, displayName: String? = nil
    ) {
        self.id = id
        self.intentToRetain = intentToRetain
        self.available = available
        self.required = required
        self.displayName = displayName
    }
}

/// The request for one document.
public struct DocumentRequest: Sendable, Codable, Hashable {
    public var docType: String
    /// The credential that would answer (nil when the holder has none of this doc type).
    public var credentialID: String?
    public var elements: [RequestedElement]
    /// The requester's authentication for this document (ISO 18013-5 authenticates each
    /// DocRequest on its own).
    public var requester: Requester
    /// A name for the user (an issuer's display name of the credential configuration).
    public var displayName: String?

    public init(
        docType: String, credentialID: String?, elements: [RequestedElement], requester: Requester,
        displayName: String? = nil
    ) {
        self.docType = docType
        self.credentialID = credentialID
        self.elements = elements
        self.requester = requester
        self.displayName = displayName
    }
}

/// Everything a consent front-end needs to ask the user, the same for BLE and online.
public struct ConsentRequest: Sendable, Codable, Hashable {
    public var channel: PresentationChannel
    /// Who asks (for several documents: the first one's requester).
    public var requester: Requester
    public var documents: [DocumentRequest]
    /// A warning the front-end must show before anything else (an untrusted reader, ...).
    public var warning: String?

    public init(
        channel: PresentationChannel, requester: Requester, documents: [DocumentRequest], warning: String? = nil
    ) {
        self.channel = channel
        self.requester = requester
        self.documents = documents
        self.warning = warning
    }
}

/// The answer: per document, the elements the holder agreed to send; or no.
public enum ConsentDecision: Sendable, Codable, Hashable {
    case decline
    /// docType => approved elements. A document absent from the map is not sent.
    case approve([String: Set<ElementID>])

    /// The elements approved for `docType` (empty when declined).
    public func approved(for docType: String) -> Set<ElementID> {
        if case .approve(let m) = self { return m[docType] ?? [] }
        return []
    }

    /// Everything requested and available, for "approve all".
    public static func approveAll(_ request: ConsentRequest) -> ConsentDecision {
        var m: [String: Set<ElementID>] = [:]
        for doc in request.documents where doc.credentialID != nil {
            m[doc.docType] = Set(doc.elements.filter(\.available).map(\.id))
        }
        return .approve(m)
    }
}

/// A consent front-end: terminal, D-Bus agent, kiosk policy. Called by the BLE and the
/// online flow alike.
public protocol ConsentPrompt: Sendable {
    func decide(_ request: ConsentRequest) async -> ConsentDecision
}
