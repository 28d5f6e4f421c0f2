import FoundationEssentials
import MdocCrypto
import OnlineTransport
import TokenStatusList

/// What finds a credential's status in its issuer's Token Status List: the
/// ``StatusListResolver`` (HTTPS, verification, cache), or a double in tests.
public protocol CredentialStatusChecking: Sendable {
    /// The status `reference` points at, from a token of `format` whose signer chains to
    /// `trustAnchors`, checked at `time`; `.unknown` with a printable reason when the list
    /// cannot be fetched, verified or read.
    func check(_ reference: StatusReference, format: StatusListFormat, trustAnchors: [Certificate], at time: Date)
        async -> StatusCheck
}

extension StatusListResolver: CredentialStatusChecking {}
