import ISO18013
import MdocCrypto
import Presentation
import ProximityReader

/// What every case of a run shares: the reader's identity and trust, the mode, the bounds.
public struct ConformanceSettings: Sendable {
    /// IACA roots a released document must chain to (empty: responses are decrypted and
    /// read, not verified).
    public var trustAnchors: [Certificate] = []
    /// A reader certificate under the holder's trust anchors; the reader-authentication cases
    /// that sign with it skip without.
    public var identity: ReaderIdentity?
    public var mode: ReaderBLEMode.Choice = .auto
    /// Ask for the holder's L2CAP channel (and offer ours in central-client mode).
    public var l2cap = false
    /// How long the holder may take to answer (consent included).
    public var answerTimeout: Duration = .seconds(30)
    /// How long a holder that should end the session (or stay silent) is watched.
    public var endGrace: Duration = .seconds(3)
    /// The document and elements a well-formed request asks for.
    public var request = ItemsRequest(
        docType: "org.iso.18013.5.1.mDL",
        nameSpaces: [.init("org.iso.18013.5.1", [.init("family_name"), .init("portrait"), .init("age_over_18")])])

    public init() {}
}
