import FoundationEssentials
import JOSE
import OAuthWeb
import OpenID4VP

/// The verifier's two endpoints as async calls (OpenID4VP 1.0): its `request_uri` (the
/// Request Object, by GET or by POST of `wallet_metadata` and a fresh `wallet_nonce`) and its
/// `response_uri` (the response or the error response, a form).
///
/// Where the `response_uri` may lead (``responsePolicy``): anywhere for a request the user's
/// URL carries by value (the response_uri is the only place of the verifier it names), else
/// public addresses and the class of the address the request_uri answered from.
public struct VerifierClient: Sendable {
    public let fetcher: HTTPFetcher
    public var responsePolicy = EndpointPolicy.unrestricted

    public init(fetcher: HTTPFetcher) {
        self.fetcher = fetcher
    }

    /// What a request_uri answered: the Request Object and the `wallet_nonce` sent for it.
    public struct FetchedRequest: Sendable {
        public var jwt: String
        public var walletNonce: String?
    }

    /// What the response_uri answered.
    public struct Answer: Sendable {
        public var status: Int
        public var isSuccess: Bool
        /// `redirect_uri` of a JSON answer, where the user continues.
        public var redirectURI: String?
    }

    /// The host of `uri`, when it is an https URL.
    public static func host(of uri: String) throws(OnlinePresentationError) -> String {
        do {
            return try HTTPFetcher.checkedHost(uri)
        } catch {
            throw .requestFetch(error)
        }
    }

    /// The Request Object at `uri`.
    public mutating func requestObject(
        at uri: String, method: AuthorizationRequestURL.RequestURIMethod, clientID: String
    ) async throws(OnlinePresentationError) -> FetchedRequest {
        let host = try Self.host(of: uri)
        let response: HTTPResponse
        var walletNonce: String?
        do {
            switch method {
            case .get:
                response = try await fetcher.get(uri, accept: WalletMetadata.accept)
            case .post:
                let nonce = WalletMetadata.makeWalletNonce()
                walletNonce = nonce
                let body = WalletMetadata.requestURIBody(walletNonce: nonce, clientID: clientID)
                response = try await fetcher.postForm(uri, form: body.encoded, accept: WalletMetadata.accept)
            }
        } catch {
            throw .requestFetch(error)
        }
        responsePolicy = EndpointPolicy(namedBy: "the verifier", partyAddress: response.remoteAddress)
        guard response.status == 200 else {
            throw .requestURIAnswer(host: host, reason: "answered HTTP \(response.status)")
        }
        guard let jwt = String(validating: response.body, as: UTF8.self) else {
            throw .requestURIAnswer(host: host, reason: "answered with something that is not a Request Object")
        }
        return FetchedRequest(jwt: jwt, walletNonce: walletNonce)
    }

    /// POSTs a response or an error response (a form) to `responseURI`.
    public func post(_ body: FormBody, to responseURI: String) async throws(HTTPFetchError) -> Answer {
        let response = try await fetcher.postForm(responseURI, form: body.encoded, policy: responsePolicy)
        return Answer(
            status: response.status, isSuccess: response.isSuccess, redirectURI: Self.redirectURI(in: response))
    }

    /// `redirect_uri` of a JSON answer, when it is a plausible URL (printable, bounded).
    public static func redirectURI(in response: HTTPResponse) -> String? {
        guard !response.body.isEmpty, let json = try? JSONValue(parsing: response.body),
            let uri = json["redirect_uri"]?.stringValue, uri.count <= 4096,
            uri.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value != 0x7F }),
            let components = URLComponents(string: uri), components.scheme != nil
        else { return nil }
        return uri
    }
}
