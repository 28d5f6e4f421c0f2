// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "mdoc-holder",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "mdoc-holder", targets: ["mdoc-holder"]),
        .executable(name: "mdoc-reader", targets: ["mdoc-reader"]),
        .executable(name: "mdoc-issuer", targets: ["mdoc-issuer"]),
        .executable(name: "mdoc-benchmarks", targets: ["MdocBenchmarks"]),
        .executable(name: "mdoc-ble-benchmarks", targets: ["BLEBenchmarks"]),
        .executable(name: "mdoc-demo", targets: ["mdoc-demo"]),
        .executable(name: "cbor-fuzzer", targets: ["CBORFuzzer"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0")
    ],
    targets: [
        // C libraries, each reached from exactly one Swift target.
        .systemLibrary(name: "CLibCBOR", pkgConfig: "libcbor", providers: [.apt(["libcbor-dev"])]),
        .systemLibrary(name: "COpenSSL", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CQRencode", pkgConfig: "libqrencode", providers: [.apt(["libqrencode-dev"])]),
        // SQLite's headers only (no pkgConfig, which would link it): the SQLite target loads
        // libsqlite3.so.0 when a database is first opened.
        .systemLibrary(name: "CSQLite", providers: [.apt(["libsqlite3-dev"])]),
        // libdbus-1's stable ABI, declared by the shim itself (no pkgConfig, which would link it):
        // the DBus target loads libdbus-1.so.3 when a bus is first used.
        .systemLibrary(name: "CDBus"),
        // The kernel's Bluetooth socket structures from BlueZ's headers (no pkgConfig, which would
        // link libbluetooth: the L2CAP target needs none of its functions).
        .systemLibrary(name: "CBluetooth", providers: [.apt(["libbluetooth-dev"])]),
        // PKCS#11's declarations only (no pkgConfig, which would link p11-kit): the PKCS11 target
        // loads libp11-kit.so.0 when a module is first used.
        .systemLibrary(name: "CPKCS11", providers: [.apt(["libp11-kit-dev"])]),
        // HTTPS through the system's OpenSSL 3 (Debian's libcurl4-openssl-dev). Its headers
        // only (no pkgConfig, which would link it): libcurl.so.4 is loaded by the Curl target
        // when a transfer first needs it, so a process that stays offline maps none of it.
        .systemLibrary(name: "CCurl", providers: [.apt(["libcurl4-openssl-dev"])]),
        // zlib (RFC 1950/1951): the compressed lists of Token Status Lists.
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),

        // Swift wrappers.
        .target(name: "CBOR", dependencies: ["CLibCBOR"]),
        .target(name: "MdocCrypto", dependencies: ["COpenSSL"]),
        .target(name: "QRCode", dependencies: ["CQRencode", "Zlib"]),
        // The dynamic loader (dlopen, dlsym): the libraries loaded when first needed, not linked.
        .target(name: "SharedLibrary"),
        .target(name: "SQLite", dependencies: ["CSQLite", "SharedLibrary"]),
        .target(name: "DBus", dependencies: ["CDBus", "SharedLibrary"]),
        // L2CAP connection-oriented channels over libbluetooth sockets.
        .target(name: "L2CAP", dependencies: ["CBluetooth"]),
        // HTTPS exchanges (libcurl): a total deadline, a size cap, a check of every address
        // before a socket is made for it.
        .target(name: "Curl", dependencies: ["CCurl", "SharedLibrary"]),
        // zlib streams with a cap on what they inflate to (a deflate bomb stops at the cap).
        .target(name: "Zlib", dependencies: ["CZlib"]),

        // BlueZ D-Bus client: knows nothing of mdocs.
        // Bluetooth values every layer shares (one UUID type), no C.
        .target(name: "Bluetooth"),
        .target(name: "BlueZ", dependencies: ["DBus", "Bluetooth", "BoundedFile"]),

        // Where device keys live: software (wrapped under a key-encryption key), TPM 2.0.
        // PKCS#11 tokens through p11-kit's module loader.
        .target(name: "PKCS11", dependencies: ["CPKCS11", "SharedLibrary"]),
        .target(name: "SecureArea", dependencies: ["MdocCrypto", "PKCS11", "PrintableText", "BoundedFile"]),

        // Protocol layers (pure Swift).
        .target(name: "COSE", dependencies: ["CBOR", "MdocCrypto"]),
        .target(name: "ISO18013", dependencies: ["CBOR", "MdocCrypto", "COSE", "Base64"]),
        // VICALs (18013-5 Annex C.1.7): signed lists of IACAs, each trusted for its docTypes.
        .target(name: "VICAL", dependencies: ["CBOR", "COSE", "MdocCrypto", "ISO18013"]),
        // Token Status Lists (draft-ietf-oauth-status-list): references, the bit-packed list,
        // its token as CWT or JWT and the checks of that token. Sans-I/O.
        .target(
            name: "TokenStatusList",
            dependencies: ["CBOR", "COSE", "MdocCrypto", "JOSE", "Base64", "Zlib", "PrintableText"]),
        .target(name: "BoundedFile"),
        // The one rule for text from outside on its way to a terminal, a log or an error
        // message: control and bidirectional characters escaped, length bounded. No C.
        .target(name: "PrintableText"),
        // The consent model every flow shares: requests, decisions, the front-end protocol.
        .target(name: "Consent"),
        // The configuration files (kiosk policy, pre-registered verifiers) read as TOML.
        .target(name: "ConfigFile"),
        // The holder's configured trust, read from its TOML files: kiosk consent rules (the policy
        // file) and the OpenID4VP verifiers it knows in advance (the verifiers file).
        .target(
            name: "ConsentPolicy",
            dependencies: ["Consent", "ConfigFile", "MdocCrypto", "BoundedFile", "OAuthWeb", "JOSE", "OpenID4VP"]),
        // The consent dialogue on the controlling terminal.
        .target(name: "TerminalConsent", dependencies: ["Consent", "BoundedFile", "PrintableText"]),
        .target(
            name: "Presentation",
            dependencies: ["CBOR", "COSE", "MdocCrypto", "ISO18013", "Consent", "SecureArea"]),
        .target(
            name: "Wallet",
            dependencies: [
                "CBOR", "MdocCrypto", "ISO18013", "SQLite", "Consent", "Presentation", "SecureArea", "JOSE", "SDJWT",
                "SDJWTPresentable", "OAuthWeb", "TokenStatusList", "PrintableText", "BoundedFile",
            ]),
        .target(name: "MdocIssuer", dependencies: ["CBOR", "MdocCrypto", "COSE", "ISO18013", "JOSE"]),
        // ISO 18013-5 BLE without I/O: chunking, the session state machine of both GATT roles,
        // Ident, L2CAP framing, message channels, and the seams (GATT server and client roles,
        // L2CAP channels) the BlueZ implementations fill. Imports no D-Bus.
        .target(name: "BLETransport", dependencies: ["Bluetooth"]),
        // The GATT server and client roles and L2CAP sockets on BlueZ, shared by holder and
        // reader (each role parameterised by the mode's UUIDs and characteristics).
        .target(name: "BLEBlueZ", dependencies: ["BLETransport", "BlueZ", "DBus", "L2CAP"]),
        // The holder's proximity loop: a GATT server seam, BLE framing, the holder engine, consent.
        .target(
            name: "Proximity", dependencies: ["BLETransport", "Presentation", "Consent", "ISO18013", "MdocCrypto"]),
        // The reader's proximity loop: the BLE mode from the engagement, a message channel in
        // either mode, the reader engine.
        .target(name: "ProximityReader", dependencies: ["BLETransport", "Presentation", "ISO18013", "MdocCrypto"]),
        // `mdoc-reader conformance`: TS 18013-6 style holder test cases on the reader's side,
        // their evidence and reports (text, JUnit XML, JSON).
        .target(
            name: "Conformance",
            dependencies: [
                "ProximityReader", "BLETransport", "Presentation", "ISO18013", "MdocCrypto", "COSE", "CBOR",
                "MdocIssuer",
            ]),
        // What OAuth 2.0 parties share on the web: application/x-www-form-urlencoded bodies and
        // queries, https issuer identifiers and their well-known URLs (RFC 8414). No C.
        .target(name: "OAuthWeb"),
        // base64url (RFC 4648 section 5), as the mdoc: URI and JOSE write it. No C.
        .target(name: "Base64"),
        // Online presentation: JOSE over MdocCrypto, OpenID4VP 1.0 requests, DCQL, responses.
        .target(name: "JOSE", dependencies: ["MdocCrypto", "Base64"]),
        // SD-JWT (RFC 9901): Disclosures, processing, presentations with a Key Binding JWT.
        .target(name: "SDJWT", dependencies: ["JOSE", "MdocCrypto", "Base64", "OAuthWeb"]),
        // An SD-JWT VC the holder can present: the credential and its key-binding key.
        .target(name: "SDJWTPresentable", dependencies: ["SDJWT", "SecureArea"]),
        .target(
            name: "OpenID4VP",
            dependencies: [
                "JOSE", "CBOR", "MdocCrypto", "ISO18013", "Consent", "Presentation", "SDJWT", "SDJWTPresentable",
                "OAuthWeb", "Base64", "PrintableText",
            ]),
        // Receiving credentials: OpenID4VCI 1.0 offers, metadata, tokens, proofs, responses.
        .target(
            name: "OpenID4VCI", dependencies: ["JOSE", "MdocCrypto", "OAuthWeb", "Consent", "PrintableText", "Base64"]),
        // HTTPS (libcurl, the Curl target) under an endpoint policy, and its two clients: the
        // issuer's endpoints (DPoP, nonce retry, OAuth errors) and the verifier's.
        .target(
            name: "OnlineTransport",
            dependencies: [
                "OpenID4VP", "OpenID4VCI", "OAuthWeb", "Wallet", "MdocCrypto", "JOSE", "PrintableText", "SDJWT", "Curl",
                "SecureArea", "TokenStatusList",
            ]),
        // The online flows, step by step, over the two clients: OpenID4VP presentation (fetch,
        // verify, consent, respond, record) and OpenID4VCI issuance (offer, metadata, consent,
        // token, credential, store and notify).
        .target(
            name: "OnlineFlows",
            dependencies: [
                "OnlineTransport", "OpenID4VP", "OpenID4VCI", "OAuthWeb", "Wallet", "Consent", "Presentation",
                "ISO18013", "MdocCrypto", "JOSE", "SecureArea", "SDJWTPresentable", "Base64", "Curl", "PrintableText",
            ]),

        // The holder both adapters (the command line, the D-Bus service) run: built once from
        // settings; present over proximity, present online, receive; one outcome each.
        .target(
            name: "HolderRuntime",
            dependencies: [
                "Proximity", "BLETransport", "OnlineTransport", "OnlineFlows", "OpenID4VP", "Wallet", "Consent",
                "Presentation", "ISO18013", "MdocCrypto", "SecureArea", "PrintableText", "TokenStatusList",
            ]),

        // `mdoc-holder serve`: the D-Bus service (Holder1, AgentManager1, agent consent, kiosk).
        .target(
            name: "HolderService",
            dependencies: [
                "DBus", "BlueZ", "BLETransport", "BLEBlueZ", "Proximity", "Wallet", "Consent", "ConsentPolicy",
                "Presentation", "HolderRuntime", "OnlineTransport", "OnlineFlows", "OpenID4VP", "OpenID4VCI",
                "ISO18013",
                "MdocCrypto", "QRCode", "SecureArea", "PrintableText", "BoundedFile", "TokenStatusList",
            ]),

        // What the command-line tools share: certificate files (PEM or DER), --consent,
        // unbuffered output.
        .target(
            name: "CommandLineSupport",
            dependencies: [
                "MdocCrypto", "BoundedFile", "ISO18013", "VICAL", "PrintableText",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]),
        // The version `--version` prints: Version.swift, checked against the VERSION file by
        // `make version-check`.
        .target(name: "ProjectVersion"),

        // Executables.
        .executableTarget(
            name: "mdoc-holder",
            dependencies: [
                "ISO18013", "QRCode", "Wallet", "Consent", "ConsentPolicy", "TerminalConsent", "Presentation",
                "OnlineTransport", "Proximity", "BLETransport", "BLEBlueZ", "BlueZ", "HolderService", "HolderRuntime",
                "SecureArea", "BoundedFile", "CommandLineSupport", "SDJWT", "JOSE", "PrintableText", "ProjectVersion",
                "CBOR", "MdocCrypto", "OpenID4VP", "OpenID4VCI", "OnlineFlows", "DBus", "SQLite",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]),
        .executableTarget(
            name: "mdoc-reader",
            dependencies: [
                "CBOR", "ISO18013", "Presentation", "MdocCrypto", "BlueZ", "BLETransport", "BLEBlueZ", "L2CAP",
                "ProximityReader", "Conformance",
                "CommandLineSupport", "PrintableText", "ProjectVersion", "Base64", "VICAL", "OnlineTransport",
                "TokenStatusList",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]),
        .executableTarget(
            name: "mdoc-issuer",
            dependencies: [
                "MdocIssuer", "CBOR", "ISO18013", "MdocCrypto", "CommandLineSupport", "ProjectVersion",
                "TokenStatusList",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]),
        .executableTarget(
            name: "mdoc-demo",
            dependencies: [
                "CBOR", "MdocCrypto", "ISO18013", "Presentation", "Wallet", "Consent", "ConsentPolicy",
                "TerminalConsent", "QRCode", "SecureArea",
            ]),
        .executableTarget(
            name: "MdocBenchmarks",
            dependencies: [
                "CBOR", "COSE", "MdocCrypto", "ISO18013", "Consent", "Presentation", "MdocIssuer", "SecureArea", "JOSE",
            ]),
        // BLE figures through a real bluetoothd and of the link alone (in the BlueZ VM: `make bench-ble`).
        .executableTarget(
            name: "BLEBenchmarks",
            dependencies: [
                "BlueZ", "DBus", "BLETransport", "BLEBlueZ", "ISO18013", "L2CAP", "ProximityReader", "Presentation",
                "MdocCrypto", "CommandLineSupport",
            ]),
        // Fuzz targets for every decoder of outside bytes (docs/fuzzing.md).
        .executableTarget(
            name: "CBORFuzzer",
            dependencies: [
                "CBOR", "ISO18013", "BLETransport", "JOSE", "OpenID4VP", "OpenID4VCI", "Consent", "ConfigFile",
                "ConsentPolicy", "VICAL", "TokenStatusList",
            ]),

        // Tests.
        .target(name: "TestSupport", dependencies: ["CBOR"], path: "Tests/TestSupport"),
        // `present`'s quick command-line reader against ArgumentParser (the executable's own code).
        .testTarget(
            name: "mdoc-holderTests",
            dependencies: ["mdoc-holder", .product(name: "ArgumentParser", package: "swift-argument-parser")]),
        .testTarget(name: "CBORTests", dependencies: ["CBOR", "TestSupport"]),
        .testTarget(name: "SharedLibraryTests", dependencies: ["SharedLibrary"]),
        .testTarget(name: "CommandLineSupportTests", dependencies: ["CommandLineSupport"]),
        .testTarget(name: "MdocCryptoTests", dependencies: ["MdocCrypto", "TestSupport"]),
        .testTarget(name: "SecureAreaTests", dependencies: ["SecureArea", "PKCS11", "MdocCrypto", "TestSupport"]),
        .testTarget(name: "COSETests", dependencies: ["COSE", "CBOR", "MdocCrypto", "TestSupport"]),
        .testTarget(
            name: "VICALTests", dependencies: ["VICAL", "ISO18013", "COSE", "CBOR", "MdocCrypto", "MdocIssuer"]),
        .testTarget(
            name: "ISO18013Tests", dependencies: ["ISO18013", "CBOR", "COSE", "MdocCrypto", "TestSupport", "Base64"]),
        .testTarget(name: "QRCodeTests", dependencies: ["QRCode", "Zlib", "TestSupport"]),
        .testTarget(
            name: "WalletTests",
            dependencies: [
                "Wallet", "Presentation", "MdocIssuer", "TestSupport", "SecureArea", "SDJWT", "JOSE", "CBOR", "Consent",
                "ISO18013", "MdocCrypto", "SQLite", "TokenStatusList",
            ]),
        .testTarget(
            name: "ConsentTests",
            dependencies: [
                "Consent", "ConsentPolicy", "ConfigFile", "TerminalConsent", "PrintableText", "MdocCrypto",
                "TestSupport",
            ]),
        .testTarget(name: "BoundedFileTests", dependencies: ["BoundedFile"]),
        .testTarget(name: "PrintableTextTests", dependencies: ["PrintableText"]),
        .testTarget(name: "ConfigFileTests", dependencies: ["ConfigFile"]),
        .testTarget(
            name: "PresentationTests",
            dependencies: [
                "Presentation", "Wallet", "MdocIssuer", "TestSupport", "SecureArea", "CBOR", "COSE", "Consent",
                "ISO18013",
                "MdocCrypto",
            ]),
        .testTarget(
            name: "MdocIssuerTests",
            dependencies: ["MdocIssuer", "CBOR", "COSE", "ISO18013", "MdocCrypto", "TestSupport"]),
        .testTarget(name: "DBusTests", dependencies: ["DBus", "TestSupport"]),
        .testTarget(name: "BlueZTests", dependencies: ["BlueZ", "DBus", "TestSupport"]),
        .testTarget(name: "BLEBlueZTests", dependencies: ["BLEBlueZ", "BLETransport", "BlueZ", "TestSupport"]),
        // In-memory GATT roles and L2CAP channels for the BLE tests of holder and reader.
        .target(
            name: "BLETestSupport",
            dependencies: ["BLETransport", "MdocIssuer", "MdocCrypto", "Presentation", "ISO18013", "CBOR"],
            path: "Tests/BLETestSupport"),
        .testTarget(name: "BLETransportTests", dependencies: ["BLETransport", "BLETestSupport"]),
        .testTarget(name: "L2CAPTests", dependencies: ["L2CAP"]),
        .testTarget(
            name: "ProximityTests",
            dependencies: [
                "Proximity", "BLETransport", "BLETestSupport", "MdocIssuer", "TestSupport", "CBOR", "Consent",
                "ISO18013",
                "MdocCrypto", "Presentation",
            ]),
        .testTarget(
            name: "ProximityReaderTests",
            dependencies: [
                "ProximityReader", "Proximity", "BLETransport", "BLETestSupport", "Presentation", "ISO18013",
                "MdocIssuer", "MdocCrypto", "Consent", "TestSupport",
            ]),
        .testTarget(
            name: "ConformanceTests",
            dependencies: [
                "Conformance", "ProximityReader", "Proximity", "BLETransport", "BLETestSupport", "Presentation",
                "ISO18013", "MdocCrypto", "Consent",
            ]),
        // A holder with switchable faults (MDOC_FAULT), for the conformance tier only: the
        // real holder loop over BlueZ behind a GATT server that misbehaves. Never installed.
        .executableTarget(
            name: "mdoc-fault-holder",
            dependencies: [
                "Proximity", "BLETransport", "BLEBlueZ", "BlueZ", "BLETestSupport", "Presentation", "ISO18013",
                "MdocCrypto", "Consent",
            ],
            path: "Tests/Support/FaultHolder"),
        .testTarget(name: "JOSETests", dependencies: ["JOSE", "MdocCrypto", "TestSupport", "Base64"]),
        .testTarget(
            name: "TokenStatusListTests",
            dependencies: [
                "TokenStatusList", "Zlib", "CBOR", "COSE", "JOSE", "MdocCrypto", "MdocIssuer", "ISO18013",
                "TestSupport", "Base64",
            ]),
        .testTarget(name: "SDJWTTests", dependencies: ["SDJWT", "JOSE", "MdocCrypto", "TestSupport", "Base64"]),
        .testTarget(name: "OAuthWebTests", dependencies: ["OAuthWeb"]),
        .testTarget(
            name: "OpenID4VCITests",
            dependencies: ["OpenID4VCI", "OAuthWeb", "JOSE", "MdocCrypto", "Consent", "ConsentPolicy", "Base64"]),
        .testTarget(
            name: "OpenID4VPTests",
            dependencies: [
                "OpenID4VP", "OAuthWeb", "MdocIssuer", "TestSupport", "SecureArea", "SDJWT", "SDJWTPresentable", "JOSE",
                "CBOR", "Consent", "ISO18013", "MdocCrypto", "Presentation", "Base64", "ConsentPolicy",
            ]),
        // The command line and the service over one holder: the same session, the same outcome.
        .testTarget(
            name: "HolderRuntimeTests",
            dependencies: [
                "HolderRuntime", "HolderService", "BLETestSupport", "ProximityReader", "Proximity", "Presentation",
                "ISO18013", "MdocCrypto", "ConsentPolicy", "SQLite", "SecureArea", "Wallet", "DBus", "TestSupport",
                "MdocIssuer", "TokenStatusList", "Consent",
            ]),
        .testTarget(
            name: "HolderServiceTests",
            dependencies: [
                "HolderService", "HolderRuntime", "DBus", "Consent", "ConsentPolicy", "Wallet", "Proximity",
                "Presentation", "BLETransport", "ISO18013", "MdocCrypto", "TestSupport", "SecureArea",
                "OnlineTransport", "OnlineFlows", "OpenID4VCI",
            ]),
        .testTarget(
            name: "OnlineTransportTests",
            dependencies: [
                "OnlineTransport", "OnlineFlows", "OpenID4VP", "OAuthWeb", "Wallet", "Consent", "ConsentPolicy", "JOSE",
                "MdocCrypto", "SecureArea", "Curl", "TokenStatusList", "MdocIssuer",
            ]),
    ],
    swiftLanguageModes: [.v6]
)
