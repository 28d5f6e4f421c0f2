import Foundation

/// The fuzz target of this process: `FUZZ_TARGET` (a ``FuzzTarget`` name), `cbor` when unset.
nonisolated(unsafe) var currentTarget: FuzzTarget = .cbor

/// One fuzz input through the current target. Built with `-sanitize=fuzzer` (see
/// Tests/Support/fuzz.sh) libFuzzer drives this function; built normally, the executable
/// replays files or directories of inputs.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    currentTarget.run(Array(UnsafeBufferPointer(start: data, count: size)))
    return 0
}

func selectTarget(_ name: String?) {
    guard let name else { return }
    guard let target = FuzzTarget(rawValue: name) else {
        FileHandle.standardError.write(
            Data("unknown fuzz target \(name): \(FuzzTarget.allCases.map(\.rawValue).joined(separator: ", "))\n".utf8))
        exit(2)
    }
    currentTarget = target
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
            selectTarget(ProcessInfo.processInfo.environment["FUZZ_TARGET"])
            var argc = CommandLine.argc
            var argv = CommandLine.unsafeArgv
            exit(runFuzzerDriver(&argc, &argv) { data, size in fuzzOneInput(data, size) })
        }
    }
#else
    /// Replays inputs through the fuzz targets:
    ///
    ///     cbor-fuzzer [--target NAME] FILE|DIR...   one target (FUZZ_TARGET, else cbor)
    ///     cbor-fuzzer --all ROOT                    ROOT/NAME/* through each target NAME that has
    ///                                               a folder there
    @main
    struct ReplayCorpus {
        static func main() {
            var arguments = Array(CommandLine.arguments.dropFirst())
            selectTarget(ProcessInfo.processInfo.environment["FUZZ_TARGET"])
            if arguments.first == "--target", arguments.count >= 2 {
                selectTarget(arguments[1])
                arguments.removeFirst(2)
            }
            if arguments.first == "--all", arguments.count == 2 {
                var total = 0
                for target in FuzzTarget.allCases {
                    currentTarget = target
                    let directory = "\(arguments[1])/\(target.rawValue)"
                    guard FileManager.default.fileExists(atPath: directory) else { continue }
                    let count = replay([directory])
                    print("\(target.rawValue): replayed \(count) inputs")
                    total += count
                }
                print("replayed \(total) inputs through \(FuzzTarget.allCases.count) targets without a crash")
                return
            }
            if arguments.isEmpty {
                FileHandle.standardError.write(
                    Data("usage: cbor-fuzzer [--target NAME] FILE|DIR... | cbor-fuzzer --all ROOT\n".utf8))
                exit(2)
            }
            let count = replay(arguments)
            print("replayed \(count) inputs through \(currentTarget.rawValue) without a crash")
        }

        static func replay(_ paths: [String]) -> Int {
            var count = 0
            for path in paths {
                var isDirectory: ObjCBool = false
                guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
                    FileHandle.standardError.write(Data("no such file: \(path)\n".utf8))
                    exit(2)
                }
                let files =
                    isDirectory.boolValue
                    ? ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).sorted().map {
                        "\(path)/\($0)"
                    }
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
            return count
        }
    }
#endif
