import Testing

@testable import QRCode

/// libpng is loaded when the first PNG is written, not linked: what the process says when it is
/// missing, and that the installed one loads with both functions the QRCode target calls.
@Suite struct PNGLibraryTests {
    @Test("a missing libpng is named with the package to install")
    func missingLibrary() {
        let result = PNGLibrary.load("libpng16-absent-for-test.so.16")
        guard case .failure(let failure) = result, case .libraryUnavailable(let reason) = failure else {
            Issue.record("loading an absent library did not fail: \(result)")
            return
        }
        #expect(reason.hasPrefix("libpng16-absent-for-test.so.16 could not be loaded ("))
        #expect(reason.hasSuffix("install the package libpng16-16"))
        #expect("\(failure)" == reason)
    }

    @Test("the installed libpng16.so.16 loads and writes a PNG")
    func installedLibrary() throws {
        #expect(PNGLibrary.soname == "libpng16.so.16")
        guard case .success = PNGLibrary.load(PNGLibrary.soname) else {
            Issue.record("libpng16.so.16 did not load: \(PNGLibrary.load(PNGLibrary.soname))")
            return
        }
        let png = try QRCode(text: "mdoc:x").png(scale: 1, quietZone: 0)
        #expect(Array(png.prefix(8)) == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
    }
}
