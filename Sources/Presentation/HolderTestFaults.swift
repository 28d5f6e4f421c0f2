import CBOR
import COSE
import FoundationEssentials
import ISO18013
import MdocCrypto

/// Faults inside the holder engine, for showing that `mdoc-reader conformance` catches a
/// holder that gets a second-edition rule wrong. Test support only (the fault holder and
/// ConformanceTests set them through ``HolderConfiguration/testFaults``); the shipped
/// commands never set them, and with none set the engine is unchanged.
@_spi(TestFaults)
public struct HolderTestFaults: OptionSet, Sendable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// A "1.0" request is read as "1.1": its `readerAuthAll` counts as authentication.
    public static let trustFirstEditionReaderAuthAll = Self(rawValue: 1 << 0)
    /// A well-formed `readerAuthAll` whose signature does not verify over this session's
    /// ReaderAuthenticationAllBytes (another session's transcript) is taken on its chain.
    public static let readerAuthAllAnyTranscript = Self(rawValue: 1 << 1)
    /// `maximumResponseSize` is not read.
    public static let ignoreMaximumResponseSize = Self(rawValue: 1 << 2)
    /// `alternativeDataElements` are not read.
    public static let ignoreAlternatives = Self(rawValue: 1 << 3)

    /// The DeviceRequest bytes the engine parses: `bytes`, or with ``trustFirstEditionReaderAuthAll``
    /// a "1.0" request re-encoded as "1.1" (so its second-edition members are read).
    func requestBytes(_ bytes: [UInt8], limits: CBORDecodingLimits) -> [UInt8] {
        guard contains(.trustFirstEditionReaderAuthAll),
            case .map(let entries)? = try? CBOR.decode(bytes, limits: limits),
            entries.contains(CBORMapEntry("version", "1.0"))
        else { return bytes }
        return CBOR.map(entries.map { $0.key == "version" ? CBORMapEntry("version", "1.1") : $0 }).encoded()
    }

    /// The DocRequestInfo the engine uses: `info` without what these faults ignore.
    func apply(to info: inout DocRequestInfo) {
        if contains(.ignoreMaximumResponseSize) { info.maximumResponseSize = nil }
        if contains(.ignoreAlternatives) { info.alternativeDataElements = [] }
    }

    /// `auth`, or with ``readerAuthAllAnyTranscript`` for a DocRequest without readerAuth
    /// whose `readerAuthAll` failed: the first detached signature that is well formed and
    /// whose chain is trusted, its signature over this transcript unchecked.
    func authentication(
        _ auth: ReaderAuthenticationResult, docRequest: DocRequest, in request: DeviceRequest,
        trustAnchors: [Certificate], at time: Date
    ) -> ReaderAuthenticationResult {
        guard contains(.readerAuthAllAnyTranscript), docRequest.readerAuth == nil, auth.status == .invalid else {
            return auth
        }
        for signature in request.readerAuthAll {
            // Over an empty payload the check only says whether the structure is right: it
            // throws for an attached payload or an unprotected alg (those stay refused).
            guard
                let chain = try? (signature.x5chain ?? []).map({ (der) throws(CryptoError) in
                    try Certificate.cached(der: der)
                }),
                let leaf = chain.first, let key = try? leaf.publicKey,
                (try? signature.isValidDetachedSignature(over: [], key: key)) != nil
            else { continue }
            let validation = CertificateChainValidator.validate(chain: chain, anchors: trustAnchors, at: time)
            guard validation.isValid else { continue }
            var result = ReaderAuthenticationResult(
                status: .trusted, readerCertificate: leaf, trustAnchor: validation.trustAnchor)
            result.chain = chain
            return result
        }
        return auth
    }
}
