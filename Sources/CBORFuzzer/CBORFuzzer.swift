import CBOR
import Foundation
import ISO18013

/// One fuzz input: the CBOR decoder (and, when it decodes, the round-trip property
/// decode(encode(x)) == x), then each message parser a reader can reach us with.
/// Built with `-sanitize=fuzzer` (see Tests/Support/fuzz.sh) libFuzzer drives this
/// function; built normally, the executable replays files or directories of inputs.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    if let value = try? CBOR.decode(bytes) {
        let again = value.encoded()
        guard let back = try? CBOR.decode(again), back.encoded() == again else {
            fatalError("re-encoded CBOR does not decode to the same value")
        }
    }
    _ = try? SessionEstablishment(bytes: bytes)
    _ = try? SessionData(bytes: bytes)
    _ = try? DeviceRequest(bytes: bytes)
    _ = try? DeviceEngagement(bytes: bytes)
    _ = try? DeviceResponse(bytes: bytes)
    return 0
}

#if FUZZING
    /// libFuzzer's driver (from the toolchain's fuzzer runtime), called from our own main
    /// because SwiftPM names the entry point of an executable target itself.
    @_silgen_name("LLVMFuzzerRunDriver")
    func runFuzzerDriver(
        _ argc: UnsafeMutablePointer<CInt>,
        _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
        _ callback: @convention(c) (UnsafePointer<UInt8>, Int) -> CInt
    ) -> CInt

    @main
    struct FuzzDriver {
        static func main() {
            var argc = CommandLine.argc
            var argv = CommandLine.unsafeArgv
            exit(runFuzzerDriver(&argc, &argv) { data, size in fuzzOneInput(data, size) })
        }
    }
#else
    /// Replays inputs (files, or every file in a directory) through the fuzz target.
    @main
    struct ReplayCorpus {
        static func main() {
            let paths = CommandLine.arguments.dropFirst()
            if paths.isEmpty {
                FileHandle.standardError.write(Data("usage: cbor-fuzzer FILE|DIR...\n".utf8))
                exit(2)
            }
            var count = 0
            for path in paths {
                var isDirectory: ObjCBool = false
                guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
                    FileHandle.standardError.write(Data("no such file: \(path)\n".utf8))
                    exit(2)
                }
                let files =
                    isDirectory.boolValue
                    ? ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).map { "\(path)/\($0)" }
                    : [path]
                for file in files {
                    guard let data = FileManager.default.contents(atPath: file) else { continue }
                    let bytes = [UInt8](data)
                    _ = bytes.withUnsafeBufferPointer {
                        fuzzOneInput($0.baseAddress ?? UnsafePointer(bitPattern: 1)!, $0.count)
                    }
                    count += 1
                }
            }
            print("replayed \(count) inputs without a crash")
        }
    }
#endif
