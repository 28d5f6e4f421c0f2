/// The two forms of a Status List Token (draft-ietf-oauth-status-list sections 5.1 and 5.2).
public enum StatusListFormat: String, Sendable, Hashable, CaseIterable {
    /// A CWT in a COSE_Sign1, `application/statuslist+cwt`: what an mdoc's MSO refers to.
    case cwt
    /// A JWT, `application/statuslist+jwt`: what an SD-JWT VC refers to.
    case jwt

    /// The media type to ask for (`Accept`) and to expect.
    public var mediaType: String {
        switch self {
        case .cwt: return "application/statuslist+cwt"
        case .jwt: return "application/statuslist+jwt"
        }
    }

    /// The JWT `typ` header value.
    static let jwtType = "statuslist+jwt"
}
