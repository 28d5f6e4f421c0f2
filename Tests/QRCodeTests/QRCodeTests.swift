import QRCode
import Testing

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
