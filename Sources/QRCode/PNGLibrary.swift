import CQRencode
import Glibc

/// libpng, loaded (`dlopen`) when the first PNG is written rather than linked: a process that
/// draws its QR code on a terminal, or none (an idle service), maps none of it. Loaded once per
/// process, never unloaded.
struct PNGLibrary: @unchecked Sendable {
    /// The library's name, as the Debian package `libpng16-16` installs it.
    static let soname = "libpng16.so.16"
    /// The package to install when it is missing.
    static let package = "libpng16-16"

    /// The process's libpng, or why not.
    static let shared: Result<PNGLibrary, QRCodeError> = load(soname)

    /// `png_image_write_to_memory` (the simplified API, libpng 1.6.29).
    let imageWriteToMemory: WriteToMemory
    /// `png_image_free`.
    let imageFree: @convention(c) (UnsafeMutablePointer<png_image>?) -> Void

    typealias WriteToMemory =
        @convention(c) (
            UnsafeMutablePointer<png_image>?, UnsafeMutableRawPointer?, UnsafeMutablePointer<png_alloc_size_t>?,
            Int32, UnsafeRawPointer?, png_int_32, UnsafeRawPointer?
        ) -> Int32

    /// Loads `soname` and finds the two functions this target calls. The failure names the
    /// library and the package to install.
    static func load(_ soname: String) -> Result<PNGLibrary, QRCodeError> {
        guard let handle = dlopen(soname, RTLD_NOW | RTLD_LOCAL) else {
            let reason = dlerror().map { String(cString: $0) } ?? "not found"
            return .failure(
                .libraryUnavailable("\(soname) could not be loaded (\(reason)): install the package \(package)"))
        }
        guard let write = dlsym(handle, "png_image_write_to_memory"), let free = dlsym(handle, "png_image_free") else {
            return .failure(
                .libraryUnavailable("\(soname) has no png_image_write_to_memory: install \(package) 1.6.29 or later"))
        }
        return .success(
            PNGLibrary(
                imageWriteToMemory: unsafeBitCast(write, to: WriteToMemory.self),
                imageFree: unsafeBitCast(free, to: (@convention(c) (UnsafeMutablePointer<png_image>?) -> Void).self)))
    }
}
