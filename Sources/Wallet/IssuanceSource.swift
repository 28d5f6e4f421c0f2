import FoundationEssentials
import OAuthWeb
import SecureArea

/// One copy of a credential an issuer sent, with the key it was asked for (made in a secure
/// area for this issuance, not stored yet).
public struct ReceivedCopy: Sendable {
    /// The IssuerSigned CBOR as received.
    public var issuerSignedBytes: [UInt8]
    public var key: StoredKey

    public init(issuerSignedBytes: [UInt8], key: StoredKey) {
        self.issuerSignedBytes = issuerSignedBytes
        self.key = key
    }
}

/// Where a received credential came from: what the store keeps beside it.
///
/// `description` names the issuer only, never the token.
public struct IssuanceSource: Sendable, Hashable, CustomStringConvertible {
    /// The Credential Issuer Identifier.
    public var issuer: String
    /// The issuer's display name (metadata), or its host.
    public var issuerName: String
    /// `notification_id` and the notification endpoint, when the issuer wants notifications.
    public var notificationID: String?
    public var notificationEndpoint: String?
    /// The access token a later `credential_deleted` notification is sent with: kept only for
    /// a Bearer token (a DPoP-bound token needs the issuance's ephemeral key, which is gone).
    /// A secret: stored in the 0600 store, deleted with the credential, never shown.
    public var notificationToken: String?
    public var description: String { "IssuanceSource(\(issuer))" }

    /// How the issuer was authenticated, for the history (its TLS host).
    public var authentication: String {
        IssuerIdentifier.host(issuer).map { "TLS certificate of \($0)" } ?? "TLS"
    }

    public init(
        issuer: String, issuerName: String, notificationID: String? = nil, notificationEndpoint: String? = nil,
        notificationToken: String? = nil
    ) {
        self.issuer = issuer
        self.issuerName = issuerName
        self.notificationID = notificationID
        self.notificationEndpoint = notificationEndpoint
        self.notificationToken = notificationToken
    }
}

/// The notification a deleted credential owes its issuer (OpenID4VCI `credential_deleted`).
///
/// `description` never shows the token.
public struct PendingNotification: Sendable, Hashable, CustomStringConvertible {
    public var notificationID: String
    public var endpoint: String
    public var issuer: String
    /// The Bearer access token of the issuance (a secret).
    public var token: String

    public var description: String { "PendingNotification(\(issuer))" }
}
