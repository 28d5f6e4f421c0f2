import Zlib

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

extension QRCode {
    /// The symbol as an 8-bit greyscale PNG: `scale` pixels per module, dark modules black, a
    /// white quiet zone of `quietZone` modules. Written here (the PNG signature, IHDR, one IDAT
    /// of the zlib-deflated rows, IEND), so no image library is needed for a QR code.
    public func png(scale: Int = 8, quietZone: Int = 4) throws(QRCodeError) -> [UInt8] {
        let side = (size + 2 * quietZone) * scale
        // Each row: filter type 0 (None), then one byte per pixel.
        var rows = [UInt8](repeating: 0xFF, count: side * (side + 1))
        for y in 0..<side { rows[y * (side + 1)] = 0 }
        for row in 0..<size {
            for column in 0..<size where isDark(row: row, column: column) {
                for y in 0..<scale {
                    let base = ((row + quietZone) * scale + y) * (side + 1) + 1 + (column + quietZone) * scale
                    for x in 0..<scale { rows[base + x] = 0 }
                }
            }
        }
        let pixels: [UInt8]
        do {
            pixels = try Zlib.deflate(rows)
        } catch {
            throw .pngFailed
        }
        // Width, height, bit depth 8, colour type 0 (greyscale), deflate, adaptive filtering,
        // no interlace.
        let header = Self.bigEndian(UInt32(side)) + Self.bigEndian(UInt32(side)) + [8, 0, 0, 0, 0]
        return [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + Self.chunk("IHDR", header)
            + Self.chunk("IDAT", pixels) + Self.chunk("IEND", [])
    }

    /// A PNG chunk: length, type, data, the CRC-32 of type and data.
    private static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let name = Array(type.utf8)
        return bigEndian(UInt32(data.count)) + name + data + bigEndian(Zlib.crc32(name, data))
    }

    private static func bigEndian(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
    }

    /// Writes the PNG atomically: a temporary file in the same directory, then a rename, so a
    /// kiosk display never reads half a file.
    public func writePNG(to path: String, scale: Int = 8, quietZone: Int = 4) throws(QRCodeError) {
        let data = try png(scale: scale, quietZone: quietZone)
        let slash = path.lastIndex(of: "/")
        let directory = slash.map { String(path[...$0]) } ?? ""
        let name = slash.map { String(path[path.index(after: $0)...]) } ?? path
        let temporary = "\(directory).\(name).\(getpid()).tmp"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0o644)
        guard fd >= 0 else { throw .cannotWrite(path: path, reason: String(cString: strerror(errno))) }
        var written = 0
        while written < data.count {
            let n = data.withUnsafeBytes { write(fd, $0.baseAddress! + written, data.count - written) }
            if n < 0, errno == EINTR { continue }
            guard n > 0 else {
                let reason = String(cString: strerror(errno))
                close(fd)
                unlink(temporary)
                throw .cannotWrite(path: path, reason: reason)
            }
            written += n
        }
        guard close(fd) == 0, rename(temporary, path) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temporary)
            throw .cannotWrite(path: path, reason: reason)
        }
    }
}
