import Foundation
import L2CAP
import Testing

/// The L2CAP socket wrapper. On a kernel without Bluetooth (these build machines) every
/// socket fails with ``L2CAPError/bluetoothUnavailable``, the error callers fall back to GATT
/// on; with Bluetooth (the VM tier) a listener gets a dynamic LE PSM. Which kernel this is
/// comes from /proc/net/protocols (the L2CAP protocol is listed once Bluetooth is loaded).
struct L2CAPTests {
    static let kernelHasL2CAP: Bool = {
        guard let text = try? String(contentsOfFile: "/proc/net/protocols", encoding: .utf8) else { return false }
        return text.split(separator: "\n").contains { $0.hasPrefix("L2CAP") }
    }()

    @Test func readsAndWritesDeviceAddresses() throws {
        let a = try BluetoothDeviceAddress("00:00:00:00:aa:01", kind: .leRandom)
        #expect(a.bytes == [0, 0, 0, 0, 0xAA, 0x01])
        #expect(a.description == "00:00:00:00:AA:01")
        #expect(a.kind == .leRandom)
        for bad in ["", "00:00:00:00:AA", "00:00:00:00:AA:01:02", "00:00:00:00:AA:G1", "000:00:00:00:AA:1"] {
            #expect(throws: L2CAPError.invalidAddress(bad)) { try BluetoothDeviceAddress(bad) }
        }
    }

    @Test func aListenerGetsADynamicPSMOrSaysBluetoothIsMissing() throws {
        switch Result(catching: { () throws(L2CAPError) -> L2CAPListener in try L2CAPListener() }) {
        case .success(let listener):
            #expect(Self.kernelHasL2CAP)
            #expect((0x0080...0x00FF).contains(listener.psm))
            listener.close()
        case .failure(let error):
            #expect(error == .bluetoothUnavailable)
            #expect(!Self.kernelHasL2CAP)
            #expect("\(error)".contains("use GATT"))
        }
    }

    @Test func connectingChecksThePSMFirst() async throws {
        let address = try BluetoothDeviceAddress("00:00:00:00:AA:01")
        await #expect(throws: L2CAPError.invalidPSM(0x1001)) {
            try await L2CAPChannel.connect(to: address, psm: 0x1001)
        }
    }

    @Test func connectingWithoutBluetoothFailsClearly() async throws {
        guard !Self.kernelHasL2CAP else { return }  // the VM tier proves the real path
        let address = try BluetoothDeviceAddress("00:00:00:00:AA:01")
        await #expect(throws: L2CAPError.bluetoothUnavailable) {
            try await L2CAPChannel.connect(to: address, psm: 0x0081)
        }
    }

    @Test func aClosedListenerStopsAccepting() async throws {
        guard let listener = try? L2CAPListener() else {
            #expect(!Self.kernelHasL2CAP)
            return
        }
        let accepted = Task { () async throws(L2CAPError) -> L2CAPChannel in try await listener.accept() }
        try await Task.sleep(for: .milliseconds(100))
        listener.close()
        await #expect(throws: L2CAPError.closed) { _ = try await accepted.value }
    }
}
