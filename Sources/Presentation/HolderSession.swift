import CBOR
import COSE
import Consent
import FoundationEssentials
import ISO18013
import MdocCrypto

/// The holder side of one ISO 18013-5 session, without I/O: reader messages and consent
/// answers in, SessionData bytes and events out. A transport (BLE GATT, L2CAP, in-memory)
/// feeds it; the caller asks the user when it says ``HolderOutput/consentNeeded(_:)``.
///
/// The flow: SessionEstablishment → decrypt DeviceRequest → reader authentication per
/// DocRequest → consent → DeviceResponse with only the approved elements → further
/// requests until the reader or the transport ends the session.
public struct HolderSession: Sendable {
    public enum State: Sendable, Equatable {
        case awaitingEstablishment
        case awaitingRequest
        case awaitingConsent
        case ended(TerminationReason)
    }

    public let engagement: DeviceEngagement
    private let eDeviceKey: PrivateKey
    private let credentials: [PresentableCredential]
    public let configuration: HolderConfiguration
    private let handover: CBOR

    public private(set) var state: State = .awaitingEstablishment
    /// Responses sent so far: a disconnect after one is a completed presentation.
    public private(set) var responsesSent = 0
    public private(set) var transcript: SessionTranscript?

    private var encryption: SessionEncryption?
    private var eReaderKey: COSEKey?
    private var pending: PendingRequest?
    private var lastActivity: Date
    private var consentAskedAt: Date?

    /// - Parameters:
    ///   - engagement: the engagement shown to the reader (its bytes go into the transcript).
    ///   - eDeviceKey: the ephemeral key of that engagement.
    ///   - handover: CBOR null for QR engagement.
    public init(
        engagement: DeviceEngagement, eDeviceKey: PrivateKey, credentials: [PresentableCredential],
        configuration: HolderConfiguration = HolderConfiguration(), handover: CBOR = .null, now: Date = Date()
    ) {
        self.engagement = engagement
        self.eDeviceKey = eDeviceKey
        self.credentials = credentials
        self.configuration = configuration
        self.handover = handover
        self.lastActivity = now
    }

    public var isEnded: Bool {
        if case .ended = state { return true }
        return false
    }

    // MARK: - Inputs

    /// A complete message from the reader (SessionEstablishment first, then SessionData).
    public mutating func receive(_ message: [UInt8], at now: Date = Date()) -> [HolderOutput] {
        guard !isEnded else { return [] }
        lastActivity = now
        guard message.count <= configuration.maxMessageSize else {
            return end(.messageTooLarge(message.count), sending: SessionData(status: .cborDecodingError))
        }
        switch state {
        case .awaitingEstablishment:
            return establish(message, at: now)
        case .awaitingRequest:
            return receiveSessionData(message, at: now)
        case .awaitingConsent:
            // Only a termination may arrive while the user decides.
            if let data = try? SessionData(bytes: message, limits: configuration.decodingLimits),
                data.knownStatus == .sessionTermination
            {
                return end(.readerEnded, sending: nil)
            }
            return end(.unexpectedMessage, sending: SessionData(status: .sessionTermination))
        case .ended:
            return []
        }
    }

    /// The user's answer to the pending ``HolderOutput/consentNeeded(_:)``.
    public mutating func consent(_ decision: ConsentDecision, at now: Date = Date()) -> [HolderOutput] {
        guard state == .awaitingConsent, let request = pending else { return [] }
        pending = nil
        consentAskedAt = nil
        lastActivity = now
        state = .awaitingRequest
        return respond(to: request, decision: decision, terminate: false)
    }

    /// The transport closed (BLE disconnect, State 0x02 from the reader).
    public mutating func transportClosed() -> [HolderOutput] {
        guard !isEnded else { return [] }
        state = .ended(.transportClosed)
        return [.terminated(.transportClosed)]
    }

    /// The holder ends the session: status 20 when a session exists.
    public mutating func end() -> [HolderOutput] {
        guard !isEnded else { return [] }
        return end(.holderEnded, sending: encryption == nil ? nil : SessionData(status: .sessionTermination))
    }

    /// Lets timeouts fire; call it periodically (once a second is plenty).
    public mutating func tick(at now: Date) -> [HolderOutput] {
        switch state {
        case .awaitingConsent:
            if let asked = consentAskedAt, now.timeIntervalSince(asked) >= configuration.consentTimeout / .seconds(1),
                let request = pending
            {
                pending = nil
                return respond(to: request, decision: .decline, terminate: true, reason: .consentTimeout)
            }
        case .awaitingEstablishment, .awaitingRequest:
            if now.timeIntervalSince(lastActivity) >= configuration.sessionIdleTimeout / .seconds(1) {
                return end(.idleTimeout, sending: encryption == nil ? nil : SessionData(status: .sessionTermination))
            }
        case .ended:
            break
        }
        return []
    }

    // MARK: - Session set-up

