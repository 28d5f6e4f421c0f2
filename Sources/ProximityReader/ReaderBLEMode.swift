import BLETransport
import ISO18013

/// The ISO 18013-5 BLE mode the reader uses with one holder, and the service UUID of it.
public enum ReaderBLEMode: Sendable, Equatable {
    /// mdoc peripheral-server mode: the holder serves `serviceUUID`; we connect.
    case peripheralServer(BluetoothUUID)
    /// mdoc central-client mode: we serve `serviceUUID` with our Ident; the holder connects.
    case centralClient(BluetoothUUID)

    /// `request --mode`.
    public enum Choice: String, Sendable, CaseIterable {
        case auto
        case peripheral
        case central
    }

    /// The mode to use with an engagement: the chosen one if offered; with `auto`,
    /// peripheral-server mode when offered (what every holder supports), else central-client.
    public init(choosing choice: Choice, from options: BleOptions) throws(BLEReaderError) {
        let peripheral = options.peripheralServerMode ? options.peripheralServerUUID : nil
        let central = options.centralClientMode ? options.centralClientUUID : nil
        switch choice {
        case .auto:
            if let bytes = peripheral {
                self = .peripheralServer(try Self.uuid(bytes, "peripheral-server"))
            } else if let bytes = central {
                self = .centralClient(try Self.uuid(bytes, "central-client"))
            } else {
                throw .engagement("the engagement offers neither BLE mode with a service UUID")
            }
        case .peripheral:
            guard let bytes = peripheral else {
                throw .engagement("the engagement does not offer mdoc peripheral-server mode (--mode peripheral)")
            }
            self = .peripheralServer(try Self.uuid(bytes, "peripheral-server"))
        case .central:
            guard let bytes = central else {
                throw .engagement("the engagement does not offer mdoc central-client mode (--mode central)")
            }
            self = .centralClient(try Self.uuid(bytes, "central-client"))
        }
    }

    private static func uuid(_ bytes: [UInt8], _ name: String) throws(BLEReaderError) -> BluetoothUUID {
        guard let uuid = BluetoothUUID(bytes: bytes) else {
            throw .engagement("the engagement's \(name) UUID is not 16 bytes")
        }
        return uuid
    }
}
