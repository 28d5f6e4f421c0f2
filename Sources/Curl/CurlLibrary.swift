import CCurl
import SharedLibrary

/// libcurl, loaded (`dlopen`) when the first transfer needs it rather than linked: a process
/// that never goes online (an idle service, a proximity presentation) maps none of libcurl
/// and of the two dozen libraries it pulls in. Loaded once per process, never unloaded.
struct CurlLibrary: @unchecked Sendable {
    /// The library's name, as the Debian package `libcurl4` installs it.
    static let soname = "libcurl.so.4"
    /// The package to install when it is missing.
    static let package = "libcurl4"

    /// The process's libcurl, with its global state set up (`curl_global_init`), or why not.
    static let shared: Result<CurlLibrary, CurlFailure> = load(soname)

    let easyInit: @convention(c) () -> UnsafeMutableRawPointer?
    let easyCleanup: @convention(c) (UnsafeMutableRawPointer?) -> Void
    let easyPerform: @convention(c) (UnsafeMutableRawPointer?) -> CURLcode
    let easyStrerror: @convention(c) (CURLcode) -> UnsafePointer<CChar>?
    /// `curl_easy_setopt` and `curl_easy_getinfo` are variadic: called through the shim's
    /// typed forms (`mdoc_curl_setopt_long(easySetopt, ...)`).
    let easySetopt: UnsafeMutableRawPointer
    let easyGetinfo: UnsafeMutableRawPointer
    let slistAppend: SlistAppend
    let slistFreeAll: @convention(c) (UnsafeMutablePointer<curl_slist>?) -> Void
    let url: @convention(c) () -> OpaquePointer?
    let urlCleanup: @convention(c) (OpaquePointer?) -> Void
    let urlSet: URLSet
    let urlGet: URLGet
    let free: @convention(c) (UnsafeMutableRawPointer?) -> Void
    let version: @convention(c) () -> UnsafePointer<CChar>?

    /// Loads `soname` and finds every function this target calls, then sets up libcurl's
    /// global state. The failure names the library and the package to install.
    static func load(_ soname: String) -> Result<CurlLibrary, CurlFailure> {
        do throws(CurlFailure) {
            let library = try CurlLibrary(soname: soname)
            guard library.globalInit(mdoc_curl_global_default()) == CURLE_OK else {
                return .failure(.libraryUnavailable("\(soname) could not set up its global state (curl_global_init)"))
            }
            return .success(library)
        } catch {
            return .failure(error)
        }
    }

    private let globalInit: @convention(c) (Int) -> CURLcode

    private init(soname: String) throws(CurlFailure) {
        let library: SharedLibrary
        do {
            library = try SharedLibrary(soname: soname, package: Self.package, minimumVersion: "7.88")
        } catch {
            throw .libraryUnavailable(error.description)
        }
        func symbol<F>(_ name: String, _ type: F.Type) throws(CurlFailure) -> F {
            do {
                return try library.function(name, as: type)
            } catch {
                throw .libraryUnavailable(error.description)
            }
        }
        easyInit = try symbol("curl_easy_init", (@convention(c) () -> UnsafeMutableRawPointer?).self)
        easyCleanup = try symbol("curl_easy_cleanup", (@convention(c) (UnsafeMutableRawPointer?) -> Void).self)
        easyPerform = try symbol("curl_easy_perform", (@convention(c) (UnsafeMutableRawPointer?) -> CURLcode).self)
        easyStrerror = try symbol("curl_easy_strerror", (@convention(c) (CURLcode) -> UnsafePointer<CChar>?).self)
        easySetopt = try symbol("curl_easy_setopt", UnsafeMutableRawPointer.self)
        easyGetinfo = try symbol("curl_easy_getinfo", UnsafeMutableRawPointer.self)
        slistAppend = try symbol("curl_slist_append", SlistAppend.self)
        slistFreeAll = try symbol(
            "curl_slist_free_all", (@convention(c) (UnsafeMutablePointer<curl_slist>?) -> Void).self)
        url = try symbol("curl_url", (@convention(c) () -> OpaquePointer?).self)
        urlCleanup = try symbol("curl_url_cleanup", (@convention(c) (OpaquePointer?) -> Void).self)
        urlSet = try symbol("curl_url_set", URLSet.self)
        urlGet = try symbol("curl_url_get", URLGet.self)
        free = try symbol("curl_free", (@convention(c) (UnsafeMutableRawPointer?) -> Void).self)
        version = try symbol("curl_version", (@convention(c) () -> UnsafePointer<CChar>?).self)
        globalInit = try symbol("curl_global_init", (@convention(c) (Int) -> CURLcode).self)
    }

    typealias SlistAppend =
        @convention(c) (UnsafeMutablePointer<curl_slist>?, UnsafePointer<CChar>?) -> UnsafeMutablePointer<curl_slist>?
    typealias URLSet = @convention(c) (OpaquePointer?, CURLUPart, UnsafePointer<CChar>?, UInt32) -> CURLUcode
    typealias URLGet =
        @convention(c) (OpaquePointer?, CURLUPart, UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?, UInt32) ->
        CURLUcode
}
