import CQRencode
import Foundation

extension QRCode {
    /// The symbol as an 8-bit greyscale PNG (libpng's simplified API): `scale` pixels per
    /// module, dark modules black, a white quiet zone of `quietZone` modules. libpng is loaded
    /// on the first call (``QRCodeError/libraryUnavailable(_:)`` when it is missing).
    public func png(scale: Int = 8, quietZone: Int = 4) throws(QRCodeError) -> [UInt8] {
        let side = (size + 2 * quietZone) * scale
        var pixels = [UInt8](repeating: 0xFF, count: side * side)
        for row in 0..<size {
            for column in 0..<size where isDark(row: row, column: column) {
                for y in 0..<scale {
                    let base = ((row + quietZone) * scale + y) * side + (column + quietZone) * scale
                    for x in 0..<scale { pixels[base + x] = 0 }
                }
            }
        }
        let library = try PNGLibrary.shared.get()
        var image = png_image()
        image.version = png_uint_32(mdoc_png_image_version())
        image.width = png_uint_32(side)
        image.height = png_uint_32(side)
        image.format = png_uint_32(mdoc_png_format_gray())
        var size: png_alloc_size_t = 0
        // First call sizes the output, second writes it.
        let sized = pixels.withUnsafeBufferPointer {
            library.imageWriteToMemory(&image, nil, &size, 0, $0.baseAddress, png_int_32(side), nil)
        }
        guard sized != 0, size > 0 else {
            library.imageFree(&image)
            throw .pngFailed
        }
        var out = [UInt8](repeating: 0, count: Int(size))
        let written = out.withUnsafeMutableBufferPointer { buffer in
            pixels.withUnsafeBufferPointer {
                library.imageWriteToMemory(
                    &image, buffer.baseAddress, &size, 0, $0.baseAddress, png_int_32(side), nil)
            }
        }
        library.imageFree(&image)
        guard written != 0 else { throw .pngFailed }
        return Array(out.prefix(Int(size)))
    }

    /// Writes the PNG atomically: a temporary file in the same directory, then a rename, so a
    /// kiosk display never reads half a file.
    public func writePNG(to path: String, scale: Int = 8, quietZone: Int = 4) throws(QRCodeError) {
        let data = try png(scale: scale, quietZone: quietZone)
        let url = URL(fileURLWithPath: path)
        let temporary = url.deletingLastPathComponent().appendingPathComponent(
            ".\(url.lastPathComponent).\(getpid()).tmp")
        do {
            try Data(data).write(to: temporary)
            if rename(temporary.path, url.path) != 0 {
                throw QRCodeError.cannotWrite(path: path, reason: String(cString: strerror(errno)))
            }
        } catch let e as QRCodeError {
            try? FileManager.default.removeItem(at: temporary)
            throw e
        } catch {
            try? FileManager.default.removeItem(at: temporary)
            throw .cannotWrite(path: path, reason: error.localizedDescription)
        }
    }
}
