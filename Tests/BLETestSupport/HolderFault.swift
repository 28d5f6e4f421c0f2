import CBOR
import ISO18013
import MdocCrypto
@_spi(TestFaults) import Presentation

/// A fault a test holder can be given, for showing that `mdoc-reader conformance` catches
/// it: each makes a correct holder (the real loop) misbehave in one way, in what crosses GATT,
/// the engagement shown or (``configuration(_:readerCA:)``) the engine's
/// `HolderConfiguration.testFaults`. Test support only: the shipped commands set no fault.
public enum HolderFault: String, Sendable, CaseIterable {
    /// SessionData status 11 where the holder sent 10 (an undecryptable message).
    case wrongStatusOnUndecryptable = "status-11-for-10"
    /// A reader's SessionData status 20 never reaches the holder's engine.
    case ignoresTermination = "ignore-status-20"
    /// Every Server2Client chunk that should say 0x01 (more follows) says 0x02.
    case badChunkHeader = "chunk-header"
    /// A reader that is not trusted is asked about like any other, and the (test) user approves.
    case releasesToUntrusted = "release-to-untrusted"
    /// The engagement shown has no BLE DeviceRetrievalMethod.
    case noBLEOption = "no-ble-option"
    /// The engagement's `mdoc:` URI ends in base64url padding (`=`), which the QR content excludes.
    case paddedURI = "padded-uri"
    /// The engagement shown is "1.0" with the second edition's keys 5 (OriginInfos) and 6
    /// (Capabilities), which only a "1.1" engagement has. It is not the engagement the
    /// session's transcript holds, so only the cases that read the engagement alone
    /// (mDL_MS_DE_*, BLE_DE_01) run with it.
    case firstEditionWithSecondEditionKeys = "engagement-1.0-keys"
    /// A "1.0" request's `readerAuthAll` counts as authentication (the engine reads the
    /// request as "1.1").
    case trustsFirstEditionReaderAuthAll = "trust-readerauthall-1.0"
    /// A `readerAuthAll` is taken on its certificate chain without its signature binding it
    /// to this session's transcript (a replay from another session is accepted).
    case readerAuthAllAnyTranscript = "readerauthall-any-transcript"
    /// The engine ignores `maximumResponseSize`.
    case ignoresMaximumResponseSize = "ignore-max-size"
    /// The engine ignores `alternativeDataElements`.
    case ignoresAlternatives = "no-alternatives"

    /// The engine faults (``HolderConfiguration/testFaults``) for `fault`: none for a fault
    /// outside the engine.
    static func engineFaults(_ fault: HolderFault?) -> HolderTestFaults {
        switch fault {
        case .trustsFirstEditionReaderAuthAll?: .trustFirstEditionReaderAuthAll
        case .readerAuthAllAnyTranscript?: .readerAuthAllAnyTranscript
        case .ignoresMaximumResponseSize?: .ignoreMaximumResponseSize
        case .ignoresAlternatives?: .ignoreAlternatives
        default: []
        }
    }

    /// The holder configuration for `fault`: trusting `readerCA`, readers not trusted
    /// refused (unless the fault releases to them), the engine faults set.
    public static func configuration(_ fault: HolderFault?, readerCA: [Certificate]) -> HolderConfiguration {
        var configuration = HolderConfiguration(readerTrustAnchors: readerCA, untrustedReaders: untrustedReaders(fault))
        configuration.testFaults = engineFaults(fault)
        return configuration
    }

    /// The cases (`--cases` patterns) a run with `fault` takes: all, except for a fault that
    /// shows an engagement other than its session's.
    public static func cases(_ fault: HolderFault?) -> [String] {
        fault == .firstEditionWithSecondEditionKeys ? ["mDL_MS_DE_*", "BLE_DE_01"] : []
    }

    /// The policy for readers that are not trusted: `.refuse` unless this fault releases.
    public static func untrustedReaders(_ fault: HolderFault?) -> UntrustedReaderPolicy {
        fault == .releasesToUntrusted ? .allow : .refuse
    }

    /// The engagement URI the holder shows for `engagement`.
    public static func shownURI(_ engagement: DeviceEngagement, _ fault: HolderFault?) -> String {
        if fault == .paddedURI {
            // Standard base64 padding: the text after "mdoc:" grows to a multiple of 4.
            return engagement.uri + String(repeating: "=", count: (3 - engagement.bytes.count % 3) % 3)
        }
        guard let key = try? engagement.eDeviceKey.publicKey() else { return engagement.uri }
        switch fault {
        case .noBLEOption?:
            return DeviceEngagement(eDeviceKey: key, retrievalMethods: []).uri
        case .firstEditionWithSecondEditionKeys?:
            let secondEdition = [
                CBORMapEntry(5, .array([])), CBORMapEntry(6, .map([CBORMapEntry(3, true), CBORMapEntry(4, true)])),
            ]
            return DeviceEngagement(
                eDeviceKey: key, retrievalMethods: engagement.retrievalMethods, version: "1.0",
                otherEntries: secondEdition
            ).uri
        default:
            return engagement.uri
        }
    }
}
