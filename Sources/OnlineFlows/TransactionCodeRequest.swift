import OnlineTransport
import OpenID4VCI

/// What the holder asks the user (or a consent agent) for when an offer needs a transaction
/// code: which issuer asks, and the offer's description of the code (how it is typed, how
/// long it is, where the user finds it). The answer is a secret: never logged, stored or put
/// into an error.
public struct TransactionCodeRequest: Sendable, Equatable {
    /// The issuer's display name (its metadata), or its host.
    public var issuerName: String
    /// The Credential Issuer Identifier.
    public var issuer: String
    /// The host whose TLS certificate served the issuer's metadata.
    public var tlsHost: String
    /// The offer's `tx_code` object.
    public var code: TransactionCodeDescription

    public init(issuerName: String, issuer: String, tlsHost: String, code: TransactionCodeDescription) {
        self.issuerName = issuerName
        self.issuer = issuer
        self.tlsHost = tlsHost
        self.code = code
    }
}
