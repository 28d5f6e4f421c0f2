import Glibc
import Testing

@testable import L2CAP

/// What libbluetooth's str2ba and hci_devid did, done here without the library: the address in
/// `sockaddr_l2` least significant byte first (the kernel's bdaddr_t), adapters named `hciN`.
struct SocketAddressTests {
    @Test func theAddressGoesIntoSockaddrL2LeastSignificantByteFirst() throws {
        let address = try BluetoothDeviceAddress("AA:BB:CC:DD:EE:01", kind: .leRandom)
        let bytes = withUnsafeBytes(of: L2CAPSocket.socketAddress(address, psm: 0x0081)) { Array($0) }
        // sockaddr_l2: family (2 bytes), PSM (2, little endian), bdaddr (6), CID (2), address type (1).
        #expect(bytes[0..<2] == [UInt8(AF_BLUETOOTH), 0])
        #expect(bytes[2..<4] == [0x81, 0x00])
        #expect(bytes[4..<10] == [0x01, 0xEE, 0xDD, 0xCC, 0xBB, 0xAA])
        #expect(bytes[12] == 2)  // BDADDR_LE_RANDOM
    }

    @Test func anAdapterIsNamedHciAndANumber() {
        for name in ["", "hci", "wlan0", "hcix", "00:11:22:33:44:55"] {
            #expect(
                throws: L2CAPError.system(
                    call: "find the adapter \(name)", errno: ENODEV, message: String(cString: strerror(ENODEV)))
            ) {
                try BluetoothDeviceAddress.ofAdapter(name)
            }
        }
    }
}
