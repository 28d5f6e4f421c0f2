import Foundation
import QRCode
import Testing

/// The terminal QR code carries explicit colours on a terminal (so it scans on light and dark
/// themes), and plain text for files, pipes and NO_COLOR.
struct TerminalColoursTests {
    @Test func colouredLinesSetWhiteOnBlackAndResetAroundThePlainDrawing() throws {
        let code = try QRCode(text: "mdoc:owBjMS4wAYIB2BhYS6QBAiABIVggWojRgrzl9C76WZQ")
        let plain = code.terminalString().split(separator: "\n")
        let coloured = code.terminalString(colours: true).split(separator: "\n")
        #expect(coloured.count == plain.count)
        for (c, p) in zip(coloured, plain) {
            #expect(c == "\u{1B}[97;40m" + p + "\u{1B}[0m")
        }
    }

    @Test func aTerminalGetsColoursUnlessNoColorIsSet() {
        #expect(TerminalColours.wanted(isTerminal: true, environment: [:]))
        // NO_COLOR counts when set to a non-empty value (no-color.org).
        #expect(TerminalColours.wanted(isTerminal: true, environment: ["NO_COLOR": ""]))
        #expect(!TerminalColours.wanted(isTerminal: true, environment: ["NO_COLOR": "1"]))
        #expect(!TerminalColours.wanted(isTerminal: false, environment: [:]))
    }

    @Test func aPipeOrAFileGetsPlainText() throws {
        let pipe = Pipe()
        #expect(!TerminalColours.wanted(fd: pipe.fileHandleForWriting.fileDescriptor, environment: [:]))
        let path = NSTemporaryDirectory() + "colours-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: path) }
        let fd = open(path, O_CREAT | O_WRONLY, 0o600)
        defer { close(fd) }
        #expect(!TerminalColours.wanted(fd: fd, environment: [:]))
    }
}
