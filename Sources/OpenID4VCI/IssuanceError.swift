/// Why a step of OpenID4VCI issuance cannot go on: what was wrong and what to do.
///
/// Messages name the parameter, member or rule that failed and, for an issuer's OAuth error,
/// its code and description; they never carry a pre-authorized code, a transaction code, an
/// access token, a nonce, a key or a claim value.
public enum IssuanceError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The offer (the QR code or link content) cannot be read.
    case invalidOffer(String)
    /// The issuer's or authorization server's metadata cannot be used.
    case invalidMetadata(String)
    /// An answer of the issuer is not what the protocol says.
    case invalidResponse(endpoint: String, String)
    /// The issuer answered with an OAuth error (RFC 6749 section 5.2, OpenID4VCI sections 6.3,
    /// 8.3.1, 9.3, 11.3).
    case issuer(endpoint: String, OAuthErrorResponse)
    /// The offer needs something this holder does not do.
    case unsupported(String)
    /// The transaction code given does not fit the offer's description of it.
    case invalidTransactionCode(String)

    public var description: String {
        switch self {
        case .invalidOffer(let why):
            return "the credential offer cannot be used: \(why)"
        case .invalidMetadata(let why):
            return "the issuer's metadata cannot be used: \(why)"
        case .invalidResponse(let endpoint, let why):
            return "the issuer's \(endpoint) answer cannot be used: \(why)"
        case .issuer(let endpoint, let error):
            return "the issuer's \(endpoint) refused: \(error)\(error.advice.map { " (\($0))" } ?? "")"
        case .unsupported(let why):
            return "not supported: \(why)"
        case .invalidTransactionCode(let why):
            return "the transaction code \(why)"
        }
    }
}
