import BoundedFile

/// What bluetoothd's `main.conf` says about the settings 18013-5 over GATT depends on
/// (docs/bluez-configuration.md). Read to warn, never to refuse: bluetoothd may have been
/// started with another file (`-f`), which cannot be seen from here.
public struct BluetoothdConfiguration: Sendable, Equatable {
    /// Where Debian's and most distributions' bluetoothd reads its configuration.
    public static let defaultPath = "/etc/bluetooth/main.conf"
    /// BlueZ's default for `[GATT] Channels` (5.66: 3, and EATT on).
    public static let defaultGATTChannels = 3

    /// `[GATT] Channels`: ATT bearers per connection; above 1 bluetoothd offers Enhanced ATT.
    public var gattChannels: Int

    public init(gattChannels: Int = Self.defaultGATTChannels) {
        self.gattChannels = gattChannels
    }

    /// Reads `text` in main.conf's INI form (`[Section]`, `Key = value`, `#` comments);
    /// settings it does not name keep BlueZ's defaults.
    public init(parsing text: String) {
        self.init(parsing: Array(text.utf8))
    }

    /// The same over the file's bytes: lines end at LF, CR, VT or FF; spaces and tabs around
    /// names and values are not part of them (the file is ASCII; anything else is compared as
    /// it is and matches nothing). Byte by byte, as it runs on the way to every engagement.
    init(parsing bytes: [UInt8]) {
        self.init()
        var section: ArraySlice<UInt8> = []
        var start = 0
        while start < bytes.count {
            var end = start
            while end < bytes.count, !Self.endsLine(bytes[end]) { end += 1 }
            let line = Self.trimmed(bytes[start..<end])
            start = end + 1
            guard let first = line.first, first != UInt8(ascii: "#"), first != UInt8(ascii: ";") else { continue }
            if first == UInt8(ascii: "["), line.last == UInt8(ascii: "]"), line.count >= 2 {
                section = Self.trimmed(line.dropFirst().dropLast())
                continue
            }
            guard section.elementsEqual("GATT".utf8), let equals = line.firstIndex(of: UInt8(ascii: "=")) else {
                continue
            }
            let key = Self.trimmed(line[..<equals])
            let value = Self.trimmed(line[(equals + 1)...])
            if key.elementsEqual("Channels".utf8), let channels = Int(String(decoding: value, as: UTF8.self)) {
                gattChannels = channels
            }
        }
    }

    private static func endsLine(_ byte: UInt8) -> Bool {
        byte == 0x0A || byte == 0x0D || byte == 0x0B || byte == 0x0C
    }

    private static func trimmed(_ bytes: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        var slice = bytes
        while let first = slice.first, first == 0x20 || first == 0x09 { slice = slice.dropFirst() }
        while let last = slice.last, last == 0x20 || last == 0x09 { slice = slice.dropLast() }
        return slice
    }

    /// The configuration in `path`; nil when it cannot be read (no BlueZ installed here, or
    /// not readable by this user). At most 1 MiB is read.
    public static func read(path: String = defaultPath) -> BluetoothdConfiguration? {
        guard let bytes = try? BoundedFile.read(path, limit: 1 << 20, what: "bluetoothd configuration") else {
            return nil
        }
        return BluetoothdConfiguration(parsing: bytes)
    }

    /// What an operator should change, in words; empty when nothing.
    public func warnings(path: String = defaultPath) -> [String] {
        guard gattChannels > 1 else { return [] }
        return [
            "bluetoothd runs with [GATT] Channels = \(gattChannels) (\(path)): with Enhanced ATT, GATT chunks "
                + "can arrive out of order between two BlueZ stacks and a session then fails; set Channels = 1 "
                + "and restart bluetoothd (docs/bluez-configuration.md)"
        ]
    }
}
