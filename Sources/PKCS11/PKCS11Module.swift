internal import CPKCS11
import FoundationEssentials
import Synchronization

/// A PKCS#11 module (a token's library, e.g. softhsm2's), loaded through p11-kit and
/// initialised once per process; it stays loaded (modules such as softhsm2 do not support being
/// initialised again in one process).
///
/// Thread safety: `Sendable`. The function list is immutable; PKCS#11 modules initialised with
/// OS locking may be called from several threads, each on its own session.
public final class PKCS11Module: @unchecked Sendable {
    public let path: String
    let functions: UnsafeMutablePointer<CK_FUNCTION_LIST>

    /// The modules loaded so far, by path; held while one is loaded or initialised again.
    private static let loaded = Mutex<[String: PKCS11Module]>([:])

    private init(path: String, functions: UnsafeMutablePointer<CK_FUNCTION_LIST>) {
        self.path = path
        self.functions = functions
    }

    /// The module at `path`, loaded and initialised on first use.
    public static func load(path: String) throws(PKCS11Error) -> PKCS11Module {
        try loaded.withLock { (loaded) throws(PKCS11Error) -> PKCS11Module in
            if let module = loaded[path] { return module }
            let module = try initialise(path: path)
            loaded[path] = module
            return module
        }
    }

    private static func initialise(path: String) throws(PKCS11Error) -> PKCS11Module {
        guard FileManager.default.fileExists(atPath: path) else {
            throw .moduleUnavailable("the module \(path) could not be loaded (no such file)")
        }
        let p11Kit = try P11KitLibrary.shared.get()
        guard let functions = p11Kit.moduleLoad(path, mdoc_p11_kit_module_unmanaged()) else {
            let message = p11Kit.message().map { String(cString: $0) } ?? "unknown reason"
            throw .moduleUnavailable("the module \(path) could not be loaded (\(message))")
        }
        var arguments = CK_C_INITIALIZE_ARGS()
        arguments.flags = CK_FLAGS(CKF_OS_LOCKING_OK)
        let rv = functions.pointee.C_Initialize(&arguments)
        guard rv == CKR_OK || rv == CKR_CRYPTOKI_ALREADY_INITIALIZED else {
            p11Kit.moduleRelease(functions)
            throw PKCS11Error("C_Initialize", code: UInt(rv))
        }
        return PKCS11Module(path: path, functions: functions)
    }

    /// Finalises the module and initialises it again (a token reopened: its state is read back
    /// from the token). Sessions opened before are gone.
    public func reinitialize() throws(PKCS11Error) {
        try Self.loaded.withLock { (_) throws(PKCS11Error) in
            _ = functions.pointee.C_Finalize(nil)
            var arguments = CK_C_INITIALIZE_ARGS()
            arguments.flags = CK_FLAGS(CKF_OS_LOCKING_OK)
            try check("C_Initialize", functions.pointee.C_Initialize(&arguments))
        }
    }

    /// The slot of the token labelled `label` (a token present in it).
    public func slot(tokenLabel label: String) throws(PKCS11Error) -> UInt {
        var count: CK_ULONG = 0
        try check("C_GetSlotList", functions.pointee.C_GetSlotList(CK_BBOOL(CK_TRUE), nil, &count))
        var slots = [CK_SLOT_ID](repeating: 0, count: Int(count))
        try check("C_GetSlotList", functions.pointee.C_GetSlotList(CK_BBOOL(CK_TRUE), &slots, &count))
        for slot in slots.prefix(Int(count)) {
            var info = CK_TOKEN_INFO()
            guard functions.pointee.C_GetTokenInfo(slot, &info) == CKR_OK else { continue }
            // Blank-padded to 32 bytes (PKCS#11 section 3.2, CK_TOKEN_INFO).
            let bytes = withUnsafeBytes(of: info.label) { Array($0) }
            let first = bytes.firstIndex { $0 != 0x20 } ?? bytes.endIndex
            let end = (bytes.lastIndex { $0 != 0x20 }).map { $0 + 1 } ?? first
            let name = String(decoding: bytes[first..<max(first, end)], as: UTF8.self)
            if name == label { return UInt(slot) }
        }
        throw PKCS11Error("find the token \"\(label)\" (not present)", code: UInt(CKR_TOKEN_NOT_PRESENT))
    }

    /// A read-write session on `slot`, logged in as the user with `pin`.
    public func openSession(slot: UInt, pin: String?) throws(PKCS11Error) -> PKCS11Session {
        var handle: CK_SESSION_HANDLE = 0
        try check(
            "C_OpenSession",
            functions.pointee.C_OpenSession(
                CK_SLOT_ID(slot), CK_FLAGS(CKF_SERIAL_SESSION | CKF_RW_SESSION), nil, nil, &handle))
        let session = PKCS11Session(module: self, handle: handle)
        if let pin {
            var bytes = Array(pin.utf8)
            defer { for i in bytes.indices { bytes[i] = 0 } }
            let rv = functions.pointee.C_Login(handle, CK_USER_TYPE(CKU_USER), &bytes, CK_ULONG(bytes.count))
            guard rv == CKR_OK || rv == CKR_USER_ALREADY_LOGGED_IN else { throw PKCS11Error("C_Login", code: UInt(rv)) }
        }
        return session
    }

    func check(_ function: String, _ rv: CK_RV) throws(PKCS11Error) {
        guard rv == CKR_OK else { throw PKCS11Error(function, code: UInt(rv)) }
    }
}
