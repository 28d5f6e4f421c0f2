/// A Bluetooth UUID in BlueZ's text form: 128-bit, lowercase, 8-4-4-4-12.
///
/// 16- and 32-bit short forms (`"180d"`, `"0x180D"`, `"0000180d"`) expand with the
/// Bluetooth base UUID, as BlueZ does.
public struct BluetoothUUID: Hashable, Sendable, Comparable, CustomStringConvertible, ExpressibleByStringLiteral {
    /// The 36-character lowercase form.
    public let rawValue: String

    public init?(_ string: String) {
        var text = string.lowercased()
        if text.hasPrefix("0x") { text.removeFirst(2) }
        let hexDigits = Set("0123456789abcdef")
        if (1...8).contains(text.count), text.allSatisfy({ hexDigits.contains($0) }) {
            rawValue = String(repeating: "0", count: 8 - text.count) + text + "-0000-1000-8000-00805f9b34fb"
            return
        }
        let characters = Array(text)
        guard characters.count == 36 else { return nil }
        for (index, character) in characters.enumerated() {
            if [8, 13, 18, 23].contains(index) {
                guard character == "-" else { return nil }
            } else {
                guard hexDigits.contains(character) else { return nil }
            }
        }
        rawValue = text
    }

    /// For literals in code; a malformed literal is a programming error and traps.
    public init(stringLiteral value: String) {
        guard let uuid = BluetoothUUID(value) else { preconditionFailure("malformed Bluetooth UUID literal") }
        self = uuid
    }

    public var description: String { rawValue }

    public static func < (lhs: BluetoothUUID, rhs: BluetoothUUID) -> Bool { lhs.rawValue < rhs.rawValue }
}
