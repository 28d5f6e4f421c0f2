import FoundationEssentials
import OAuthWeb
import PrintableText

/// What a QR code or link of a Credential Offer carries (OpenID4VCI 1.0 section 4.1): the offer
/// by value (`credential_offer`) or by reference (`credential_offer_uri`, fetched with GET),
/// under `openid-credential-offer://`, another custom scheme, or an https URL.
public enum CredentialOfferURL: Sendable, Equatable {
    case byValue(CredentialOffer)
    /// The https URL the offer is fetched from.
    case byReference(String)

    /// The media type a `credential_offer_uri` answers with.
    public static let accept = "application/json"

    /// Reads an offer URL.
    ///
    /// - Throws: ``IssuanceError/invalidOffer(_:)`` for a URL without exactly one of
    ///   `credential_offer` and `credential_offer_uri`, a repeated parameter, an offer that is
    ///   not valid JSON, or a `credential_offer_uri` that is not https.
    public init(_ text: String) throws(IssuanceError) {
        let trimmed = text.trimmingWhitespace()
        guard let colon = trimmed.firstIndex(of: ":"), colon != trimmed.startIndex else {
            throw .invalidOffer("it is not a URL (openid-credential-offer://?credential_offer=... or https://...)")
        }
        let beforeFragment = trimmed.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)[0]
        guard let question = beforeFragment.firstIndex(of: "?") else {
            throw .invalidOffer("the URL has no credential_offer or credential_offer_uri parameter")
        }
        guard let pairs = FormEncoding.decode(beforeFragment[beforeFragment.index(after: question)...]) else {
            throw .invalidOffer("the URL's query is not validly percent-encoded")
        }
        var parameters: [String: String] = [:]
        for (name, value) in pairs where name == "credential_offer" || name == "credential_offer_uri" {
            guard parameters.updateValue(value, forKey: name) == nil else {
                throw .invalidOffer("\(name) appears more than once")
            }
        }
        switch (parameters["credential_offer"], parameters["credential_offer_uri"]) {
        case (let offer?, nil):
            self = .byValue(try CredentialOffer(jsonText: offer))
        case (nil, let uri?):
            guard let url = ParsedURL(uri), url.scheme == "https", !url.host.isEmpty else {
                throw .invalidOffer("credential_offer_uri must be an https URL")
            }
            self = .byReference(uri)
        case (.some, .some):
            throw .invalidOffer("the URL has both credential_offer and credential_offer_uri")
        case (nil, nil):
            throw .invalidOffer("the URL has no credential_offer or credential_offer_uri parameter")
        }
    }
}
