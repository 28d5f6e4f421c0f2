import Consent
import FoundationEssentials
import ISO18013
import MdocCrypto

/// A decrypted DeviceRequest, with each DocRequest's reader authentication, the credential
/// that would answer it, and whether policy refuses it before the user is asked.
///
/// Second-edition requests ("1.1") are matched with ``OptionMatching``: an element the
/// credential lacks is answered by the first `alternativeDataElements` set it holds whole,
/// `issuerIdentifiers` restrict the credentials, and each use case of `deviceRequestInfo`
/// is answered by its first document set whose documents can all be answered. A "1.0"
/// request is matched as the first edition says (its `requestInfo` keys are not read).
struct PendingRequest: Sendable {
    struct Doc: Sendable {
        var docRequest: DocRequest
        var requester: Requester
        var credential: PresentableCredential?
        /// Why policy refuses this document without asking, if it does.
        var refusal: String?
        /// What the user is asked for this document: each requested element (available or
        /// not) and the alternatives answering in place of missing ones.
        var elements: [RequestedElement]
        /// `maximumResponseSize` of this DocRequest (second edition).
        var maximumResponseSize: Int?
        /// The use case this document answers, for the history.
        var useCase: ConsentUseCase?

        init(
            docRequest: DocRequest, requester: Requester, credential: PresentableCredential?, refusal: String?,
            info: DocRequestInfo = DocRequestInfo()
        ) {
            self.docRequest = docRequest
            self.requester = requester
            self.credential = credential
            self.refusal = refusal
            self.elements = RequestMatching.elements(docRequest.itemsRequest, info: info, credential: credential)
            self.maximumResponseSize = info.maximumResponseSize
        }
    }

    var docs: [Doc]
    var requester: Requester
    var consentRequest: ConsentRequest?
    /// The use cases of a second-edition request, as the user is shown them.
    var useCases: [ConsentUseCase] = []

    /// The smallest `maximumResponseSize` of the documents that may be answered.
    var maximumResponseSize: Int? { docs.filter { $0.refusal == nil }.compactMap(\.maximumResponseSize).min() }

    static func analyse(
        _ request: DeviceRequest, transcript: SessionTranscript, credentials: [PresentableCredential],
        configuration: HolderConfiguration, at now: Date
    ) -> PendingRequest {
        var docs: [Doc] = []
        var warnings: [String] = []
        let secondEdition = !DeviceRequest.isFirstEdition(request.version)
        for docRequest in request.docRequests {
            let auth = configuration.testFaults.authentication(
                ReaderAuthentication.verify(
                    docRequest: docRequest, in: request, transcript: transcript,
                    trustAnchors: configuration.readerTrustAnchors, at: now),
                docRequest: docRequest, in: request, trustAnchors: configuration.readerTrustAnchors, at: now)
            let requester = Requester(auth)
            var refusal: String?
            if !auth.isTrusted {
                switch configuration.untrustedReaders {
                case .refuse: refusal = "reader refused by policy (\(requester.authentication.summary))"
                case .ask: warnings.append("The reader is \(requester.authentication.summary).")
                case .allow: break
                }
            }
            var info = DocRequestInfo()
            if secondEdition {
                do {
                    info = try docRequest.itemsRequest.docRequestInfo()
                    configuration.testFaults.apply(to: &info)
                } catch {
                    refusal = refusal ?? "unreadable requestInfo: \(error)"
                }
            }
            let credential = RequestMatching.credential(for: docRequest.itemsRequest, info: info, among: credentials)
            docs.append(
                Doc(docRequest: docRequest, requester: requester, credential: credential, refusal: refusal, info: info))
        }
        let useCases = RequestMatching.applyUseCases(request, to: &docs)
        let requester = docs.first?.requester ?? Requester(ReaderAuthenticationResult.absent)
        let askable = docs.filter { $0.refusal == nil && $0.credential != nil }
        var consentRequest: ConsentRequest?
        if !askable.isEmpty {
            let documents = askable.map { doc in
                DocumentRequest(
                    docType: doc.docRequest.itemsRequest.docType, credentialID: doc.credential!.id,
                    elements: doc.elements, requester: doc.requester)
            }
            consentRequest = ConsentRequest(
                channel: .ble, requester: askable[0].requester, documents: documents,
                warning: warnings.isEmpty ? nil : Array(Set(warnings)).sorted().joined(separator: " "),
                useCases: useCases)
        }
        return PendingRequest(docs: docs, requester: requester, consentRequest: consentRequest, useCases: useCases)
    }
}

extension Requester {
    /// The requester as reader authentication describes it.
    init(_ auth: ReaderAuthenticationResult) {
        let chain = auth.chain.map(\.der)
        let subject = auth.readerSubject
        let name = subject.flatMap(Self.commonName) ?? subject ?? "unauthenticated reader"
        switch auth.status {
        case .absent:
            self.init(displayName: "unauthenticated reader", authentication: .unauthenticated)
        case .trusted:
            self.init(
                displayName: name, identifier: subject,
                authentication: .trusted(anchor: auth.trustAnchor?.subject ?? "a configured reader root"),
                certificateChain: chain)
        case .untrusted:
            self.init(
                displayName: name, identifier: subject,
                authentication: .untrusted(reason: auth.failure ?? "not trusted"), certificateChain: chain)
        case .invalid:
            self.init(
                displayName: name, identifier: subject,
                authentication: .invalid(reason: auth.failure ?? "invalid"), certificateChain: chain)
        }
    }

    /// The CN of an RFC 2253 subject ("C=US,CN=reader" → "reader"). Each part is trimmed of
    /// what Foundation's `.whitespaces` holds (the space separators and the tab) without
    /// Foundation's bridging, which cost more than the rest of this initializer together.
    static func commonName(_ subject: String) -> String? {
        for part in subject.split(separator: ",") {
            var scalars = part.unicodeScalars[...]
            while let first = scalars.first, isBlank(first) { scalars.removeFirst() }
            while let last = scalars.last, isBlank(last) { scalars.removeLast() }
            let trimmed = Substring(scalars)
            if trimmed.hasPrefix("CN=") { return String(trimmed.dropFirst(3)) }
        }
        return nil
    }

    /// Whether `scalar` is in Foundation's `CharacterSet.whitespaces`: a space separator (Zs),
    /// the tab, or U+200B ZERO WIDTH SPACE (Zs in the Unicode tables Foundation keeps; checked
    /// against Foundation for every scalar).
    private static func isBlank(_ scalar: Unicode.Scalar) -> Bool {
        scalar == "\t" || scalar == "\u{200B}" || scalar.properties.generalCategory == .spaceSeparator
    }
}
