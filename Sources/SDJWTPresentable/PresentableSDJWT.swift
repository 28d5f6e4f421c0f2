import SDJWT
import SecureArea

/// An SD-JWT VC ready to present online: the credential as issued and its key-binding key (the
/// `cnf.jwk` key) in its secure area. `description` names it only.
public struct PresentableSDJWT: Sendable, CustomStringConvertible {
    /// The store's credential ID.
    public let id: String
    public let credential: SDJWTVC
    public let key: any DeviceKey

    public init(id: String, credential: SDJWTVC, key: any DeviceKey) {
        self.id = id
        self.credential = credential
        self.key = key
    }

    public var vct: String { credential.vct }
    public var description: String { "PresentableSDJWT(\(id), \(vct))" }
}
