import Foundation

/// Writes to standard output and standard error unbuffered, so a line (an `mdoc:` URI
/// another program waits for) is out the moment it is printed, terminal or pipe.
public enum Output {
    /// A line on standard output.
    public static func line(_ text: String) {
        FileHandle.standardOutput.write(Data((text + "\n").utf8))
    }

    /// A line on standard error.
    public static func warn(_ text: String) {
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }
}
