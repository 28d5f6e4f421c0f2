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
///
/// Its options are an enumeration and `switch`es, not a dictionary of closures: a dictionary's
/// first use costs the Swift runtime 0.5 ms of type lookups, on the main thread before any
/// other work starts.
enum PresentCommandLine {
    /// The invocation `arguments` (the words after `present`) ask for, or nil when ArgumentParser
    /// should read them.
    static func parse(_ arguments: ArraySlice<String>) -> PresentInvocation? {
        var invocation = PresentInvocation()
        var seen: [String] = []
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
            guard let option = Option(name) else { return nil }
            guard option.isRepeatable || !seen.contains(option.rawValue) else { return nil }
            seen.append(option.rawValue)
            if option.isFlag {
                guard attached == nil else { return nil }
                invocation.set(flag: option)
            } else {
                let value: String
                if let attached {
                    value = attached
                } else {
                    guard let next = words.next(), !next.hasPrefix("-") else { return nil }
                    value = next
                }
                guard invocation.set(option, to: value) else { return nil }
            }
        }
        // `ProximityArguments.validate()`: ArgumentParser says what is wrong.
        guard invocation.proximity.problem == nil else { return nil }
        return invocation
    }

    /// `present`'s options, by long name (without "--").
    enum Option: String, CaseIterable {
        case adapter, mode, l2cap
        case maxChunkSize = "max-chunk-size"
        case engagementVersion = "engagement-version"
        case qr, consent
        case readerTrust = "reader-trust"
        case untrustedReaders = "untrusted-readers"
        case deviceAuth = "device-auth"
        case once, store
        case secureArea = "secure-area"
        case kekFile = "kek-file"
        case kekPassphraseFile = "kek-passphrase-file"
        case tpmTCTI = "tpm-tcti"
        case keyPassphraseFile = "key-passphrase-file"
        case pkcs11Module = "pkcs11-module"
        case pkcs11Token = "pkcs11-token"
        case pkcs11PINFile = "pkcs11-pin-file"

        /// The option named `name`, nil for none. A `switch`: `init(rawValue:)` costs the Swift
        /// runtime 0.15 ms of type lookups on its first use (a test holds the two equal).
        init?(_ name: Substring) {
            switch name {
            case "adapter": self = .adapter
            case "mode": self = .mode
            case "l2cap": self = .l2cap
            case "max-chunk-size": self = .maxChunkSize
            case "engagement-version": self = .engagementVersion
            case "qr": self = .qr
            case "consent": self = .consent
            case "reader-trust": self = .readerTrust
            case "untrusted-readers": self = .untrustedReaders
            case "device-auth": self = .deviceAuth
            case "once": self = .once
            case "store": self = .store
            case "secure-area": self = .secureArea
            case "kek-file": self = .kekFile
            case "kek-passphrase-file": self = .kekPassphraseFile
            case "tpm-tcti": self = .tpmTCTI
            case "key-passphrase-file": self = .keyPassphraseFile
            case "pkcs11-module": self = .pkcs11Module
            case "pkcs11-token": self = .pkcs11Token
            case "pkcs11-pin-file": self = .pkcs11PINFile
            default: return nil
            }
        }

        /// A flag: no value.
        var isFlag: Bool {
            switch self {
            case .l2cap, .once: true
            default: false
            }
        }

        /// May be given more than once (each value is kept).
        var isRepeatable: Bool {
            switch self {
            case .qr, .readerTrust: true
            default: false
            }
        }
    }
}

extension PresentInvocation {
    /// Sets the flag `option`.
    fileprivate mutating func set(flag option: PresentCommandLine.Option) {
        switch option {
        case .l2cap: proximity.l2cap = true
        case .once: once = true
        default: break
        }
    }

    /// Sets (or adds, for a repeatable option) `option`'s `value`, converted as ArgumentParser
    /// converts it (`ExpressibleByArgument`); false when ArgumentParser would refuse it.
    fileprivate mutating func set(_ option: PresentCommandLine.Option, to value: String) -> Bool {
        switch option {
        case .adapter: adapter = value
        case .mode:
            guard let modes = ProximityModeOption(argument: value) else { return false }
            proximity.modes = modes
        case .maxChunkSize:
            guard let size = Int(argument: value) else { return false }
            proximity.maximumChunkSize = size
        case .engagementVersion:
            guard let version = EngagementVersion(argument: value) else { return false }
            proximity.engagementVersion = version
        case .qr:
            guard let output = EngagementCommand.QROutput(argument: value) else { return false }
            qr.append(output)
        case .consent: consent = value
        case .readerTrust: trust.readerTrust.append(value)
        case .untrustedReaders: trust.untrustedReaders = value
        case .deviceAuth: trust.deviceAuth = value
        case .store: store.path = value
        case .secureArea: store.secureAreas.secureArea = value
        case .kekFile: store.secureAreas.kekFile = value
        case .kekPassphraseFile: store.secureAreas.kekPassphraseFile = value
        case .tpmTCTI: store.secureAreas.tpmTCTI = value
        case .keyPassphraseFile: store.secureAreas.passphraseFile = value
        case .pkcs11Module: store.secureAreas.pkcs11Module = value
        case .pkcs11Token: store.secureAreas.pkcs11Token = value
        case .pkcs11PINFile: store.secureAreas.pkcs11PINFile = value
        case .l2cap, .once: return false
        }
        return true
    }
}
