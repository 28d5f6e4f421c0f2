internal import CPKCS11
import SharedLibrary

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
        do throws(SharedLibraryError) {
            let library = try SharedLibrary(soname: soname, package: package, minimumVersion: "0.23")
            return .success(
                P11KitLibrary(
                    moduleLoad: try library.function("p11_kit_module_load", as: ModuleLoad.self),
                    moduleRelease: try library.function(
                        "p11_kit_module_release",
                        as: (@convention(c) (UnsafeMutablePointer<CK_FUNCTION_LIST>?) -> Void).self),
                    message: try library.function(
                        "p11_kit_message", as: (@convention(c) () -> UnsafePointer<CChar>?).self)))
        } catch {
            return .failure(.unavailable(error.description))
        }
    }
}
