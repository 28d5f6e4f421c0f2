internal import CPKCS11
import Glibc

/// p11-kit, loaded (`dlopen`) when the first PKCS#11 module is rather than linked: a process
/// whose keys are not on a token (the default software secure area, an idle service) maps none
/// of it nor of libffi. Loaded once per process, never unloaded.
struct P11KitLibrary: @unchecked Sendable {
    /// The process's p11-kit, or why not.
    static let shared: Result<P11KitLibrary, PKCS11Error> = load(soname)
    /// The library's name and the Debian package that installs it (named when it is missing).
    static let (soname, package) = ("libp11-kit.so.0", "libp11-kit0")

    /// `p11_kit_module_load`: the module's function list, or nil (`message` says why).
    let moduleLoad: ModuleLoad
    let moduleRelease: @convention(c) (UnsafeMutablePointer<CK_FUNCTION_LIST>?) -> Void
    let message: @convention(c) () -> UnsafePointer<CChar>?

    typealias ModuleLoad = @convention(c) (UnsafePointer<CChar>?, Int32) -> UnsafeMutablePointer<CK_FUNCTION_LIST>?

    /// Loads `soname` and finds the three functions this target calls. The failure names the
    /// library and the package to install.
    static func load(_ soname: String) -> Result<P11KitLibrary, PKCS11Error> {
        guard let handle = dlopen(soname, RTLD_NOW | RTLD_LOCAL) else {
            let reason = dlerror().map { String(cString: $0) } ?? "not found"
            return .failure(.unavailable("\(soname) could not be loaded (\(reason)): install the package \(package)"))
        }
        guard let load = dlsym(handle, "p11_kit_module_load"), let release = dlsym(handle, "p11_kit_module_release"),
            let message = dlsym(handle, "p11_kit_message")
        else {
            return .failure(.unavailable("\(soname) has no p11_kit_module_load: install \(package) 0.23 or later"))
        }
        return .success(
            P11KitLibrary(
                moduleLoad: unsafeBitCast(load, to: ModuleLoad.self),
                moduleRelease: unsafeBitCast(
                    release, to: (@convention(c) (UnsafeMutablePointer<CK_FUNCTION_LIST>?) -> Void).self),
                message: unsafeBitCast(message, to: (@convention(c) () -> UnsafePointer<CChar>?).self)))
    }
}
