import DBus
import HolderRuntime
import SecureArea

/// ReceiveCredential's options (`a{sv}`): "batch" u (copies, each bound to its own new key),
/// "wait" u (seconds a deferred issuance is polled before it is kept pending), "secure_area"
/// s (where the new keys are made). Anything else is refused. The transaction code is not an
/// option: the consent agent gives it.
extension ReceiveOptions {
    /// The longest deferred wait one call asks for: the caller waits for the reply.
    static let waitLimit = 600

    init(_ value: DBusValue) throws(HolderServiceError) {
        self.init()
        guard let options = value.propertiesValue else { throw .invalidArguments("options must be a{sv}") }
        for (key, value) in options.sorted(by: { $0.key < $1.key }) {
            switch key {
            case "batch":
                guard case .uint32(let n) = value.unwrapped, (1...UInt32(Self.batchLimit)).contains(n) else {
                    throw .invalidArguments(
                        "option batch must be a uint32 from 1 to \(Self.batchLimit) (copies, each bound to its own new key)"
                    )
                }
                batch = Int(n)
            case "wait":
                guard case .uint32(let n) = value.unwrapped, n <= UInt32(Self.waitLimit) else {
                    throw .invalidArguments(
                        "option wait must be a uint32 of seconds, at most \(Self.waitLimit) (0: keep a deferred issuance pending at once)"
                    )
                }
                wait = Int(n)
            case "secure_area":
                guard let text = value.stringValue, let name = SecureAreaName(rawValue: text) else {
                    throw .invalidArguments("option secure_area must be the string software, tpm2 or pkcs11")
                }
                secureArea = name
            default:
                throw .invalidArguments(
                    "unknown option '\(CallerText.bounded(key))': ReceiveCredential takes batch, wait and secure_area (the transaction code comes from the consent agent)"
                )
            }
        }
    }

    /// ResumePending's options: "wait" u only (the copies and keys were made when the offer
    /// was accepted).
    init(resuming value: DBusValue) throws(HolderServiceError) {
        guard let options = value.propertiesValue else { throw .invalidArguments("options must be a{sv}") }
        if let key = options.keys.sorted().first(where: { $0 != "wait" }) {
            throw .invalidArguments(
                "unknown option '\(CallerText.bounded(key))': ResumePending takes wait (the copies and keys were made when the offer was accepted)"
            )
        }
        try self.init(value)
    }
}
