import ArgumentParser
import ISO18013
import Proximity

/// `present`'s usual command lines read without ArgumentParser, for the time to the first QR
/// code: ArgumentParser's first parse reflects over every command's property wrappers, about
/// 3 ms of a start whose target is 10 (docs/benchmarks.md, "The seventeenth session").
///
/// It reads only what it is sure of: long options of `present` given once (the repeatable ones
/// any number of times), as `--name value` or `--name=value`, with values ArgumentParser would
/// take. Anything else (help, `--version`, an unknown, repeated or misspelt option, a missing
/// value or one that begins with "-", a positional argument, a value ArgumentParser or
/// `present`'s validation would refuse) makes it answer nil, and ArgumentParser parses the
/// command line as before and reports any error its way. Tests hold that whenever it answers,
/// ArgumentParser's parse of the same words gives the same ``PresentInvocation``, and that it
/// knows every option `present` has.
enum PresentCommandLine {
    /// The invocation `arguments` (the words after `present`) ask for, or nil when ArgumentParser
    /// should read them.
    static func parse(_ arguments: ArraySlice<String>) -> PresentInvocation? {
        var invocation = PresentInvocation()
        var seen: Set<String> = []
        var words = arguments.makeIterator()
        while let word = words.next() {
            guard word.hasPrefix("--"), word.count > 2 else { return nil }
            var name = Substring(word.dropFirst(2))
            var attached: String?
            if let equals = name.firstIndex(of: "=") {
                // ArgumentParser takes `--name value` with an empty value, not `--name=`.
                attached = String(name[name.index(after: equals)...])
                name = name[..<equals]
                guard attached?.isEmpty == false else { return nil }
            }
            guard let option = options[String(name)] else { return nil }
            guard seen.insert(String(name)).inserted || option.repeatable else { return nil }
            switch option.kind {
            case .flag(let set):
                guard attached == nil else { return nil }
                set(&invocation)
            case .value(let set):
                let value: String
                if let attached {
                    value = attached
                } else {
                    guard let next = words.next(), !next.hasPrefix("-") else { return nil }
                    value = next
                }
                guard set(&invocation, value) else { return nil }
            }
        }
        // `ProximityArguments.validate()`: ArgumentParser says what is wrong.
        guard invocation.proximity.problem == nil else { return nil }
        return invocation
    }

    /// The long names this reader knows (without "--").
    static var names: Set<String> { Set(options.keys) }

    private struct Option: Sendable {
        enum Kind: Sendable {
            case flag(@Sendable (inout PresentInvocation) -> Void)
            /// Sets the value; false when ArgumentParser would refuse it.
            case value(@Sendable (inout PresentInvocation, String) -> Bool)
        }
        var kind: Kind
        var repeatable = false

        static func flag(_ set: @escaping @Sendable (inout PresentInvocation) -> Void) -> Option {
            Option(kind: .flag(set))
        }

        /// An option whose value is converted (nil: refused).
        static func value(_ set: @escaping @Sendable (inout PresentInvocation, String) -> Bool) -> Option {
            Option(kind: .value(set))
        }

        /// An option whose value is any text.
        static func text(_ set: @escaping @Sendable (inout PresentInvocation, String) -> Void) -> Option {
            Option(
                kind: .value { invocation, word in
                    set(&invocation, word)
                    return true
                })
        }

        /// A repeatable option whose values are any text.
        static func texts(_ add: @escaping @Sendable (inout PresentInvocation, String) -> Void) -> Option {
            var option = text(add)
            option.repeatable = true
            return option
        }
    }

    /// `present`'s options by long name, each value converted as ArgumentParser converts it
    /// (`ExpressibleByArgument`).
    private static let options: [String: Option] = [
        "adapter": .text { $0.adapter = $1 },
        "mode": .value { set(&$0.proximity.modes, ProximityModeOption(argument: $1)) },
        "l2cap": .flag { $0.proximity.l2cap = true },
        "max-chunk-size": .value { invocation, word in
            guard let size = Int(argument: word) else { return false }
            invocation.proximity.maximumChunkSize = size
            return true
        },
        "engagement-version": .value { set(&$0.proximity.engagementVersion, EngagementVersion(argument: $1)) },
        "qr": Option(
            kind: .value { invocation, word in
                guard let output = EngagementCommand.QROutput(argument: word) else { return false }
                invocation.qr.append(output)
                return true
            }, repeatable: true),
        "consent": .text { $0.consent = $1 },
        "reader-trust": .texts { $0.trust.readerTrust.append($1) },
        "untrusted-readers": .text { $0.trust.untrustedReaders = $1 },
        "device-auth": .text { $0.trust.deviceAuth = $1 },
        "once": .flag { $0.once = true },
        "store": .text { $0.store.path = $1 },
        "secure-area": .text { $0.store.secureAreas.secureArea = $1 },
        "kek-file": .text { $0.store.secureAreas.kekFile = $1 },
        "kek-passphrase-file": .text { $0.store.secureAreas.kekPassphraseFile = $1 },
        "tpm-tcti": .text { $0.store.secureAreas.tpmTCTI = $1 },
        "key-passphrase-file": .text { $0.store.secureAreas.passphraseFile = $1 },
        "pkcs11-module": .text { $0.store.secureAreas.pkcs11Module = $1 },
        "pkcs11-token": .text { $0.store.secureAreas.pkcs11Token = $1 },
        "pkcs11-pin-file": .text { $0.store.secureAreas.pkcs11PINFile = $1 },
    ]

    /// `field` set to `value`; false when there is none.
    private static func set<T>(_ field: inout T, _ value: T?) -> Bool {
        guard let value else { return false }
        field = value
        return true
    }
}
