import BLETransport
import Foundation
import ISO18013
import Presentation

/// How one request over a ``ReaderConnection`` ended.
public enum ReaderOutcome: Sendable {
    /// The holder's DeviceResponse, verified (look at its validity); `terminated` when our
    /// SessionData status 20 went out (not when the holder had ended the session itself).
    case response(VerifiedResponse, terminated: Bool)
    /// The session ended without a DeviceResponse, for this reason (in words).
    case noResponse(String)
    /// The holder's answer could not be read (it did not decrypt or decode); the holder was
    /// told with status 10 or 11.
    case unreadableResponse(String)
}

extension ReaderConnection {
    /// The reader's loop: sends `establishment`, hands the holder's answer to `reader`, ends
    /// the session (SessionData status 20 after a response, status 10 or 11 when the answer
    /// could not be read: 18013-5 9.1.1.4) and releases the link. Only moves messages between
    /// the channel and the engine.
    ///
    /// - Throws: ``BLEReaderError`` when the request could not be sent, nothing came within
    ///   `timeout`, a chunk was malformed, or the holder disconnected without a word.
    public func exchange(
        _ establishment: [UInt8], with reader: inout ReaderSession, timeout: Duration,
        log: @Sendable (String) -> Void = { _ in }
    ) async throws(BLEReaderError) -> ReaderOutcome {
        let received: Received
        do {
            try await send(establishment)
            log(requestSent(establishment.count))
            received = try await receive(timeout: timeout)
        } catch {
            await close(sending: nil)
            throw error
        }
        switch received {
        case .holderEnded(let byState):
            await close(sending: nil)
            guard byState else { throw .disconnected }
            return .noResponse("the holder ended the session (State 0x02) without a response")
        case .message(let message):
            log("response received: \(message.count) bytes")
            return await answer(message, with: &reader, log: log)
        }
    }

    private func answer(_ message: [UInt8], with reader: inout ReaderSession, log: @Sendable (String) -> Void) async
        -> ReaderOutcome
    {
        let event: ReaderEvent
        do {
            event = try reader.receive(message, at: Date())
        } catch {
            // Tell the holder why, then end.
            let status: SessionStatus =
                if case .sessionEncryption = error { .sessionEncryptionError } else { .cborDecodingError }
            await close(sending: SessionData(status: status).encoded)
            return .unreadableResponse("\(error)")
        }
        switch event {
        case .response(let verified, _, let ended):
            let terminated = await close(sending: ended ? nil : reader.termination())
            log(
                terminated
                    ? "session ended (SessionData status 20), disconnected"
                    : "the holder ended the session; disconnected")
            return .response(verified, terminated: terminated)
        case .ended(let status):
            await close(sending: nil)
            return .noResponse("the holder ended the session (SessionData status \(status)) without a response")
        }
    }

    /// What the log says of the request sent: its size, and on GATT its chunks.
    private func requestSent(_ size: Int) -> String {
        guard let mtu, let fragmenter = try? MessageFragmenter(mtu: mtu) else {
            return "request sent: \(size) bytes on the L2CAP channel"
        }
        return "request sent: \(size) bytes in \(fragmenter.chunkCount(forMessageSize: size)) chunks of at most "
            + "\(fragmenter.chunkSize) bytes"
    }
}
