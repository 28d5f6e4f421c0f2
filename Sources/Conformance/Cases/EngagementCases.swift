import BLETransport
import CBOR
import ISO18013
import MdocCrypto

/// The engagement's structure (18013-5 8.2.1.1): read from the `mdoc:` URI alone.
enum EngagementCases {
    static let all = [structure, secondEdition, bleOption]

    static let structure = ConformanceCase(
        id: "mDL_MS_DE_Gen_01",
        title: "DeviceEngagement from the QR code: version, Security, EDeviceKey",
        expectation:
            "an mdoc: URI without base64url padding; version \"1.x\", Security = [1, EDeviceKeyBytes] with a COSE_Key on a cipher suite 1 curve whose "
            + "point is valid (DeviceRetrievalMethods are optional here; BLE_DE_01 checks BLE)",
        reference: "ISO/IEC 18013-5 8.2.1.1 (DeviceEngagement), the QR code content, 9.1.5.2 (cipher suite 1 curves)"
    ) { context throws(CaseStop) in
        let engagement = context.engagement
        context.evidence.note("DeviceEngagementBytes", bytes: engagement.bytes)
        if context.uri.contains("=") {
            let padding = context.uri.count { $0 == "=" }
            context.evidence.note(
                "mdoc: URI with \(padding) \"=\" (its last 16 bytes, as text)",
                bytes: Array(context.uri.utf8.suffix(16)))
            throw .fail(
                "the mdoc: URI has base64url padding (\"=\"); the QR content is \"mdoc:\" + base64url without "
                    + "padding (18013-5, device engagement by QR code), and strict readers refuse a padded one")
        }
        guard engagement.version.hasPrefix("1.") else {
            throw .fail("version is \"\(engagement.version)\", not 1.x")
        }
        guard engagement.cipherSuite == 1 else { throw .fail("cipher suite \(engagement.cipherSuite), not 1") }
        do {
            _ = try engagement.eDeviceKey.publicKey()
        } catch {
            throw .fail("EDeviceKey is not a usable public key: \(error)")
        }
        guard engagement.eDeviceKey.curve.supportsKeyAgreement else {
            throw .fail("EDeviceKey is on \(engagement.eDeviceKey.curve.rawValue), which cannot agree keys")
        }
        return "version \(engagement.version), cipher suite 1, EDeviceKey \(engagement.eDeviceKey.curve.rawValue), "
            + "\(engagement.retrievalMethods.count) retrieval method(s)"
    }

    static let secondEdition = ConformanceCase(
        id: "mDL_MS_DE_Gen_02",
        title: "the DeviceEngagement's second-edition keys: version, OriginInfos (5), Capabilities (6)",
        expectation:
            "a \"1.1\" engagement: key 5 an array, key 6 a map whose keys 3 (ReaderAuthAll) and 4 (extended "
            + "requests) are booleans when present; a \"1.0\" engagement (a first-edition holder) has neither key",
        reference: "ISO/IEC 18013-5 second edition 8.2.1.1 (DeviceEngagement, OriginInfos, Capabilities)"
    ) { context throws(CaseStop) in
        let engagement = context.engagement
        context.evidence.note("DeviceEngagementBytes", bytes: engagement.bytes)
        let capabilities = EngagementCapabilities(of: engagement)
        let problems = capabilities.problems
        guard problems.isEmpty else {
            throw .fail("version \"\(engagement.version)\": " + problems.joined(separator: "; "))
        }
        if capabilities.isFirstEdition {
            return "version 1.0 without keys 5 and 6: a first-edition engagement (readers send it 1.0 requests)"
        }
        return "version \(engagement.version): " + capabilities.summary
    }

    static let bleOption = ConformanceCase(
        id: "BLE_DE_01",
        title: "the engagement offers BLE: [2, 1, BleOptions] with a mode and its service UUID",
        expectation:
            "a BLE DeviceRetrievalMethod whose options set peripheral-server (key 0) or central-client (key 1) mode "
            + "with the 16-byte UUID of that mode (key 10 or 11)",
        reference: "ISO/IEC 18013-5 8.2.2.2 (BleOptions), 8.3.3.1.1"
    ) { context throws(CaseStop) in
        context.evidence.note("DeviceEngagementBytes", bytes: context.engagement.bytes)
        guard let options = context.engagement.bleOptions else {
            throw .fail("the engagement has no BLE DeviceRetrievalMethod (type 2)")
        }
        var modes: [String] = []
        if options.peripheralServerMode {
            guard options.peripheralServerUUID.flatMap(BluetoothUUID.init(bytes:)) != nil else {
                throw .fail("peripheral-server mode without a 16-byte UUID (key 10)")
            }
            modes.append("peripheral-server")
        }
        if options.centralClientMode {
            guard options.centralClientUUID.flatMap(BluetoothUUID.init(bytes:)) != nil else {
                throw .fail("central-client mode without a 16-byte UUID (key 11)")
            }
            modes.append("central-client")
        }
        guard !modes.isEmpty else { throw .fail("BleOptions offer neither mode") }
        return "BLE offered: \(modes.joined(separator: " and ")) mode"
            + (options.l2capPSM.map { ", L2CAP PSM \($0)" } ?? "")
    }
}
