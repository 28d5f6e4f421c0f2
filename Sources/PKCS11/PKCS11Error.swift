/// A PKCS#11 call that failed: the function and its CKR_ code (names only, never data).
public struct PKCS11Error: Error, Sendable, Equatable, CustomStringConvertible {
    public var function: String
    public var code: UInt

    public static let pinIncorrect: UInt = 0xA0
    public static let pinLocked: UInt = 0xA4
    public static let userNotLoggedIn: UInt = 0x101
    public static let tokenNotPresent: UInt = 0xE0
    public static let deviceRemoved: UInt = 0x32

    public init(_ function: String, code: UInt) {
        self.function = function
        self.code = code
    }

    /// A failure before any PKCS#11 call (p11-kit or the module could not be loaded): `reason`
    /// says what and what to do; `code` is 0 (CKR_OK, never a PKCS#11 failure's).
    static func unavailable(_ reason: String) -> PKCS11Error { PKCS11Error(reason, code: 0) }

    /// The module's own failure before any PKCS#11 call: its file missing or not a module.
    static func moduleUnavailable(_ reason: String) -> PKCS11Error {
        var error = PKCS11Error.unavailable(reason)
        error.concernsModule = true
        return error
    }

    /// True when the module path is at fault (a different module may work); false when p11-kit
    /// itself could not be loaded or a PKCS#11 call failed.
    public var concernsModule = false

    public var isWrongPIN: Bool { code == Self.pinIncorrect || code == Self.pinLocked }
    public var isTokenGone: Bool { code == Self.tokenNotPresent || code == Self.deviceRemoved || code == 0x30 }

    public var description: String {
        let names: [UInt: String] = [
            0xA0: "CKR_PIN_INCORRECT", 0xA4: "CKR_PIN_LOCKED", 0x101: "CKR_USER_NOT_LOGGED_IN",
            0xE0: "CKR_TOKEN_NOT_PRESENT", 0x32: "CKR_DEVICE_REMOVED", 0x30: "CKR_DEVICE_ERROR",
            0x70: "CKR_MECHANISM_INVALID", 0x82: "CKR_OBJECT_HANDLE_INVALID", 0x05: "CKR_GENERAL_ERROR",
        ]
        guard code != 0 else { return function }
        return "\(function) failed: \(names[code] ?? "CKR 0x" + String(code, radix: 16))"
    }
}
