import ISO18013
import Presentation

/// A fault a test holder can be given, for showing that `mdoc-reader conformance` catches
/// it: each makes a correct holder (the real loop) misbehave in one way. Test support only:
/// the shipped holder has no such switch.
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
        guard fault == .noBLEOption, let key = try? engagement.eDeviceKey.publicKey() else { return engagement.uri }
        return DeviceEngagement(eDeviceKey: key, retrievalMethods: []).uri
    }
}
