import BLETransport
import L2CAP

extension L2CAPChannel: MdocL2CAPChannel {}

extension L2CAPListener: MdocL2CAPListener {
    public func accept() async throws -> any MdocL2CAPChannel {
        let channel: L2CAPChannel = try await accept()
        return channel
    }
}
