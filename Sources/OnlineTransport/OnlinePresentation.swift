import Consent
import Foundation
import JOSE
import MdocCrypto
import OpenID4VP
import Presentation
import Wallet

/// One OpenID4VP 1.0 presentation over HTTPS, from the request URL to the history entry:
///
/// 1. read the URL (``AuthorizationRequestURL``): request by value, Request Object by value,
///    or by reference: GET the request_uri, or POST `wallet_metadata` and a fresh
///    `wallet_nonce` to it;
/// 2. check who sent it (``RequestObjectVerifier``);
/// 3. fix where and how to answer (``ResponseParameters``: response_uri, encryption, the
///    SessionTranscript);
/// 4. choose credentials (``DCQLMatcher``) among the store's valid ones, ask the user
///    (``ConsentPrompt``), build the DeviceResponses for what was approved;
/// 5. POST the response to the response_uri and read an optional `redirect_uri`;
/// 6. write the history (channel online).
///
/// A request refused after step 2 (decline, no matching credential, no usable encryption key,
/// ...) gets an error response at its response_uri, and the history records it. A request
/// refused before its origin is proven is only reported locally, except for errors about its
/// content when the origin is proven from its raw parameters (``ErrorDestination``).
public struct OnlinePresentation: Sendable {
    /// What the flow reports while it runs (for the command line).
    public enum Event: Sendable {
        /// Fetching the Request Object from this host.
        case fetchingRequest(host: String)
        /// The request is verified: who asks and whether the request was signed.
        case verified(requester: Requester, signed: Bool)
        /// The consent front-end is asked.
        case askingConsent
        /// Sending the response or error response to this host.
        case sending(host: String)
    }

    public var verifierTrust: VerifierTrustConfiguration
    /// CA certificates for TLS beside the system trust store (`--tls-ca`).
    public var tlsCAs: [Certificate]
    public var limits: HTTPFetcher.Limits
    /// The clock: credential validity, certificates and `exp` are checked at this time.
    public var now: @Sendable () -> Date

    public init(
        verifierTrust: VerifierTrustConfiguration, tlsCAs: [Certificate] = [],
        limits: HTTPFetcher.Limits = HTTPFetcher.Limits(), now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.verifierTrust = verifierTrust
        self.tlsCAs = tlsCAs
        self.limits = limits
        self.now = now
    }

    /// Runs one presentation (see ``run(url:store:consent:events:)``).
    public static func run(
        url: String, store: CredentialStore, consent: any ConsentPrompt, verifierTrust: VerifierTrustConfiguration,
        tlsCAs: [Certificate] = [], limits: HTTPFetcher.Limits = HTTPFetcher.Limits(),
        events: @escaping @Sendable (Event) -> Void = { _ in }
    ) async throws(OnlinePresentationError) -> OnlineOutcome {
        try await OnlinePresentation(verifierTrust: verifierTrust, tlsCAs: tlsCAs, limits: limits).run(
            url: url, store: store, consent: consent, events: events)
    }

    /// Runs one presentation for the request `url` (as a QR code or link carries it).
    ///
    /// - Returns: what happened: sent, declined, refused (with the error and whether the
    ///   verifier got it), or rejected by the verifier.
    /// - Throws: when the Request Object cannot be fetched, the response cannot be delivered
    ///   (after writing the failure to the history), or the store cannot be read.
    public func run(
        url: String, store: CredentialStore, consent: any ConsentPrompt,
        events: @escaping @Sendable (Event) -> Void = { _ in }
    ) async throws(OnlinePresentationError) -> OnlineOutcome {
        let fetcher: HTTPFetcher
        do {
            fetcher = try HTTPFetcher(additionalTrustRoots: tlsCAs, limits: limits)
        } catch {
            throw .setup(error)
        }
        let flow = Flow(
            presentation: self, fetcher: fetcher, store: store, consent: consent, events: events, time: now())
        return try await flow.run(url: url)
    }
}

/// One run of the flow, with its HTTPS client.
private struct Flow {
    let presentation: OnlinePresentation
    let fetcher: HTTPFetcher
    let store: CredentialStore
    let consent: any ConsentPrompt
    let events: @Sendable (OnlinePresentation.Event) -> Void
    let time: Date

    var verifier: RequestObjectVerifier { RequestObjectVerifier(configuration: presentation.verifierTrust) }