    private mutating func establish(_ message: [UInt8], at now: Date) -> [HolderOutput] {
        let establishment: SessionEstablishment
        do {
            establishment = try SessionEstablishment(bytes: message, limits: configuration.decodingLimits)
        } catch .sessionEncryption {
            return end(.sessionEncryptionError, sending: SessionData(status: .sessionEncryptionError))
        } catch {
            return end(.decodingError(error.description), sending: SessionData(status: .cborDecodingError))
        }
        // An EReaderKey that cannot be used with this engagement's EDeviceKey (another curve, a
        // point not on its curve) is a session encryption error (status 10), as TS 18013-6 tests.
        let readerKey: PublicKey
        do {
            guard establishment.eReaderKey.curve == engagement.eDeviceKey.curve else {
                return end(.sessionEncryptionError, sending: SessionData(status: .sessionEncryptionError))
            }
            readerKey = try establishment.eReaderKey.publicKey()
        } catch {
            return end(.sessionEncryptionError, sending: SessionData(status: .sessionEncryptionError))
        }
        let transcript = SessionTranscript(
            deviceEngagement: engagement, eReaderKeyBytes: establishment.eReaderKeyBytes, handover: handover)
        do {
            encryption = try SessionEncryption(
                role: .mdoc, privateKey: eDeviceKey, peerKey: readerKey, transcript: transcript)
        } catch {
            return end(.sessionEncryptionError, sending: SessionData(status: .sessionEncryptionError))
        }
        self.transcript = transcript
        self.eReaderKey = establishment.eReaderKey
        state = .awaitingRequest
        return decryptAndHandle(establishment.data, at: now)
    }

    private mutating func receiveSessionData(_ message: [UInt8], at now: Date) -> [HolderOutput] {
        let sessionData: SessionData
        do {
            sessionData = try SessionData(bytes: message, limits: configuration.decodingLimits)
        } catch {
            return end(.decodingError(error.description), sending: SessionData(status: .cborDecodingError))
        }
        if let status = sessionData.status {
            if status == SessionStatus.sessionTermination.rawValue { return end(.readerEnded, sending: nil) }
            return end(.readerReportedError(status), sending: nil)
        }
        guard let data = sessionData.data else { return [] }
        return decryptAndHandle(data, at: now)
    }

    private mutating func decryptAndHandle(_ ciphertext: [UInt8], at now: Date) -> [HolderOutput] {
        let plaintext: [UInt8]
        do {
            plaintext = try encryption!.decrypt(ciphertext)
        } catch {
            return end(.sessionEncryptionError, sending: SessionData(status: .sessionEncryptionError))
        }
        return handleRequest(plaintext, at: now)
    }

    // MARK: - Requests

    private mutating func handleRequest(_ bytes: [UInt8], at now: Date) -> [HolderOutput] {
        let request: DeviceRequest
        do {
            request = try DeviceRequest(
                bytes: configuration.testFaults.requestBytes(bytes, limits: configuration.decodingLimits),
                limits: configuration.decodingLimits)
        } catch {
            // Answer inside the session (DeviceResponse status 11 or 12), then end it.
            let status: DeviceResponseStatus
            if case .cbor = error { status = .cborDecodingError } else { status = .cborValidationError }
            var outputs = sendResponse(DeviceResponse(documents: [], status: status), terminate: true)
            state = .ended(.decodingError(error.description))
            outputs.append(.terminated(.decodingError(error.description)))
            return outputs
        }
        let analysed = PendingRequest.analyse(
            request, transcript: transcript!, credentials: credentials, configuration: configuration, at: now)
        var outputs: [HolderOutput] = [
            .requestReceived(docTypes: request.docRequests.map(\.itemsRequest.docType), requester: analysed.requester)
        ]
        guard let consentRequest = analysed.consentRequest else {
            // Nothing the user could approve: answer at once.
            return outputs + respond(to: analysed, decision: .decline, terminate: false)
        }
        pending = analysed
        consentAskedAt = now
        state = .awaitingConsent
        outputs.append(.consentNeeded(consentRequest))
        return outputs
    }

    private mutating func respond(
        to request: PendingRequest, decision: ConsentDecision, terminate: Bool, reason: TerminationReason? = nil
    ) -> [HolderOutput] {
        let builder = ResponseBuilder(
            transcript: transcript!, eReaderKey: eReaderKey, deviceAuth: configuration.deviceAuth)
        let (response, records) = builder.build(request, decision: decision)
        // A device key that could not be used: status 10 went out, and the session ends.
        let keyFailure = response.status == DeviceResponseStatus.generalError.rawValue
        let terminate = terminate || keyFailure
        var outputs = sendResponse(response, terminate: terminate)
        outputs.append(.responded(records))
        if terminate {
            let why = keyFailure ? .deviceKeyUnusable(Self.keyFailureReason(records)) : reason ?? .holderEnded
            state = .ended(why)
            outputs.append(.terminated(why))
        }
        return outputs
    }

    private mutating func sendResponse(_ response: DeviceResponse, terminate: Bool) -> [HolderOutput] {
        do {
            let ciphertext = try encryption!.encrypt(response.encoded)
            responsesSent += 1
            return [.send(SessionData(data: ciphertext, status: terminate ? .sessionTermination : nil).encoded)]
        } catch {
            state = .ended(.sessionEncryptionError)
            return [.send(SessionData(status: .sessionEncryptionError).encoded), .terminated(.sessionEncryptionError)]
        }
    }

    private mutating func end(_ reason: TerminationReason, sending message: SessionData?) -> [HolderOutput] {
        state = .ended(reason)
        pending = nil
        var outputs: [HolderOutput] = []
        if let message { outputs.append(.send(message.encoded)) }
        outputs.append(.terminated(reason))
        return outputs
    }
}
