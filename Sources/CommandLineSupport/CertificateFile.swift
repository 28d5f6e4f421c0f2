import BoundedFile
import MdocCrypto

/// Reads certificate files given on the command line: PEM (one or more certificates) or DER,
/// at most ``InputLimit/certificates`` bytes.
public enum CertificateFile {
    /// The certificates of `path`; `what` names them in errors ("trust anchor", "reader
    /// certificate chain").
    public static func read(_ path: String, what: String = "trust anchor") throws(CommandLineError)
        -> [Certificate]
    {
        let bytes: [UInt8]
        do {
            bytes = try BoundedFile.read(path, limit: InputLimit.certificates, what: what)
        } catch {
            throw CommandLineError(error.description)
        }
        let text = String(decoding: bytes, as: UTF8.self)
        do {
            if text.contains("-----BEGIN") {
                let certificates = try Certificate.parsePEM(text)
                guard !certificates.isEmpty else { throw CommandLineError("\(path) holds no PEM certificate") }
                return certificates
            }
            return [try Certificate(der: bytes)]
        } catch let error as CommandLineError {
            throw error
        } catch {
            throw CommandLineError("the \(what) \(path) is not a PEM or DER certificate (\(error))")
        }
    }
}

/// A command-line input that cannot be used, in words for the user.
public struct CommandLineError: Error, Sendable, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
