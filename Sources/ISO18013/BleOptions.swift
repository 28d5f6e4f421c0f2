import CBOR

/// The options of a BLE device retrieval method (ISO 18013-5 8.2.1.1, BleOptions).
public struct BleOptions: Sendable, Hashable {
    public var peripheralServerMode: Bool
    public var centralClientMode: Bool
    /// Service UUID for mdoc peripheral-server mode (16 bytes, big-endian).
    public var peripheralServerUUID: [UInt8]?
    /// Service UUID for mdoc central-client mode.
    public var centralClientUUID: [UInt8]?
    /// The mdoc's BLE device address for peripheral-server mode (6 bytes).
    public var peripheralServerAddress: [UInt8]?
    /// L2CAP PSM offered by the mdoc (key 21, 2nd-edition drafts).
    public var l2capPSM: UInt64?
    /// Keys we do not interpret, kept in order.
    public var otherEntries: [CBORMapEntry]

    public init(
        peripheralServerMode: Bool, centralClientMode: Bool, peripheralServerUUID: [UInt8]? = nil,
        centralClientUUID: [UInt8]? = nil, peripheralServerAddress: [UInt8]? = nil, l2capPSM: UInt64? = nil,
        otherEntries: [CBORMapEntry] = []
    ) {
        self.peripheralServerMode = peripheralServerMode
        self.centralClientMode = centralClientMode
        self.peripheralServerUUID = peripheralServerUUID
        self.centralClientUUID = centralClientUUID
        self.peripheralServerAddress = peripheralServerAddress
        self.l2capPSM = l2capPSM
        self.otherEntries = otherEntries
    }

    init(cbor: CBOR) throws(ISO18013Error) {
        guard case .map(let entries) = cbor else { throw .invalid(structure: "BleOptions", reason: "not a map") }
        func bool(_ key: Int) throws(ISO18013Error) -> Bool {
            guard let v = cbor[intKey: key] else { return false }
            guard let b = v.boolValue else {
                throw .invalid(structure: "BleOptions", reason: "key \(key) is not a bool")
            }
            return b
        }
        func bytes(_ key: Int, count: Int) throws(ISO18013Error) -> [UInt8]? {
            guard let v = cbor[intKey: key] else { return nil }
            guard let b = v.bytesValue, b.count == count else {
                throw .invalid(structure: "BleOptions", reason: "key \(key) is not a \(count)-byte string")
            }
            return b
        }
        peripheralServerMode = try bool(0)
        centralClientMode = try bool(1)
        peripheralServerUUID = try bytes(10, count: 16)
        centralClientUUID = try bytes(11, count: 16)
        peripheralServerAddress = try bytes(20, count: 6)
        if let psm = cbor[intKey: 21] {
            guard let p = psm.uint64Value else {
                throw .invalid(structure: "BleOptions", reason: "key 21 is not a uint")
            }
            l2capPSM = p
        }
        let known: Set<CBOR> = [0, 1, 10, 11, 20, 21]
        otherEntries = entries.filter { !known.contains($0.key) }
    }

    var cbor: CBOR {
        var e: [(CBOR, CBOR)] = [(0, .bool(peripheralServerMode)), (1, .bool(centralClientMode))]
        if let peripheralServerUUID { e.append((10, .bytes(peripheralServerUUID))) }
        if let centralClientUUID { e.append((11, .bytes(centralClientUUID))) }
        if let peripheralServerAddress { e.append((20, .bytes(peripheralServerAddress))) }
        if let l2capPSM { e.append((21, .unsigned(l2capPSM))) }
        return .map(e.map { CBORMapEntry($0.0, $0.1) } + otherEntries)
    }
}

/// `DeviceRetrievalMethod = [type, version, options]`.
public enum DeviceRetrievalMethod: Sendable, Hashable {
    case ble(version: UInt64, BleOptions)
    /// NFC (1), Wi-Fi Aware (3) or anything else, kept as it came.
    case other(type: UInt64, version: UInt64, options: CBOR)

    public static let bleType: UInt64 = 2

    init(cbor: CBOR) throws(ISO18013Error) {
        guard case .array(let parts) = cbor, parts.count >= 3,
            let type = parts[0].uint64Value, let version = parts[1].uint64Value
        else { throw .invalid(structure: "DeviceRetrievalMethod", reason: "not [type, version, options]") }
        if type == Self.bleType {
            self = .ble(version: version, try BleOptions(cbor: parts[2]))
        } else {
            self = .other(type: type, version: version, options: parts[2])
        }
    }

    var cbor: CBOR {
        switch self {
        case .ble(let v, let o): return .array([.unsigned(Self.bleType), .unsigned(v), o.cbor])
        case .other(let t, let v, let o): return .array([.unsigned(t), .unsigned(v), o])
        }
    }
}
