import Testing

@testable import PKCS11

/// p11-kit is loaded when the first PKCS#11 module is, not linked: what the process says when it
/// is missing, and that the installed one loads with the three functions the PKCS11 target calls.
@Suite struct P11KitLibraryTests {
    @Test("a missing p11-kit is named with the package to install")
    func missingLibrary() {
        let result = P11KitLibrary.load("libp11-kit-absent-for-test.so.0")
        guard case .failure(let failure) = result else {
            Issue.record("loading an absent library did not fail")
            return
        }
        #expect(failure.description.hasPrefix("libp11-kit-absent-for-test.so.0 could not be loaded ("))
        #expect(failure.description.hasSuffix("install the package libp11-kit0"))
        #expect(failure.code == 0)
        // Not the module's fault: no "--pkcs11-module" hint is added for it.
        #expect(!failure.concernsModule)
    }

    @Test("the installed libp11-kit.so.0 loads; a module that is not there is named")
    func installedLibrary() throws {
        #expect(P11KitLibrary.soname == "libp11-kit.so.0")
        guard case .success = P11KitLibrary.load(P11KitLibrary.soname) else {
            Issue.record("libp11-kit.so.0 did not load")
            return
        }
        #expect(
            throws: PKCS11Error.moduleUnavailable(
                "the module /nonexistent/module.so could not be loaded (no such file)")
        ) {
            try PKCS11Module.load(path: "/nonexistent/module.so")
        }
        // A file that is not a PKCS#11 module: p11-kit's own words for it, through the loaded library.
        do {
            _ = try PKCS11Module.load(path: "/etc/passwd")
            Issue.record("/etc/passwd loaded as a PKCS#11 module")
        } catch {
            #expect(error.code == 0)
            #expect(error.concernsModule)
            #expect(error.description.hasPrefix("the module /etc/passwd could not be loaded ("))
            #expect(!error.description.contains("unknown reason"))
        }
    }
}
