/// The X.509 v3 extensions that mdoc trust decisions look at, decoded once per certificate.
///
/// A certificate that comes back session after session is the same object
/// (``Certificate/cached(der:)``), so its extensions are decoded on its first check, not on
/// every request.
extension Certificate {
    /// The decoded extensions: made on first use; when two threads race, one decoding is kept
    /// (the other is dropped) and both read it. Later reads are one atomic load.
    var extensions: CertificateExtensions {
        if let known = decodedExtensions.load(ordering: .acquiring) { return known.takeUnretainedValue() }
        let made = Unmanaged.passRetained(CertificateExtensions(decoding: x509))
        let (stored, earlier) = decodedExtensions.compareExchange(
            expected: nil, desired: made, ordering: .acquiringAndReleasing)
        guard !stored, let earlier else { return made.takeUnretainedValue() }
        made.release()
        return earlier.takeUnretainedValue()
    }

    /// Whether the basicConstraints extension says cA = TRUE.
    public var isCA: Bool {
        extensions.isCA
    }

    /// The basicConstraints pathLenConstraint, if present.
    public var pathLengthConstraint: Int? {
        extensions.pathLengthConstraint
    }

    /// Whether the certificate has a keyUsage extension.
    public var hasKeyUsageExtension: Bool {
        extensions.hasKeyUsageExtension
    }

    /// The keyUsage bits; empty if the extension is absent (see ``hasKeyUsageExtension``).
    public var keyUsage: KeyUsage {
        extensions.keyUsage
    }

    /// The extendedKeyUsage purposes as dotted OIDs (e.g. "1.0.18013.5.1.6" for mdoc reader
    /// authentication), in certificate order; empty if the extension is absent.
    public var extendedKeyUsage: [String] {
        extensions.extendedKeyUsage
    }

    /// The dNSName entries of subjectAltName.
    public var dnsSubjectAlternativeNames: [String] {
        extensions.dnsSubjectAlternativeNames
    }

    /// The uniformResourceIdentifier entries of subjectAltName.
    public var uriSubjectAlternativeNames: [String] {
        extensions.uriSubjectAlternativeNames
    }
}
