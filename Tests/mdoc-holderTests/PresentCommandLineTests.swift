import ArgumentParser
import Testing

@testable import mdoc_holder

/// `present`'s quick reader (``PresentCommandLine``) against ArgumentParser, the parser it
/// stands in for on the usual command lines.
struct PresentCommandLineTests {
    /// Command lines the quick reader must read: every option, both spellings, repeatable
    /// options repeated, values with "=", spaces and non-ASCII text, values ArgumentParser takes
    /// and `run` refuses later.
    static let read: [[String]] = [
        [],
        ["--adapter", "hci1"],
        ["--adapter=hci1"],
        ["--adapter", ""],
        ["--mode", "central"],
        ["--mode=both", "--l2cap"],
        ["--l2cap", "--mode", "peripheral"],
        ["--max-chunk-size", "100"],
        ["--max-chunk-size=20"],
        ["--max-chunk-size", "4096"],
        ["--engagement-version", "1.0"],
        ["--engagement-version=1.1"],
        ["--qr", "uri", "--qr", "png:/tmp/a b.png", "--qr=terminal"],
        ["--qr", "none"],
        ["--consent", "policy:/etc/k=v.toml"],
        ["--consent=policy:a=b"],
        ["--consent", "tty"],
        ["--reader-trust", "a.pem", "--reader-trust=b.pem", "--reader-trust", "ü.pem"],
        ["--untrusted-readers", "refuse", "--device-auth", "mac"],
        ["--untrusted-readers", "bogus", "--device-auth", "x"],
        ["--once"],
        ["--qr", "terminal", "--once", "--consent", "policy:/p.toml", "--store", "/s.sqlite"],
        [
            "--store", "/var/lib/w.sqlite", "--secure-area", "pkcs11", "--kek-file", "/k", "--kek-passphrase-file",
            "/kp", "--tpm-tcti", "swtpm:port=2321", "--key-passphrase-file", "/p", "--pkcs11-module", "/m.so",
            "--pkcs11-token", "token label", "--pkcs11-pin-file", "/pin",
        ],
        ["--secure-area=tpm2", "--tpm-tcti=device:/dev/tpmrm0"],
    ]

    @Test("a command line it reads gives what ArgumentParser gives", arguments: read)
    func readsAsArgumentParser(arguments: [String]) throws {
        let quick = try #require(PresentCommandLine.parse(arguments[...]))
        let parsed = try PresentCommand.parse(arguments)
        #expect(quick == parsed.invocation)
    }

    /// Command lines ArgumentParser refuses: the quick reader leaves each to it, so the error
    /// (and help, and the version) is ArgumentParser's.
    static let refused: [[String]] = [
        ["--help"], ["-h"], ["--frob"], ["--ADAPTER", "x"], ["-adapter", "x"], ["--once=yes"], ["--adapter"],
        ["--adapter", "--once"], ["extra"], ["--once", "extra"], ["--mode", "sideways"], ["--max-chunk-size", "3"],
        ["--max-chunk-size", "x"], ["--adapter="], ["--qr", "png:"], ["--qr", "sixel"],
        ["--engagement-version", "2.0"], ["--=x"],
    ]

    @Test("a command line ArgumentParser refuses is left to it", arguments: refused)
    func leavesRefusedToArgumentParser(arguments: [String]) {
        #expect(PresentCommandLine.parse(arguments[...]) == nil)
        #expect(throws: (any Error).self) { try PresentCommand.parse(arguments) }
    }

    /// Command lines the quick reader is not sure of, though ArgumentParser may take them: a
    /// single-valued option or a flag given twice, a value that begins with "-", `--`.
    static let unsure: [[String]] = [
        ["--adapter", "a", "--adapter", "b"], ["--once", "--once"], ["--adapter", "-x"], ["--adapter=-x", "--"],
        ["--store", "-"], ["--", "--once"], ["--"],
    ]

    @Test("a command line it is not sure of is left to ArgumentParser", arguments: unsure)
    func leavesUnsureToArgumentParser(arguments: [String]) {
        #expect(PresentCommandLine.parse(arguments[...]) == nil)
    }

    @Test("it knows every option present has")
    func knowsEveryOption() {
        let help = PresentCommand.helpMessage(includeHidden: true, columns: 1000)
        let names = Set(
            help.matches(of: #/--([a-z0-9][a-z0-9-]*)/#).map { String($0.output.1) }.filter {
                $0 != "help" && $0 != "version"
            })
        #expect(names.count >= 20)
        #expect(names == Set(PresentCommandLine.Option.allCases.map(\.rawValue)))
    }

    @Test("each option is found by its name and by nothing else")
    func optionsByName() {
        for option in PresentCommandLine.Option.allCases {
            #expect(PresentCommandLine.Option(Substring(option.rawValue)) == option)
            #expect(PresentCommandLine.Option(Substring(option.rawValue.uppercased())) == nil)
            #expect(PresentCommandLine.Option(Substring(option.rawValue + "s")) == nil)
        }
        #expect(PresentCommandLine.Option("") == nil)
    }

    @Test("the defaults are ArgumentParser's")
    func defaultsAreArgumentParsers() throws {
        #expect(PresentInvocation() == (try PresentCommand.parse([])).invocation)
        #expect(PresentCommandLine.parse([]) == PresentInvocation())
    }
}
