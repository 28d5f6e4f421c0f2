import FoundationEssentials

/// The TSS2 PRIVATE KEY blob (the tpm2 provider's key file) between its PEM form, which the
/// provider reads and writes, and the DER the store keeps.
enum TSS2Blob {
    static let label = "TSS2 PRIVATE KEY"

    /// The DER inside a "BEGIN TSS2 PRIVATE KEY" PEM.
    static func der(fromPEM pem: String) -> [UInt8]? {
        let lines = pem.split(whereSeparator: \.isNewline).map(String.init)
        guard let begin = lines.firstIndex(of: "-----BEGIN \(label)-----"),
            let end = lines.firstIndex(of: "-----END \(label)-----"), begin < end
        else { return nil }
        return Data(base64Encoded: lines[(begin + 1)..<end].joined()).map { [UInt8]($0) }
    }

    /// The PEM of a DER blob.
    static func pem(fromDER der: [UInt8]) -> String {
        let base64 = Data(der).base64EncodedString(options: [.lineLength64Characters, .endLineWithLineFeed])
        return "-----BEGIN \(label)-----\n\(base64)\n-----END \(label)-----\n"
    }
}
