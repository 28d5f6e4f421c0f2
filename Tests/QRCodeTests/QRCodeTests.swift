import Foundation
import TestSupport
import Testing

@testable import QRCode

struct QRCodeTests {
    @Test func encodesAnMdocURIWithFinderPatterns() throws {
        let qr = try QRCode(
            text: "mdoc:owBjMS4wAYIB2BhYS6QBAiABIVggWojRgrzl9C76WZQ_MzWdLoqWj_KJ2T5fpES2JDQxZ_4iWCCxbozo")
        #expect(qr.size >= 21 && (qr.size - 17) % 4 == 0)
        // Finder pattern: a dark 7x7 ring with a dark 3x3 centre, at three corners.
        for (r, c) in [(0, 0), (0, qr.size - 7), (qr.size - 7, 0)] {
            #expect(qr.isDark(row: r, column: c) && qr.isDark(row: r + 6, column: c + 6))
            #expect(!qr.isDark(row: r + 1, column: c + 1))
            #expect(qr.isDark(row: r + 3, column: c + 3))
        }
    }

    @Test func terminalRenderingHasAQuietZoneAndHalfBlockRows() throws {
        let qr = try QRCode(text: "mdoc:test")
        let lines = qr.terminalString().split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        #expect(lines.count == (qr.size + 8 + 1) / 2)
        #expect(lines.allSatisfy { $0.count == qr.size + 8 })
        // The first two module rows are quiet zone: full light blocks.
        #expect(lines[0].allSatisfy { $0 == "\u{2588}" })
    }

    @Test func refusesTextTooLongForAQRCode() {
        #expect(throws: QRCodeError.self) { try QRCode(text: String(repeating: "x", count: 4000)) }
    }
}

/// The PNG is read back by an independent decoder (zbarimg, from zbar-tools, installed by
/// `make test-deps`).
struct QRCodePNGTests {
    @Test func aPNGIsScannedBackToTheURIByZbar() throws {
        let uri = "mdoc:owBjMS4wAYIB2BhYS6QBAiABIVggWojRgrzl9C76WZQ_MzWdLoqWj_KJ2T5fpES2JDQxZ_4iWCCxbozo"
        let path = NSTemporaryDirectory() + "qr-\(UUID().uuidString).png"
        defer { try? FileManager.default.removeItem(atPath: path) }
        try QRCode(text: uri).writePNG(to: path, scale: 4)
        let bytes = try #require(FileManager.default.contents(atPath: path))
        #expect(Array(bytes.prefix(8)) == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        let zbar = "/usr/bin/zbarimg"
        guard FileManager.default.isExecutableFile(atPath: zbar) else {
            Issue.record("zbarimg is missing: run `make test-deps` (it installs zbar-tools)")
            return
        }
        #expect(try Self.zbar(path) == uri)
    }

    @Test func writingIntoAMissingDirectoryFailsWithThePath() throws {
        #expect(throws: QRCodeError.self) { try QRCode(text: "x").writePNG(to: "/nonexistent-dir/qr.png") }
    }
}

extension QRCodePNGTests {
    /// The terminal rendering, read back as a dark-background terminal shows it (block =
    /// light), is scanned by zbar to the same URI: orientation, half-block pairing and the
    /// quiet zone are right.
    @Test func theTerminalRenderingScansBackToTheURI() throws {
        let uri = "mdoc:owBjMS4wAYIB2BhYS6QBAiABIVggWojRgrzl9C76WZQ"
        let lines = try QRCode(text: uri).terminalString().split(separator: "\n").map { Array($0) }
        var modules: [Bool] = []
        for line in lines {
            var top: [Bool] = []
            var bottom: [Bool] = []
            for c in line {
                let (t, b): (Bool, Bool) =
                    switch c {
                    case "\u{2588}": (true, true)
                    case "\u{2580}": (true, false)
                    case "\u{2584}": (false, true)
                    default: (false, false)
                    }
                top.append(!t)  // light drawn = not dark
                bottom.append(!b)
            }
            modules += top + bottom
        }
        let side = lines[0].count
        let grid = QRCode(size: side, modules: Array(modules.prefix(side * side)))
        let path = NSTemporaryDirectory() + "qr-term-\(UUID().uuidString).png"
        defer { try? FileManager.default.removeItem(atPath: path) }
        try grid.writePNG(to: path, scale: 4, quietZone: 0)
        #expect(try Self.zbar(path) == uri)
    }

    /// What zbarimg reads from the PNG at `path`, QR only (with every symbology on, zbar
    /// misreads about 1 image in 1500 as a linear code). Through posix_spawn and waitpid:
    /// two Foundation `Process`es started at once by parallel tests were seen never to
    /// return from `waitUntilExit` (their zbarimg left as zombies).
    static func zbar(_ path: String) throws -> String {
        let output = path + ".txt"
        defer { try? FileManager.default.removeItem(atPath: output) }
        let status = ChildProcess.run(
            ["/usr/bin/zbarimg", "--raw", "-q", "-Sdisable", "-Sqrcode.enable", path], stdout: output)
        #expect(status == 0, "zbarimg exit status")
        let text = try String(contentsOfFile: output, encoding: .utf8)
        return text.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
