import Consent
import FoundationEssentials
import OAuthWeb
import OnlineTransport
import OpenID4VP
import Presentation
import SDJWTPresentable
import Wallet

extension OnlinePresentationFlow {
    // MARK: - Steps 3 to 6: the answer

    /// Where and how to answer (3), what matches and what the user approves (4), the
    /// response sent (5) and recorded (6). Refused after verification, the error goes to the
    /// response_uri and the history keeps it.
    func answer(_ verified: VerifiedAuthorizationRequest) async throws(OnlinePresentationError) -> OnlineOutcome {
        let request = verified.request
        var outcome = OnlineOutcome(result: .sent, requester: verified.requester, isSigned: verified.isSigned)
        let requested = Self.docTypes(of: request.dcqlQuery)
        let parameters: ResponseParameters
        let match: DCQLMatch
        do {
            (parameters, match) = try prepare(request, requester: verified.requester, into: &outcome)
        } catch {
            switch error {
            case .refused(let error, let withheld):
                let reason = ([error.description] + withheld).joined(separator: "; ")
                return await refuse(request, error, docTypes: requested, decision: .failed(reason: reason), outcome)
            case .storeUnreadable(let error): throw .store(error)
            }
        }
        events(.askingConsent)
        let decision = await consent.decide(match.consentRequest)
        let body: FormBody
        let records: [PresentationRecord]
        do {
            (body, records) = try parameters.successResponse(for: match, decision: decision)
        } catch {
            let docTypes = match.selections.map(\.credential.docType)
            if error.code == .accessDenied {
                return await refuse(request, error, docTypes: docTypes, decision: .declined, outcome)
            }
            // A device key that could not be used: the verifier gets server_error, the holder's
            // log and history the credential and the secure area.
            var refused = await refuse(
                request, error, docTypes: docTypes, decision: .failed(reason: error.localDetail ?? error.description),
                outcome)
            if let detail = error.localDetail { refused.warnings.append(detail) }
            return refused
        }
        events(.sending(host: request.responseURIHost ?? "-"))
        return try await send(body, records: records, to: parameters.responseURI, outcome)
    }

    /// Why a verified request cannot be answered: refused (the verifier is told), or the
    /// store could not be read.
    private enum Unanswerable: Error {
        /// With why each requested credential left out for its status was (for the history).
        case refused(AuthorizationError, withheld: [String] = [])
        case storeUnreadable(WalletError)
    }

    /// Where and how to answer, and the store's valid credentials the request's DCQL query
    /// matches. A row `credentials list` marks damaged is left out, and said once (which and
    /// why); so is a credential whose last known status is INVALID or SUSPENDED.
    private func prepare(_ request: AuthorizationRequest, requester: Requester, into outcome: inout OnlineOutcome)
        throws(Unanswerable) -> (ResponseParameters, DCQLMatch)
    {
        let parameters: ResponseParameters
        do {
            parameters = try ResponseParameters(request: request)
        } catch {
            throw .refused(error)
        }
        let credentials: [PresentableCredential]
        let sdJWTs: [PresentableSDJWT]
        var warnings: [String] = []
        var withheld: [WithheldCredential] = []
        do {
            credentials = try store.presentableCredentials(
                at: time, unreadable: { warnings.append("not presented: \($0)") }, withheld: { withheld.append($0) })
            sdJWTs = try store.presentableSDJWTs(
                at: time, unreadable: { warnings.append("not presented: \($0)") }, withheld: { withheld.append($0) })
        } catch {
            throw .storeUnreadable(error)
        }
        let requested = Set(Self.docTypes(of: request.dcqlQuery))
        // The doc type is the issuer's text: whoever prints a warning or the history escapes it.
        let reasons = withheld.filter { requested.contains($0.docType) }.map { $0.reason(name: $0.docType) }
        outcome.warnings += warnings + reasons
        let match: DCQLMatch
        do {
            match = try DCQLMatcher.match(
                request.dcqlQuery, credentials: credentials, sdJWTs: sdJWTs, requester: requester,
                clientMetadata: request.clientMetadata)
        } catch {
            throw .refused(error, withheld: reasons)
        }
        return (parameters, match)
    }

    /// Sends the response (5) and records what went out (6).
    private func send(_ body: FormBody, records: [PresentationRecord], to responseURI: String, _ outcome: OnlineOutcome)
        async throws(OnlinePresentationError) -> OnlineOutcome
    {
        var outcome = outcome
        let requester = outcome.requester
        let answer: VerifierClient.Answer
        do {
            answer = try await verifier.post(body, to: responseURI)
        } catch {
            let reason = "the response could not be delivered: \(error)"
            record(records.map { ($0.docType, [], .failed(reason: reason)) }, requester: requester, into: &outcome)
            throw .responseDelivery(error)
        }
        outcome.reportedToVerifier = true
        outcome.redirectURI = answer.redirectURI
        guard answer.isSuccess else {
            outcome.result = .rejectedByVerifier(status: answer.status)
            let reason = "the verifier answered HTTP \(answer.status)"
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

    /// Refuses after verification: the error goes to the response_uri; the history keeps it.
    private func refuse(
        _ request: AuthorizationRequest, _ error: AuthorizationError, docTypes: [String], decision: HistoryDecision,
        _ outcome: OnlineOutcome
    ) async -> OnlineOutcome {
        var outcome = outcome
        outcome.result = decision == .declined ? .declined : .refused(error)
        let body = ResponseParameters.errorResponse(error, state: request.state)
        await deliverError(body, to: request.responseURI, into: &outcome)
        record(docTypes.map { ($0, [], decision) }, requester: outcome.requester, into: &outcome)
        return outcome
    }

    /// POSTs an error response (never encrypted); notes a delivery failure as a warning.
    func deliverError(_ body: FormBody, to responseURI: String, into outcome: inout OnlineOutcome) async {
        events(.sending(host: URLComponents(string: responseURI)?.host ?? "-"))
        do {
            let answer = try await verifier.post(body, to: responseURI)
            outcome.reportedToVerifier = true
            outcome.redirectURI = answer.redirectURI
            if !answer.isSuccess {
                outcome.warnings.append("the verifier answered the error response with HTTP \(answer.status)")
            }
        } catch {
            outcome.warnings.append("the error response could not be delivered: \(error)")
        }
    }

    private func record(
        _ entries: [(docType: String, elements: [ElementID], decision: HistoryDecision)], requester: Requester?,
        into outcome: inout OnlineOutcome
    ) {
        guard let requester else { return }
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
    static func docTypes(of query: DCQLQuery) -> [String] {
        var seen = Set<String>()
        return query.credentials.compactMap { $0.isMdoc ? $0.doctype : $0.vctValues?.first }.filter {
            seen.insert($0).inserted
        }
    }
}
