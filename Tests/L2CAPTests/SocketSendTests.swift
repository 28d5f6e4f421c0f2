import Glibc
import Testing

@testable import L2CAP

/// The socket wrapper's sends on a Unix SOCK_SEQPACKET pair, which keeps packet boundaries as
/// an L2CAP socket does (no Bluetooth needed): one packet is one `send`, a message cut into
/// SDUs arrives as those SDUs, and an empty packet sends nothing.
struct SocketSendTests {
    static func pair() throws -> (L2CAPSocket, L2CAPSocket) {
        var fds: [Int32] = [-1, -1]
        try #require(socketpair(AF_UNIX, Int32(SOCK_SEQPACKET.rawValue), 0, &fds) == 0)
        return (L2CAPSocket(fd: fds[0]), L2CAPSocket(fd: fds[1]))
    }

    @Test func aPacketArrivesWholeAndAnEmptyOneIsNotSent() async throws {
        let (a, b) = try Self.pair()
        let pdu = (0..<300).map { UInt8($0 % 251) }
        try await a.send(packet: [])
        try await a.send(packet: pdu)
        try await a.send(packet: [0x0A])
        #expect(try await b.receive(maximum: 1024) == pdu)
        #expect(try await b.receive(maximum: 1024) == [0x0A])
    }

    @Test func aMessageIsSentAsSDUsOfAtMostTheSize() async throws {
        let (a, b) = try Self.pair()
        let message = (0..<250).map { UInt8($0) }
        try await a.send(message, sduSize: 100)
        #expect(try await b.receive(maximum: 1024) == Array(message[0..<100]))
        #expect(try await b.receive(maximum: 1024) == Array(message[100..<200]))
        #expect(try await b.receive(maximum: 1024) == Array(message[200...]))
    }

    @Test func aPacketToAClosedPeerFailsWithTheSystemError() async throws {
        let (a, b) = try Self.pair()
        b.shutdown()
        let broken = L2CAPError.system(call: "send", errno: EPIPE, message: String(cString: strerror(EPIPE)))
        await #expect(throws: broken) { try await a.send(packet: [1, 2, 3]) }
        await #expect(throws: broken) { try await a.send([1, 2, 3], sduSize: 2) }
    }
}