    /// A request that passed verification, or the error and where it may go.
    private enum Obtained {
        case verified(VerifiedAuthorizationRequest)
        case refused(AuthorizationError, ErrorDestination.Target?)
    }

    func run(url: String) async throws(OnlinePresentationError) -> OnlineOutcome {
        // Where the request came from decides where its response_uri may lead.
        var responsePolicy = EndpointPolicy.unrestricted
        switch try await obtain(url, responsePolicy: &responsePolicy) {
        case .refused(let error, let target):
            guard let target else { return OnlineOutcome(result: .refused(error)) }
            let body = ResponseParameters.errorResponse(error, state: target.state)
            var outcome = OnlineOutcome(result: .refused(error))
            await deliverError(body, to: target.responseURI, policy: responsePolicy, into: &outcome)
            return outcome
        case .verified(let verified):
            events(.verified(requester: verified.requester, signed: verified.isSigned))
            return try await answer(verified, policy: responsePolicy)
        }
    }

    // MARK: - Steps 1 and 2: the request and who sent it

    /// The request, verified or refused. `responsePolicy`: where its response_uri may lead:
    /// anywhere for a request the user's URL carries by value (the response_uri is the only
    /// place of the verifier it names), else public addresses and the class of the address
    /// the request_uri answered from.
    private func obtain(_ url: String, responsePolicy: inout EndpointPolicy) async throws(OnlinePresentationError)
        -> Obtained
    {
        let parsed: AuthorizationRequestURL
        do {
            parsed = try AuthorizationRequestURL(url)
        } catch {
            let parameters = Self.queryParameters(url)
            return .refused(
                error,
                parameters.flatMap {
                    ErrorDestination.forParameters($0, error: error, trust: presentation.verifierTrust)
                })
        }
        switch parsed {
        case .byValue(let request):
            do {
                return .verified(try verifier.verify(unsigned: request, at: time))
            } catch {
                let parameters = Self.queryParameters(url)
                return .refused(
                    error,
                    parameters.flatMap {
                        ErrorDestination.forParameters($0, error: error, trust: presentation.verifierTrust)
                    })
            }
        case .requestObject(let jwt, let clientID):
            return verify(jwt, clientID: clientID, walletNonce: nil)
        case .byReference(let uri, let method, let clientID):
            let host: String
            do {
                host = try HTTPFetcher.checkedHost(uri)
            } catch {
                throw .requestFetch(error)
            }
            events(.fetchingRequest(host: host))
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
            return verify(jwt, clientID: clientID, walletNonce: walletNonce)
        }
    }

