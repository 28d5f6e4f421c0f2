import Consent
import FoundationEssentials
import OAuthWeb
import OnlineTransport
import OpenID4VP
import Wallet

/// One run of ``OnlinePresentation``: the request verified (steps 1 and 2), then answered
/// (steps 3 to 6), over a ``VerifierClient``.
struct OnlinePresentationFlow {
    let presentation: OnlinePresentation
    var verifier: VerifierClient
    let store: CredentialStore
    let consent: any ConsentPrompt
    let events: @Sendable (OnlinePresentation.Event) -> Void
    let time: Date

    var requestVerifier: RequestObjectVerifier { RequestObjectVerifier(configuration: presentation.verifierTrust) }

    /// A request that passed verification, or the error and where it may go.
    enum Obtained {
        case verified(VerifiedAuthorizationRequest)
        case refused(AuthorizationError, ErrorDestination.Target?)
    }

    mutating func run(url: String) async throws(OnlinePresentationError) -> OnlineOutcome {
        switch try await obtain(url) {
        case .refused(let error, let target):
            var outcome = OnlineOutcome(result: .refused(error))
            if let target {
                let body = ResponseParameters.errorResponse(error, state: target.state)
                await deliverError(body, to: target.responseURI, into: &outcome)
            }
            return outcome
        case .verified(let verified):
            events(.verified(requester: verified.requester, signed: verified.isSigned))
            return try await answer(verified)
        }
    }

    // MARK: - Steps 1 and 2: the request and who sent it

    /// The request, verified or refused.
    private mutating func obtain(_ url: String) async throws(OnlinePresentationError) -> Obtained {
        let parsed: AuthorizationRequestURL
        do {
            parsed = try AuthorizationRequestURL(url)
        } catch {
            return refused(error, url: url)
        }
        switch parsed {
        case .byValue(let request):
            do {
                return .verified(try requestVerifier.verify(unsigned: request, at: time))
            } catch {
                return refused(error, url: url)
            }
        case .requestObject(let jwt, let clientID):
            return verify(jwt, clientID: clientID, walletNonce: nil)
        case .byReference(let uri, let method, let clientID):
            events(.fetchingRequest(host: try VerifierClient.host(of: uri)))
            let fetched = try await verifier.requestObject(at: uri, method: method, clientID: clientID)
            return verify(fetched.jwt, clientID: clientID, walletNonce: fetched.walletNonce)
        }
    }

    /// A request the user's URL carries refused: its error goes where its raw parameters say,
    /// when they prove its origin (``ErrorDestination``).
    private func refused(_ error: AuthorizationError, url: String) -> Obtained {
        .refused(
            error,
            Self.queryParameters(url).flatMap {
                ErrorDestination.forParameters($0, error: error, trust: presentation.verifierTrust)
            })
    }

    private func verify(_ jwt: String, clientID: String, walletNonce: String?) -> Obtained {
        do {
            return .verified(
                try requestVerifier.verify(requestObject: jwt, clientID: clientID, walletNonce: walletNonce, at: time))
        } catch {
            return .refused(
                error,
                ErrorDestination.forRequestObject(
                    jwt, clientID: clientID, walletNonce: walletNonce, error: error,
                    trust: presentation.verifierTrust, at: time))
        }
    }

    /// The query parameters of a request URL (nil when it has none or they repeat).
    private static func queryParameters(_ url: String) -> [String: String]? {
        let beforeFragment = url.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)[0]
        guard let question = beforeFragment.firstIndex(of: "?"),
            let pairs = FormEncoding.decode(beforeFragment[beforeFragment.index(after: question)...])
        else { return nil }
        var parameters: [String: String] = [:]
        for (name, value) in pairs {
            guard parameters.updateValue(value, forKey: name) == nil else { return nil }
        }
        return parameters
    }
}
