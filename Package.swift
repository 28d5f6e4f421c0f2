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
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/LebJe/TOMLKit", from: "0.6.0"),
        // The plain-HTTP loopback listener of the authorization code flow. HTTPS goes through
        // libcurl and the system's OpenSSL (the Curl target): no TLS library is compiled in.
        .package(url: "https://github.com/apple/swift-nio", from: "2.100.0"),
    ],
    targets: [
        // C libraries, each reached from exactly one Swift target.
        .systemLibrary(name: "CLibCBOR", pkgConfig: "libcbor", providers: [.apt(["libcbor-dev"])]),
        .systemLibrary(name: "COpenSSL", pkgConfig: "openssl", providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CQRencode", pkgConfig: "libqrencode", providers: [.apt(["libqrencode-dev"])]),
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "CDBus", pkgConfig: "dbus-1", providers: [.apt(["libdbus-1-dev"])]),
        .systemLibrary(name: "CBluetooth", pkgConfig: "bluez", providers: [.apt(["libbluetooth-dev"])]),
        .systemLibrary(name: "CPKCS11", pkgConfig: "p11-kit-1", providers: [.apt(["libp11-kit-dev"])]),
        // HTTPS through the system's OpenSSL 3 (Debian's libcurl4-openssl-dev).
        .systemLibrary(name: "CCurl", pkgConfig: "libcurl", providers: [.apt(["libcurl4-openssl-dev"])]),

        // Swift wrappers.
        .target(name: "CBOR", dependencies: ["CLibCBOR"]),
        .target(name: "MdocCrypto", dependencies: ["COpenSSL"]),
        .target(name: "QRCode", dependencies: ["CQRencode"]),
        .target(name: "SQLite", dependencies: ["CSQLite"]),
        .target(name: "DBus", dependencies: ["CDBus"]),
        // L2CAP connection-oriented channels over libbluetooth sockets.
        .target(name: "L2CAP", dependencies: ["CBluetooth"]),
        // HTTPS exchanges (libcurl): a total deadline, a size cap, a check of every address
        // before a socket is made for it.
        .target(name: "Curl", dependencies: ["CCurl"]),

        // BlueZ D-Bus client: knows nothing of mdocs.
        // Bluetooth values every layer shares (one UUID type), no C.
        .target(name: "Bluetooth"),
        .target(name: "BlueZ", dependencies: ["DBus", "Bluetooth"]),

        // Where device keys live: software (wrapped under a key-encryption key), TPM 2.0.
        // PKCS#11 tokens through p11-kit's module loader.
        .target(name: "PKCS11", dependencies: ["CPKCS11"]),
        .target(name: "SecureArea", dependencies: ["MdocCrypto", "PKCS11"]),

        // Protocol layers (pure Swift).
        .target(name: "COSE", dependencies: ["CBOR", "MdocCrypto"]),
        .target(name: "ISO18013", dependencies: ["CBOR", "MdocCrypto", "COSE"]),
        .target(name: "BoundedFile"),
        // The one rule for text from outside on its way to a terminal, a log or an error
        // message: control and bidirectional characters escaped, length bounded. No C.
        .target(name: "PrintableText"),
        .target(
            name: "Consent",
            dependencies: [
                "MdocCrypto", "BoundedFile", "PrintableText", .product(name: "TOMLKit", package: "TOMLKit"),
            ]),
        .target(
            name: "Presentation",
            dependencies: ["CBOR", "COSE", "MdocCrypto", "ISO18013", "Consent", "SecureArea", "SDJWT"]),
        .target(
            name: "Wallet", dependencies: ["ISO18013", "SQLite", "Consent", "Presentation", "SecureArea", "SDJWT"]),
        .target(name: "MdocIssuer", dependencies: ["ISO18013"]),
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
        // Online presentation: JOSE over MdocCrypto, OpenID4VP 1.0 requests, DCQL, responses.
        .target(name: "JOSE", dependencies: ["MdocCrypto"]),
        // SD-JWT (RFC 9901): Disclosures, processing, presentations with a Key Binding JWT.
        .target(name: "SDJWT", dependencies: ["JOSE", "MdocCrypto"]),
        .target(
            name: "OpenID4VP",
            dependencies: ["JOSE", "CBOR", "MdocCrypto", "ISO18013", "Consent", "Presentation", "BoundedFile", "SDJWT"]),
        // Receiving credentials: OpenID4VCI 1.0 offers, metadata, tokens, proofs, responses.
        .target(name: "OpenID4VCI", dependencies: ["JOSE", "MdocCrypto", "OpenID4VP", "Consent", "PrintableText"]),
        // The OpenID4VP and OpenID4VCI flows over HTTPS (libcurl, the Curl target): fetch, verify, consent,
        // respond or store, record.
        .target(
            name: "OnlineTransport",
            dependencies: [
                "OpenID4VP", "OpenID4VCI", "Wallet", "Consent", "Presentation", "ISO18013", "MdocCrypto", "JOSE",
                "PrintableText", "SDJWT", "Curl",
                // The loopback redirect listener of the authorization code flow (plain HTTP).
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ]),

        // `mdoc-holder serve`: the D-Bus service (Holder1, AgentManager1, agent consent, kiosk).
        .target(
            name: "HolderService",
            dependencies: [
                "DBus", "BlueZ", "BLETransport", "BLEBlueZ", "Proximity", "Wallet", "Consent", "Presentation",
                "OnlineTransport", "OpenID4VP", "OpenID4VCI", "ISO18013", "MdocCrypto", "QRCode", "SecureArea",
                "PrintableText", "BoundedFile",
            ]),

        // What the command-line tools share: certificate files (PEM or DER), --consent,
        // unbuffered output.
        .target(name: "CommandLineSupport", dependencies: ["MdocCrypto", "BoundedFile"]),
        // The version `--version` prints: Version.swift, checked against the VERSION file by
        // `make version-check`.
        .target(name: "ProjectVersion"),

        // Executables.
        .executableTarget(
            name: "mdoc-holder",
            dependencies: [
                "ISO18013", "QRCode", "Wallet", "Consent", "Presentation", "OnlineTransport", "Proximity",
                "BLETransport", "BLEBlueZ", "BlueZ", "HolderService", "SecureArea", "BoundedFile", "CommandLineSupport",
                "SDJWT", "JOSE", "PrintableText", "ProjectVersion",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]),
        .executableTarget(
            name: "mdoc-reader",
            dependencies: [
                "ISO18013", "Presentation", "MdocCrypto", "BlueZ", "BLETransport", "BLEBlueZ", "L2CAP",
                "ProximityReader", "Conformance",
                "CommandLineSupport", "PrintableText", "ProjectVersion",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]),
        .executableTarget(
            name: "mdoc-issuer",
            dependencies: [
                "MdocIssuer", "CommandLineSupport", "ProjectVersion",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]),
        .executableTarget(
            name: "mdoc-demo", dependencies: ["Presentation", "Wallet", "Consent", "QRCode", "SecureArea"]),
        .executableTarget(
            name: "MdocBenchmarks", dependencies: ["ISO18013", "Presentation", "MdocIssuer", "SecureArea", "JOSE"]),
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
            dependencies: ["CBOR", "ISO18013", "BLETransport", "JOSE", "OpenID4VP", "OpenID4VCI", "Consent"]),

        // Tests.
        .target(name: "TestSupport", dependencies: ["CBOR"], path: "Tests/TestSupport"),
        .testTarget(name: "CBORTests", dependencies: ["CBOR", "TestSupport"]),
        .testTarget(name: "MdocCryptoTests", dependencies: ["MdocCrypto", "TestSupport"]),
        .testTarget(name: "SecureAreaTests", dependencies: ["SecureArea", "PKCS11", "MdocCrypto", "TestSupport"]),
        .testTarget(name: "COSETests", dependencies: ["COSE", "TestSupport"]),
        .testTarget(name: "ISO18013Tests", dependencies: ["ISO18013", "TestSupport"]),
        .testTarget(name: "QRCodeTests", dependencies: ["QRCode", "TestSupport"]),
        .testTarget(
            name: "WalletTests",
            dependencies: ["Wallet", "Presentation", "MdocIssuer", "TestSupport", "SecureArea", "SDJWT", "JOSE"]),
        .testTarget(name: "ConsentTests", dependencies: ["Consent", "PrintableText", "TestSupport"]),
        .testTarget(name: "BoundedFileTests", dependencies: ["BoundedFile"]),
        .testTarget(name: "PrintableTextTests", dependencies: ["PrintableText"]),
        .testTarget(
            name: "PresentationTests",
            dependencies: ["Presentation", "Wallet", "MdocIssuer", "TestSupport", "SecureArea"]),
        .testTarget(name: "MdocIssuerTests", dependencies: ["MdocIssuer", "TestSupport"]),
        .testTarget(name: "DBusTests", dependencies: ["DBus", "TestSupport"]),
        .testTarget(name: "BlueZTests", dependencies: ["BlueZ", "DBus", "TestSupport"]),
        .testTarget(name: "BLEBlueZTests", dependencies: ["BLEBlueZ", "BLETransport", "BlueZ", "TestSupport"]),
        // In-memory GATT roles and L2CAP channels for the BLE tests of holder and reader.
        .target(
            name: "BLETestSupport",
            dependencies: ["BLETransport", "MdocIssuer", "MdocCrypto", "Presentation", "ISO18013"],
            path: "Tests/BLETestSupport"),
        .testTarget(name: "BLETransportTests", dependencies: ["BLETransport", "BLETestSupport"]),
        .testTarget(name: "L2CAPTests", dependencies: ["L2CAP"]),
        .testTarget(
            name: "ProximityTests",
            dependencies: ["Proximity", "BLETransport", "BLETestSupport", "MdocIssuer", "TestSupport"]),
        .testTarget(
            name: "ProximityReaderTests",
            dependencies: [
                "ProximityReader", "Proximity", "BLETransport", "BLETestSupport", "Presentation", "ISO18013",
                "MdocIssuer", "MdocCrypto", "TestSupport",
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
        .testTarget(name: "JOSETests", dependencies: ["JOSE", "TestSupport"]),
        .testTarget(name: "SDJWTTests", dependencies: ["SDJWT", "JOSE", "MdocCrypto", "TestSupport"]),
        .testTarget(
            name: "OpenID4VCITests", dependencies: ["OpenID4VCI", "OpenID4VP", "JOSE", "MdocCrypto", "Consent"]),
        .testTarget(
            name: "OpenID4VPTests", dependencies: ["OpenID4VP", "MdocIssuer", "TestSupport", "SecureArea", "SDJWT"]),
        .testTarget(
            name: "HolderServiceTests",
            dependencies: [
                "HolderService", "DBus", "Consent", "Wallet", "Proximity", "Presentation", "BLETransport", "ISO18013",
                "MdocCrypto", "TestSupport", "SecureArea", "OnlineTransport", "OpenID4VCI",
            ]),
        .testTarget(
            name: "OnlineTransportTests",
            dependencies: [
                "OnlineTransport", "OpenID4VP", "Wallet", "Consent", "JOSE", "MdocCrypto", "SecureArea", "Curl",
            ]),
    ],
    swiftLanguageModes: [.v6]
)
