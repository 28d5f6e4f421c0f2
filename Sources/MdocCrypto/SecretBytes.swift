internal import COpenSSL

/// Secret bytes (shared secrets, derived keys) held in memory this object owns, zeroed with
/// `OPENSSL_cleanse` when the object is released.
///
/// The storage is never shared: ``bytes`` hands out an independent copy. `description` does not
/// reveal the contents.
///
/// Sendable: the contents are written only during initialization and read-only afterwards.
public final class SecretBytes: @unchecked Sendable, CustomStringConvertible {
    private let storage: UnsafeMutableRawBufferPointer

    /// Copies `bytes` into owned storage. The caller still owns (and should discard) its array.
    public init(_ bytes: [UInt8]) {
        storage = .allocate(byteCount: bytes.count, alignment: 1)
        storage.copyBytes(from: bytes)
    }

    /// `count` zero bytes, to be filled by `fill` (used to write OpenSSL output straight into
    /// owned storage). If `fill` throws, the storage is cleared and released.
    init<E: Error>(count: Int, fill: (UnsafeMutableRawBufferPointer) throws(E) -> Void) throws(E) {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: count, alignment: 1)
        buffer.initializeMemory(as: UInt8.self, repeating: 0)
        do {
            try fill(buffer)
        } catch {
            // `storage` is not set yet, so deinit will not run: release here, once.
            Self.release(buffer)
            throw error
        }
        storage = buffer
    }

    deinit {
        Self.release(storage)
    }

    private static func release(_ storage: UnsafeMutableRawBufferPointer) {
        if let base = storage.baseAddress {
            OPENSSL_cleanse(base, storage.count)
        }
        storage.deallocate()
    }

    /// The number of bytes.
    public var count: Int { storage.count }

    /// Calls `body` with read-only access to the secret. Do not let the pointer escape.
    public func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try body(UnsafeRawBufferPointer(storage))
    }

    /// A copy of the secret as an array. The caller owns the copy and is responsible for it; it
    /// is not cleared when this object is released. Meant for tests and for passing to APIs that
    /// take `[UInt8]`.
    public var bytes: [UInt8] {
        [UInt8](UnsafeRawBufferPointer(storage))
    }

    /// A description that gives only the length.
    public var description: String { "SecretBytes(\(count) bytes)" }
}
