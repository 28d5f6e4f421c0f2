import CBOR
import COSE
import ISO18013
import MdocCrypto
import TestSupport
import Testing

/// DeviceEngagement and the `mdoc:` URI against the standard's QR example.
struct DeviceEngagementTests {
    let vector = Vectors.annexD("DeviceEngagement")

    @Test func readsTheAnnexDEngagement() throws {
        let e = try DeviceEngagement(bytes: vector)
        #expect(e.version == "1.0")
        #expect(e.cipherSuite == 1)
        #expect(e.eDeviceKeyBytes.taggedEncoding == Vectors.annexD("EDeviceKeyBytes"))
        #expect(e.eDeviceKey.curve == .p256)
        #expect(e.eDeviceKey.x == Vectors.annexD("EDeviceKey_x"))
        #expect(e.eDeviceKey.y == Vectors.annexD("EDeviceKey_y"))
        let ble = try #require(e.bleOptions)
        #expect(ble.peripheralServerMode || ble.centralClientMode)
        #expect(e.bytes == vector)
    }

    @Test func buildingTheSameEngagementGivesTheSameBytes() throws {
        // Our encoder writes exactly the standard's bytes for the same content.
        let parsed = try DeviceEngagement(bytes: vector)
        let key = try parsed.eDeviceKey.publicKey()
        let built = DeviceEngagement(
            eDeviceKey: key, retrievalMethods: parsed.retrievalMethods, version: parsed.version,
            otherEntries: parsed.otherEntries)
        #expect(built.bytes == vector)
    }

    @Test func theURIRoundTripsAndKeepsTheBytes() throws {
        let e = try DeviceEngagement(bytes: vector)
        #expect(e.uri.hasPrefix("mdoc:"))
        #expect(!e.uri.contains("="))
        let back = try DeviceEngagement(uri: e.uri)
        #expect(back.bytes == vector)
    }

    @Test func keepsUnknownAndSecondEditionKeys() throws {
        let key = try PrivateKey.generate(.p256).publicKey
        let ble = BleOptions(
            peripheralServerMode: true, centralClientMode: true,
            peripheralServerUUID: Array(repeating: 0xAB, count: 16),
            centralClientUUID: Array(repeating: 0xCD, count: 16), peripheralServerAddress: [1, 2, 3, 4, 5, 6],
            l2capPSM: 0x0081, otherEntries: [CBORMapEntry(99, "future")])
        let originInfos: CBOR = [["cat": 1, "type": 1, "details": ["baseUrl": "https://example.com"]]]
        let capabilities: CBOR = [0x44437: true]
        let e = DeviceEngagement(
            eDeviceKey: key, retrievalMethods: [.ble(version: 1, ble)],
            otherEntries: [CBORMapEntry(5, originInfos), CBORMapEntry(6, capabilities), CBORMapEntry(42, "x")])
        let back = try DeviceEngagement(uri: e.uri)
        #expect(back.bleOptions == ble)
        #expect(back.otherEntries.map(\.key) == [5, 6, 42])
        #expect(back.otherEntries[0].value == originInfos)
        #expect(back.bytes == e.bytes)
    }

    @Test func refusesBadEngagements() {
        #expect(throws: ISO18013Error.self) { try DeviceEngagement(uri: "https://example.com") }
        #expect(throws: ISO18013Error.self) { try DeviceEngagement(uri: "mdoc:***") }
        #expect(throws: ISO18013Error.self) { try DeviceEngagement(uri: "mdoc:") }
        // Security missing, a key that is not a COSE_Key, a BLE UUID of the wrong size.
        for bad: CBOR in [
            [0: "1.0"], [0: "1.0", 1: [1, .embedded(EmbeddedCBOR(["a": 1]))]],
            [
                0: "1.0", 1: [1, .embedded(EmbeddedCBOR(COSEKey(try! PrivateKey.generate(.p256).publicKey).cbor))],
                2: [[2, 1, [0: true, 10: .bytes([1, 2, 3])]]],
            ],
        ] {
            #expect(throws: ISO18013Error.self) { try DeviceEngagement(bytes: bad.encoded()) }
        }
    }
}
