internal import CZlib

/// Why a zlib stream could not be inflated or deflated.
public enum ZlibError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The stream would inflate to more than `limit` bytes: refused (a deflate bomb stops here).
    case tooLarge(limit: Int)
    /// The bytes are not a zlib stream (RFC 1950), or it is corrupt.
    case corrupt(reason: String)
    /// The stream ends before its last block.
    case truncated
    /// Bytes follow the end of the stream.
    case trailingBytes
    /// zlib itself failed (out of memory).
    case failed(reason: String)

    public var description: String {
        switch self {
        case .tooLarge(let limit): return "the compressed data inflates to more than \(limit) bytes"
        case .corrupt(let reason): return "the compressed data is not a valid zlib stream (\(reason))"
        case .truncated: return "the compressed data ends before the end of its stream"
        case .trailingBytes: return "bytes follow the end of the zlib stream"
        case .failed(let reason): return "zlib failed: \(reason)"
        }
    }
}

/// zlib streams (RFC 1950 around RFC 1951 deflate), as Token Status Lists carry their bits and
/// PNG images their pixels; and zlib's CRC-32 (ISO 3309, PNG's chunk check).
public enum Zlib {
    /// The CRC-32 of the concatenation of `parts`.
    public static func crc32(_ parts: [UInt8]...) -> UInt32 {
        var crc = CZlib.crc32(0, nil, 0)
        for part in parts {
            crc = part.withUnsafeBufferPointer { CZlib.crc32(crc, $0.baseAddress, uInt($0.count)) }
        }
        return UInt32(crc)
    }

    /// Inflates one complete zlib stream, never producing more than `maximumOutput` bytes:
    /// the output is written in pieces and the stream is abandoned as soon as it would
    /// exceed the cap, so a small input that inflates to gigabytes costs at most the cap.
    public static func inflate(_ input: [UInt8], maximumOutput: Int) throws(ZlibError) -> [UInt8] {
        var stream = z_stream()
        guard mdoc_inflate_init(&stream) == Z_OK else { throw .failed(reason: "inflateInit") }
        defer { inflateEnd(&stream) }
        var output: [UInt8] = []
        let pieceSize = 16 * 1024
        var piece = [UInt8](repeating: 0, count: pieceSize)
        var status = Z_OK
        var source = input
        try source.withUnsafeMutableBufferPointer { (inputBuffer) throws(ZlibError) in
            stream.next_in = inputBuffer.baseAddress
            stream.avail_in = uInt(inputBuffer.count)
            repeat {
                let produced = piece.withUnsafeMutableBufferPointer { pieceBuffer in
                    stream.next_out = pieceBuffer.baseAddress
                    stream.avail_out = uInt(pieceSize)
                    status = CZlib.inflate(&stream, Z_NO_FLUSH)
                    return pieceSize - Int(stream.avail_out)
                }
                guard status == Z_OK || status == Z_STREAM_END || (status == Z_BUF_ERROR && produced > 0) else {
                    if status == Z_BUF_ERROR { throw .truncated }
                    throw .corrupt(reason: stream.msg.map { String(cString: $0) } ?? "error \(status)")
                }
                guard output.count + produced <= maximumOutput else { throw .tooLarge(limit: maximumOutput) }
                output.append(contentsOf: piece[0..<produced])
                if produced == 0 && status != Z_STREAM_END && stream.avail_in == 0 { throw .truncated }
            } while status != Z_STREAM_END
            guard stream.avail_in == 0 else { throw .trailingBytes }
        }
        return output
    }

    /// Deflates `input` into one zlib stream at `level` (0-9; 9 is the smallest, as the
    /// status list draft's examples are made).
    public static func deflate(_ input: [UInt8], level: Int32 = 9) throws(ZlibError) -> [UInt8] {
        var stream = z_stream()
        guard mdoc_deflate_init(&stream, level) == Z_OK else { throw .failed(reason: "deflateInit") }
        defer { deflateEnd(&stream) }
        let bound = Int(deflateBound(&stream, uLong(input.count)))
        var output = [UInt8](repeating: 0, count: bound)
        var source = input
        let status = source.withUnsafeMutableBufferPointer { inputBuffer in
            output.withUnsafeMutableBufferPointer { outputBuffer in
                stream.next_in = inputBuffer.baseAddress
                stream.avail_in = uInt(inputBuffer.count)
                stream.next_out = outputBuffer.baseAddress
                stream.avail_out = uInt(outputBuffer.count)
                return CZlib.deflate(&stream, Z_FINISH)
            }
        }
        guard status == Z_STREAM_END else { throw .failed(reason: "deflate returned \(status)") }
        return Array(output[0..<Int(stream.total_out)])
    }
}
