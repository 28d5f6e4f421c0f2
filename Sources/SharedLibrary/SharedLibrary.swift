#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A C library loaded by name when first needed rather than linked (`dlopen`), and the
/// addresses of its functions (`dlsym`): the one place the process calls the dynamic loader.
/// A process that never needs the library maps none of it nor of what it pulls in. Each
/// wrapper loads its library once (in a static) and never closes the handle.
///
/// Its errors name the library and the Debian package to install, so each wrapper (Curl,
/// PKCS11, DBus, SQLite) says the same thing the same way.
public struct SharedLibrary: @unchecked Sendable {
    /// The library's name, as its package installs it (`libsqlite3.so.0`).
    public let soname: String
    /// The Debian package that installs it.
    public let package: String
    /// The oldest version of the package with every function the wrapper calls.
    public let minimumVersion: String
    private let handle: UnsafeMutableRawPointer

    /// Loads `soname` (`RTLD_NOW | RTLD_LOCAL`: every symbol bound now, none offered to the
    /// libraries loaded later).
    /// - Throws: ``SharedLibraryError`` saying why the loader refused and which package to
    ///   install.
    public init(soname: String, package: String, minimumVersion: String) throws(SharedLibraryError) {
        guard let handle = dlopen(soname, RTLD_NOW | RTLD_LOCAL) else {
            let reason = dlerror().map { String(cString: $0) } ?? "not found"
            throw SharedLibraryError("\(soname) could not be loaded (\(reason)): install the package \(package)")
        }
        self.soname = soname
        self.package = package
        self.minimumVersion = minimumVersion
        self.handle = handle
    }

    /// The address of the function (or variable) `name`, nil when the library has none.
    public func address(of name: String) -> UnsafeMutableRawPointer? {
        dlsym(handle, name)
    }

    /// The function `name`, as the C function type `type` (`@convention(c)`, or
    /// `UnsafeMutableRawPointer` for a variadic one called through a C shim). The type is the
    /// caller's promise: nothing checks it.
    /// - Throws: ``SharedLibraryError`` when the library has no such function (an older
    ///   version than ``minimumVersion``).
    public func function<Function>(_ name: String, as type: Function.Type) throws(SharedLibraryError) -> Function {
        guard let address = address(of: name) else { throw missing(name) }
        return unsafeBitCast(address, to: type)
    }

    /// How a C shim finds its functions: `lookup(context, name)` is `dlsym` on this library's
    /// handle, `context` (an `mdoc_symbol_lookup` and its handle).
    public typealias SymbolLookup =
        @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<CChar>?) -> UnsafeMutableRawPointer?

    /// Fills a C shim's table of functions: `fill` (the shim's `..._resolve`) is given the
    /// lookup and its context and answers nil, or the name of the first function missing.
    /// - Throws: ``SharedLibraryError`` naming that function.
    public func resolve(
        _ fill: (_ lookup: SymbolLookup, _ context: UnsafeMutableRawPointer) -> UnsafePointer<CChar>?
    ) throws(SharedLibraryError) {
        if let missing = fill(Self.lookup, handle) { throw self.missing(String(cString: missing)) }
    }

    private static let lookup: SymbolLookup = { handle, name in
        guard let name else { return nil }
        return dlsym(handle, name)
    }

    /// The error for a function the library lacks.
    private func missing(_ name: String) -> SharedLibraryError {
        SharedLibraryError("\(soname) has no \(name): install \(package) \(minimumVersion) or later")
    }
}

/// A library that could not be loaded, or lacks a function: what happened and the package to
/// install.
public struct SharedLibraryError: Error, CustomStringConvertible, Sendable {
    public let description: String

    public init(_ description: String) { self.description = description }
}
