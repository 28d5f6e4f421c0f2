import Testing

@testable import Curl
@testable import OnlineTransport

/// libcurl is loaded when a transfer first needs it, not linked: what the process says when
/// it is missing, and that the installed one loads with every function the Curl target calls.
@Suite struct CurlLibraryTests {
    @Test("a missing libcurl is named with the package to install, in the fetcher's error too")
    func missingLibrary() throws {
        let result = CurlLibrary.load("libcurl-absent-for-test.so.4")
        guard case .failure(let failure) = result, case .libraryUnavailable(let reason) = failure else {
            Issue.record("loading an absent library did not fail: \(result)")
            return
        }
        #expect(reason.hasPrefix("libcurl-absent-for-test.so.4 could not be loaded ("))
        #expect(reason.hasSuffix("install the package libcurl4"))
        let error = HTTPFetcher.classify(failure, host: "issuer.example", limits: .init())
        #expect(
            "\(error)".contains("cannot connect to issuer.example: libcurl-absent-for-test.so.4 could not be loaded"))
    }

    @Test("the installed libcurl.so.4 loads with every function, and reports its version")
    func installedLibrary() throws {
        #expect(CurlLibrary.soname == "libcurl.so.4")
        let version = try Curl.version.get()
        #expect(version.hasPrefix("libcurl/"))
        #expect(version.contains("OpenSSL/3"))
    }
}