    private func verify(_ jwt: String, clientID: String, walletNonce: String?) -> Obtained {
        do {
            return .verified(
                try verifier.verify(requestObject: jwt, clientID: clientID, walletNonce: walletNonce, at: time))
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

    // MARK: - Steps 3 to 6: the answer

    private func answer(_ verified: VerifiedAuthorizationRequest, policy: EndpointPolicy)
        async throws(OnlinePresentationError) -> OnlineOutcome
    {
        let request = verified.request
        let requester = verified.requester
        var outcome = OnlineOutcome(result: .sent, requester: requester, isSigned: verified.isSigned)
        let requestedDocTypes = Self.docTypes(of: request.dcqlQuery)

        // Refuses after verification: the error goes to the response_uri; the history keeps it.
        func refuse(_ error: AuthorizationError, docTypes: [String], decision: HistoryDecision) async
            -> OnlineOutcome
        {
            var outcome = outcome
            outcome.result = decision == .declined ? .declined : .refused(error)
            let body = ResponseParameters.errorResponse(error, state: request.state)
            await deliverError(body, to: request.responseURI, policy: policy, into: &outcome)
            record(docTypes.map { ($0, [], decision) }, requester: requester, into: &outcome)
            return outcome
        }

        let parameters: ResponseParameters
        do {
            parameters = try ResponseParameters(request: request)
        } catch {
            return await refuse(error, docTypes: requestedDocTypes, decision: .failed(reason: error.description))
        }
        let credentials: [PresentableCredential]
        let sdJWTs: [PresentableSDJWT]
        do {
            // A row `credentials list` marks damaged is left out, and said once (which and why).
            credentials = try store.presentableCredentials(at: time) { outcome.warnings.append("not presented: \($0)") }
            sdJWTs = try store.presentableSDJWTs(at: time) { outcome.warnings.append("not presented: \($0)") }
        } catch {
            throw .store(error)
        }
        let match: DCQLMatch
        do {
            match = try DCQLMatcher.match(
                request.dcqlQuery, credentials: credentials, sdJWTs: sdJWTs, requester: requester,
                clientMetadata: request.clientMetadata)
        } catch {
            return await refuse(error, docTypes: requestedDocTypes, decision: .failed(reason: error.description))
        }

        events(.askingConsent)
        let decision = await consent.decide(match.consentRequest)
        let matchedDocTypes = match.selections.map(\.credential.docType)
        let body: FormBody
        let records: [PresentationRecord]
        do {
            (body, records) = try parameters.successResponse(for: match, decision: decision)
        } catch {
            if error.code == .accessDenied {
                return await refuse(error, docTypes: matchedDocTypes, decision: .declined)
            }
            // A device key that could not be used: the verifier gets server_error, the holder's
            // log and history the credential and the secure area.
            var refused = await refuse(
                error, docTypes: matchedDocTypes, decision: .failed(reason: error.localDetail ?? error.description))
            if let detail = error.localDetail { refused.warnings.append(detail) }
            return refused
        }

        events(.sending(host: request.responseURIHost ?? "-"))
        let response: HTTPResponse
        do {
            response = try await fetcher.postForm(parameters.responseURI, form: body.encoded, policy: policy)
        } catch {
            let reason = "the response could not be delivered: \(error)"
            record(records.map { ($0.docType, [], .failed(reason: reason)) }, requester: requester, into: &outcome)
            throw .responseDelivery(error)
        }
        outcome.reportedToVerifier = true
        outcome.redirectURI = Self.redirectURI(in: response)
        guard response.isSuccess else {
            outcome.result = .rejectedByVerifier(status: response.status)
            let reason = "the verifier answered HTTP \(response.status)"
            record(records.map { ($0.docType, [], .failed(reason: reason)) }, requester: requester, into: &outcome)
            return outcome
        }
        outcome.records = records
        do {
            try store.record(records, channel: .online, at: time)
        } catch {
            outcome.warnings.append("the history entry could not be written: \(error)")
        }
        return outcome
    }

    /// POSTs an error response (never encrypted); notes a delivery failure as a warning.
    private func deliverError(
        _ body: FormBody, to responseURI: String, policy: EndpointPolicy, into outcome: inout OnlineOutcome
    ) async {
        events(.sending(host: URLComponents(string: responseURI)?.host ?? "-"))
        do {
            let response = try await fetcher.postForm(responseURI, form: body.encoded, policy: policy)
            outcome.reportedToVerifier = true
            outcome.redirectURI = Self.redirectURI(in: response)
            if !response.isSuccess {
                outcome.warnings.append("the verifier answered the error response with HTTP \(response.status)")
            }
        } catch {
            outcome.warnings.append("the error response could not be delivered: \(error)")
        }
    }

    private func record(
        _ entries: [(docType: String, elements: [ElementID], decision: HistoryDecision)], requester: Requester,
        into outcome: inout OnlineOutcome
    ) {
        do {
            for entry in entries {
                try store.record(
                    HistoryEntry(
                        time: time, channel: .online, requester: requester, docType: entry.docType,
                        elementsSent: entry.elements, decision: entry.decision))
            }
        } catch {
            outcome.warnings.append("the history entry could not be written: \(error)")
        }
    }

    /// The doc types of the mdoc queries and the first vct of the SD-JWT VC queries, each once,
    /// in order.
    private static func docTypes(of query: DCQLQuery) -> [String] {
        var seen = Set<String>()
        return query.credentials.compactMap { $0.isMdoc ? $0.doctype : $0.vctValues?.first }.filter {
            seen.insert($0).inserted
        }
    }

    /// `redirect_uri` of a JSON answer, when it is a plausible URL (printable, bounded).
    static func redirectURI(in response: HTTPResponse) -> String? {
        guard !response.body.isEmpty, let json = try? JSONValue(parsing: response.body),
            let uri = json["redirect_uri"]?.stringValue, uri.count <= 4096,
            uri.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value != 0x7F }),
            let components = URLComponents(string: uri), components.scheme != nil
        else { return nil }
        return uri
    }
}
