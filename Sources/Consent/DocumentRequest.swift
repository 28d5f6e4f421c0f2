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
    /// The requested element this one answers in its place, when the credential lacks that
    /// one and holds this alternative (ISO 18013-5 second edition `alternativeDataElements`).
    public var alternativeFor: ElementID?

    public init(
        _ id: ElementID, intentToRetain: Bool, available: Bool, required: Bool = false, displayName: String? = nil,
        alternativeFor: ElementID? = nil
    ) {
        self.id = id
        self.intentToRetain = intentToRetain
        self.available = available
        self.required = required
        self.displayName = displayName
        self.alternativeFor = alternativeFor
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
