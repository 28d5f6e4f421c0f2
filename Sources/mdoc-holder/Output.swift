import Foundation

/// Writes to standard output unbuffered, so a line (an `mdoc:` URI another program waits
/// for) is out the moment it is printed, terminal or pipe.
enum Output {
    static func line(_ text: String) {
        FileHandle.standardOutput.write(Data((text + "\n").utf8))
    }
}
