import BoundedFile
import Foundation
import Testing

/// Outside files are read with a limit, and the files that would hang or confuse a reader
/// are refused at once with a message that says what to do.
struct BoundedFileTests {
    static func temporaryDirectory() throws -> String {
        let dir = NSTemporaryDirectory() + "bounded-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        return dir
    }

    @Test func anEndlessDeviceStopsOneBytePastTheLimit() throws {
        let clock = ContinuousClock()
        let start = clock.now
        #expect(throws: BoundedFileError.tooLarge(path: "/dev/zero", what: "credential file", limit: 16 << 20)) {
            try BoundedFile.read("/dev/zero", limit: InputLimit.credential, what: "credential file")
        }
        #expect(clock.now - start < .seconds(30), "reading went on past the limit")
    }

    @Test func aFileAtTheLimitIsReadAndOneByteMoreIsRefused() throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/key.pem"
        try Data(repeating: 0x41, count: 100).write(to: URL(fileURLWithPath: path))
        #expect(try BoundedFile.read(path, limit: 100, what: "device key").count == 100)
        #expect(throws: BoundedFileError.tooLarge(path: path, what: "device key", limit: 99)) {
            try BoundedFile.read(path, limit: 99, what: "device key")
        }
    }

    @Test func aDirectoryIsRefusedWithWhatToDo() throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let error = #expect(throws: BoundedFileError.self) { try BoundedFile.read(dir, limit: 10, what: "policy file") }
        #expect(error == .isDirectory(path: dir, what: "policy file"))
        #expect(error?.description.contains("it is a directory") == true)
    }

    @Test func aFIFOWithoutAWriterIsRefusedAtOnce() throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/fifo"
        #expect(mkfifo(path, 0o600) == 0)
        let clock = ContinuousClock()
        let start = clock.now
        #expect(throws: BoundedFileError.fifoWithoutWriter(path: path, what: "credential file")) {
            try BoundedFile.read(path, limit: 10, what: "credential file")
        }
        #expect(clock.now - start < .seconds(30), "the read waited for a writer")
    }

    @Test func aFIFOWithAWriterIsReadToItsEnd() async throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/fifo"
        #expect(mkfifo(path, 0o600) == 0)
        let writer = Thread {
            // The reader below may open the FIFO, find no writer yet, and close it again just
            // after this open succeeded; a write then has no reader. With SIGPIPE at its
            // default that kills the whole test process (signal 13), so the writer blocks it
            // for its own thread and opens again until its bytes are taken.
            var pipeSignal = sigset_t()
            sigemptyset(&pipeSignal)
            sigaddset(&pipeSignal, SIGPIPE)
            pthread_sigmask(SIG_BLOCK, &pipeSignal, nil)
            let bytes: [UInt8] = Array("hello".utf8)
            while true {
                let fd = open(path, O_WRONLY)
                let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
                let failure = errno
                close(fd)
                if written == bytes.count || failure != EPIPE { break }
            }
        }
        writer.start()
        // Wait until the writer has the FIFO open.
        var read: [UInt8]?
        for _ in 0..<100 {
            if let bytes = try? BoundedFile.read(path, limit: 10, what: "credential file") {
                read = bytes
                break
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(read == Array("hello".utf8))
    }

    @Test func aMissingFileSaysSo() {
        #expect(throws: BoundedFileError.notFound(path: "/nonexistent/x", what: "device key")) {
            try BoundedFile.read("/nonexistent/x", limit: 10, what: "device key")
        }
    }
}
