/// How much the holder reads from one outside file at most. Reading stops one byte past the
/// limit, whatever the source (a regular file, standard input, a pipe, a device).
public enum InputLimit {
    /// A credential file (IssuerSigned, Document, DeviceResponse): 16 MiB, far above a
    /// credential with a large portrait.
    public static let credential = 16 * 1024 * 1024
    /// A PEM or DER private key.
    public static let key = 8 * 1024
    /// A certificate file (PEM, possibly several certificates, or DER).
    public static let certificates = 64 * 1024
    /// A configuration file (TOML policy, verifiers file).
    public static let configuration = 1024 * 1024
    /// A JSON document referenced from a configuration file (client metadata).
    public static let document = 1024 * 1024
}
