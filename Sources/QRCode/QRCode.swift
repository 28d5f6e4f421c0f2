import CQRencode

/// Why a QR code could not be made.
public enum QRCodeError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The text does not fit in the largest QR code at the chosen error correction.
    case tooLong(bytes: Int)
    case encodingFailed
    case pngFailed
    case cannotWrite(path: String, reason: String)

    public var description: String {
        switch self {
        case .tooLong(let n): return "\(n) bytes do not fit in a QR code"
        case .encodingFailed: return "libqrencode could not encode the text"
        case .pngFailed: return "the QR code image could not be compressed"
        case .cannotWrite(let path, let reason): return "cannot write \(path): \(reason)"
        }
    }
}

/// A QR code symbol (ISO/IEC 18004) made by libqrencode: a square of dark and light modules.
public struct QRCode: Sendable, Equatable {
    /// Modules per side, without the quiet zone.
    public let size: Int
    /// Row-major, true = dark.
    public let modules: [Bool]

    /// Encodes `text` in 8-bit mode at error-correction level M (what mdoc readers scan).
    public init(text: String) throws(QRCodeError) {
        let utf8 = Array(text.utf8)
        let made: UnsafeMutablePointer<QRcode>? = utf8.withUnsafeBufferPointer { buffer in
            QRcode_encodeData(Int32(buffer.count), buffer.baseAddress, 0, QR_ECLEVEL_M)
        }
        guard let code = made else {
            throw utf8.count > 2331 ? .tooLong(bytes: utf8.count) : .encodingFailed
        }
        defer { QRcode_free(code) }
        let width = Int(code.pointee.width)
        size = width
        modules = (0..<(width * width)).map { code.pointee.data[$0] & 1 == 1 }
    }

    /// A symbol from its modules (row-major, true = dark), e.g. one read back from a rendering.
    init(size: Int, modules: [Bool]) {
        precondition(modules.count == size * size, "modules must be size x size")
        self.size = size
        self.modules = modules
    }

    public func isDark(row: Int, column: Int) -> Bool {
        guard row >= 0, column >= 0, row < size, column < size else { return false }
        return modules[row * size + column]
    }

    /// The symbol drawn with UTF-8 half blocks (two module rows per text line), light
    /// modules and the quiet zone of `quietZone` modules (the standard asks for 4) drawn in
    /// the foreground colour, dark modules left as background.
    ///
    /// With `colours`, each line sets white on black explicitly (SGR 97;40) and resets after
    /// itself (as `qrencode -t ansiutf8` does), so the symbol scans on light and dark
    /// terminals alike; without, the terminal's own colours are used (right for dark
    /// themes only). ``TerminalColours/wanted(fd:environment:)`` decides for a file
    /// descriptor.
    public func terminalString(quietZone: Int = 4, colours: Bool = false) -> String {
        var out = ""
        let first = -quietZone
        let last = size + quietZone
        var row = first
        while row < last {
            if colours { out += TerminalColours.lightOnDark }
            for column in first..<last {
                // Light is drawn, dark is blank: readable on dark-background terminals,
                // where most scanners need light quiet zones.
                let top = !isDark(row: row, column: column)
                let bottom = row + 1 < last ? !isDark(row: row + 1, column: column) : false
                switch (top, bottom) {
                case (true, true): out += "\u{2588}"
                case (true, false): out += "\u{2580}"
                case (false, true): out += "\u{2584}"
                case (false, false): out += " "
                }
            }
            if colours { out += TerminalColours.reset }
            out += "\n"
            row += 2
        }
        return out
    }
}
