import QRCode
import Testing
import Zlib

/// The PNG the QRCode target writes itself: its chunks, their CRCs, the header and the
/// deflated rows, read back here without the encoder's help (zbar reads the same images back
/// in QRCodePNGTests).
struct PNGEncodingTests {
    @Test("zlib's CRC-32 gives the standard check value")
    func crcCheckValue() {
        #expect(Zlib.crc32(Array("123456789".utf8)) == 0xCBF4_3926)
        #expect(Zlib.crc32(Array("1234".utf8), Array("56789".utf8)) == 0xCBF4_3926)
    }

    @Test("signature, IHDR, one IDAT, IEND, each with its CRC; the rows are the modules")
    func chunksAndPixels() throws {
        let code = try QRCode(text: "mdoc:owBjMS4wAYIB2BhYS6QBAiABIVgg")
        let (scale, quietZone) = (3, 2)
        let png = try code.png(scale: scale, quietZone: quietZone)
        #expect(Array(png.prefix(8)) == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        // Every PNG ends with the same IEND chunk: its CRC is a constant of the format.
        #expect(Array(png.suffix(12)) == [0, 0, 0, 0, 0x49, 0x45, 0x4E, 0x44, 0xAE, 0x42, 0x60, 0x82])
        var chunks: [(type: String, data: [UInt8])] = []
        var offset = 8
        while offset + 12 <= png.count {
            let length = png[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
            let type = Array(png[offset + 4..<offset + 8])
            let data = Array(png[offset + 8..<offset + 8 + length])
            let crc = png[offset + 8 + length..<offset + 12 + length].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            #expect(crc == Zlib.crc32(type, data))
            chunks.append((String(decoding: type, as: UTF8.self), data))
            offset += 12 + length
        }
        #expect(offset == png.count)
        #expect(chunks.map(\.type) == ["IHDR", "IDAT", "IEND"])
        let side = (code.size + 2 * quietZone) * scale
        let sideBytes: [UInt8] = [
            UInt8(side >> 24), UInt8(side >> 16 & 0xFF), UInt8(side >> 8 & 0xFF), UInt8(side & 0xFF),
        ]
        #expect(chunks[0].data == sideBytes + sideBytes + [8, 0, 0, 0, 0])
        let rows = try Zlib.inflate(chunks[1].data, maximumOutput: side * (side + 1))
        #expect(rows.count == side * (side + 1))
        for y in 0..<side {
            #expect(rows[y * (side + 1)] == 0, "row \(y): filter type None")
            for x in 0..<side {
                let (row, column) = (y / scale - quietZone, x / scale - quietZone)
                let inSymbol = (0..<code.size).contains(row) && (0..<code.size).contains(column)
                let dark = inSymbol && code.isDark(row: row, column: column)
                if rows[y * (side + 1) + 1 + x] != (dark ? 0 : 0xFF) {
                    Issue.record("pixel (\(x), \(y)) is \(rows[y * (side + 1) + 1 + x]), module dark: \(dark)")
                    return
                }
            }
        }
    }
}
