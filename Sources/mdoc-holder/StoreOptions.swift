import ArgumentParser
import BoundedFile
import CommandLineSupport
import FoundationEssentials
import HolderRuntime
import MdocCrypto
import PrintableText
import Wallet

/// `--store PATH`, shared by the credential and history commands.
struct StoreOptions: ParsableArguments {
    @Option(
        name: .customLong("store"),
        help: ArgumentHelp(
            "The credential store file.",
            discussion:
                "Default: $STATE_DIRECTORY/wallet.sqlite (systemd service), else $XDG_DATA_HOME/mdoc-holder/wallet.sqlite, else ~/.local/share/mdoc-holder/wallet.sqlite.",
            valueName: "path"))
    var path: String?

    @OptionGroup var secureAreas: SecureAreaOptions

    /// The options as plain values.
    var values: StoreValues { StoreValues(path: path, secureAreas: secureAreas.values) }

    /// The store file: `--store` or the default path.
    var resolvedPath: String { values.resolvedPath }

    /// The store (created when missing).
    func open() throws -> CredentialStore { try values.open() }

    /// The store, or nil when its file does not exist (so reading commands create nothing).
    func openExisting() throws -> CredentialStore? { try values.openExisting() }
}

/// What ``StoreOptions`` were given, as plain values (``PresentCommandLine`` reads them without
/// ArgumentParser).
struct StoreValues: Equatable, Sendable {
    /// `--store`, nil when not given.
    var path: String?
    var secureAreas = SecureAreaValues()

    /// The store file: `--store` or the default path.
    var resolvedPath: String { path ?? CredentialStore.defaultPath() }

    /// The store (created when missing).
    func open() throws -> CredentialStore {
        try CredentialStore(path: resolvedPath, secureAreas: secureAreas.registry())
    }

    /// The store, or nil when its file does not exist (so reading commands create nothing).
    func openExisting() throws -> CredentialStore? {
        FileManager.default.fileExists(atPath: resolvedPath) ? try open() : nil
    }
}

/// `--json` and the store options of the listing commands (`credentials list`, `keys list`,
/// `history`).
struct ListingOptions: ParsableArguments {
    @Flag(help: "Print JSON.") var json = false
    @OptionGroup var store: StoreOptions

    /// With `--json`: prints `value` as JSON and returns true; else false (the command prints
    /// its own lines).
    func printedJSON<T: Encodable>(_ value: T) throws -> Bool {
        guard json else { return false }
        try WalletCLI.printJSON(value)
        return true
    }
}

/// A command-line failure that is not the store's: a file that cannot be read, ...
struct WalletCLIError: Error, CustomStringConvertible, LocalizedError {
    var description: String
    init(_ description: String) { self.description = description }
    var errorDescription: String? { description }
}

/// Helpers of the credential and history commands.
enum WalletCLI {
    /// Writes a line to standard error, through ``RemoteText`` (messages carry errors, warnings
    /// and names from the other side): escaped, one line, bounded. A QR code or a progress
    /// line, which are the holder's own drawing, go to `Output.warn` directly.
    static func warn(_ text: String) { Output.warn(RemoteText.printable(text, limit: messageLimit)) }

    /// A line on standard output through ``RemoteText``.
    static func line(_ text: String) { Output.line(RemoteText.printable(text, limit: messageLimit)) }

    /// The longest message line, in Unicode scalars.
    static let messageLimit = 4000

    /// Prints `value` as JSON: sorted keys, ISO 8601 dates.
    static func printJSON<T: Encodable>(_ value: T) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        let text = String(decoding: try encoder.encode(value), as: UTF8.self)
        // Foundation pretty-prints an empty array over two lines; a literal newline never
        // occurs inside a JSON string, so this touches only whitespace between brackets.
        Output.line(text.replacing(#/\[\n\s*\]/#, with: "[]"))
    }

    /// The bytes of `path`, or of standard input for "-", at most `limit` (a credential file's
    /// by default): a larger file, a directory or a FIFO without a writer is refused at once.
    static func readFile(_ path: String, what: String, limit: Int = InputLimit.credential) throws -> [UInt8] {
        do {
            return try BoundedFile.read(path, limit: limit, what: what)
        } catch {
            throw WalletCLIError(error.description)
        }
    }

    /// The first line of `path` (a passphrase, a PIN, a transaction code), without its newline.
    static func firstLine(of path: String, what: String, limit: Int = InputLimit.credential) throws -> String {
        let text = String(decoding: try readFile(path, what: what, limit: limit), as: UTF8.self)
        return text.split(separator: "\n", omittingEmptySubsequences: false).first.map(String.init) ?? ""
    }

    /// The certificates of a PEM (one or more) or DER file (`what` names them in errors):
    /// every certificate option of every command is read here.
    static func readCertificates(_ path: String, what: String = "issuer IACA certificate") throws -> [Certificate] {
        do {
            return try CertificateFile.read(path, what: what)
        } catch {
            throw WalletCLIError(error.description)
        }
    }

    /// `body`'s result; when it throws, the error is reported (by default as "mdoc-holder: ERROR"
    /// on standard error) and the command exits with `status`.
    static func exitOnError<T>(
        _ status: Int32, report: (any Error) -> Void = { warn("mdoc-holder: \($0)") }, _ body: () async throws -> T
    ) async throws -> T {
        do {
            return try await body()
        } catch {
            report(error)
            throw ExitCode(status)
        }
    }

    /// A holder's log lines on standard error.
    static let holderLog: HolderLog = { line in warn(line.consoleText) }

    /// Lines of left-aligned columns, two spaces apart (the last column is not padded). Every
    /// cell is shown through ``RemoteText`` (cells carry doc types and issuer names from outside).
    static func table(_ rows: [[String]]) -> [String] {
        let rows = rows.map { $0.map { RemoteText.printable($0) } }
        guard let columns = rows.map(\.count).max(), columns > 0 else { return [] }
        var widths = [Int](repeating: 0, count: columns)
        for row in rows {
            for (i, cell) in row.enumerated() { widths[i] = max(widths[i], cell.count) }
        }
        return rows.map { row in
            row.enumerated().map { i, cell in
                i == row.count - 1 ? cell : cell + String(repeating: " ", count: max(0, widths[i] - cell.count))
            }.joined(separator: "  ")
        }
    }
}
