import Foundation

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
        self.init()
        var section = ""
        for raw in text.split(whereSeparator: \.isNewline) {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.isEmpty || line.hasPrefix("#") || line.hasPrefix(";") { continue }
            if line.hasPrefix("["), line.hasSuffix("]") {
                section = String(line.dropFirst().dropLast()).trimmingCharacters(in: .whitespaces)
                continue
            }
            guard section == "GATT", let equals = line.firstIndex(of: "=") else { continue }
            let key = line[..<equals].trimmingCharacters(in: .whitespaces)
            let value = line[line.index(after: equals)...].trimmingCharacters(in: .whitespaces)
            if key == "Channels", let channels = Int(value) { gattChannels = channels }
        }
    }

    /// The configuration in `path`; nil when it cannot be read (no BlueZ installed here, or
    /// not readable by this user). At most 1 MiB is read.
    public static func read(path: String = defaultPath) -> BluetoothdConfiguration? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        guard let data = try? handle.read(upToCount: 1 << 20) else { return nil }
        return BluetoothdConfiguration(parsing: String(decoding: data, as: UTF8.self))
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
