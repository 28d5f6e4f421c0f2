import CBOR
import COSE
import Foundation
import ISO18013
import MdocCrypto
import TestSupport
import Testing

/// DeviceEngagement "1.1" (18013-5 second edition): OriginInfos (key 5) and Capabilities
/// (key 6), read from what peers send and built by our holder; the transcript always holds
/// the engagement bytes as they travelled.
struct SecondEditionEngagementTests {
    /// A second-edition engagement as multipaz's wallet side sends it, from the NFC
    /// transcript of `MdocNfcV2EngagementHelperTest.testNfcOnly` (openwallet-foundation/multipaz,
    /// multipaz/src/commonTest/kotlin/org/multipaz/mdoc/nfc/MdocNfcV2EngagementHelperTest.kt):
    /// `{0: "1.1", 1: [1, EDeviceKeyBytes], 2: [[5, 1, {}]], 5: [], 6: {3: true, 4: true}}`,
    /// the form Apple Wallet sends too (with a BLE method). The EDeviceKey is the test's P-256
    /// key x = 711b42...caa9, y = 1b9955...451c.
    static let multipazNFC = [UInt8](
        hex: "a50063312e31018201d818584ba401022001215820711b420f708e686917b799e5991346c318a6bd89ac32d04e78cb537cd89"
            + "dcaa92258201b99557fca9a63617246669eababc7a36068db058e9c98b067a5eba3233b451c0281830501a0058006a203f504f5")

    @Test func readsMultipazsSecondEditionEngagement() throws {
        let e = try DeviceEngagement(bytes: Self.multipazNFC)
        #expect(e.version == "1.1")
        #expect(e.originInfos == [])
        #expect(e.capabilities?.readerAuthAllSupport == true)
        #expect(e.capabilities?.extendedRequestSupport == true)
        #expect(e.capabilities?.handoverSessionEstablishmentSupport == false)
        #expect(e.supportsReaderAuthAll)
        #expect(e.bleOptions == nil)
        #expect(e.retrievalMethods == [.other(type: 5, version: 1, options: .map([]))])
        let key = try e.eDeviceKey.publicKey()
        #expect(key.curve == .p256)
        // The transcript holds the bytes as received, byte for byte.
        let reader = try PrivateKey.generate(.p256)
        let t = SessionTranscript(deviceEngagement: e, eReaderKeyBytes: EmbeddedCBOR(COSEKey(reader.publicKey).cbor))
        #expect(t.value.arrayValue?[0] == .tagged(24, .bytes(Self.multipazNFC)))
    }

    /// Apple Wallet's form over BLE, keys in an order no encoder of ours produces and an
    /// unknown key 7: all read, the unknown one kept and ignored, the transcript on the exact bytes.
    @Test func readsTheAppleFormWithKeysInAnyOrderAndUnknownKeys() throws {
        let key = try PrivateKey.generate(.p256)
        let ble = BleOptions(
            peripheralServerMode: true, centralClientMode: false, peripheralServerUUID: [UInt8](repeating: 1, count: 16)
        )
        let methods = try CBOR.decode(
            DeviceEngagement(eDeviceKey: key.publicKey, retrievalMethods: [.ble(version: 1, ble)]).bytes)[intKey: 2]!
        let value: CBOR = .map([
            CBORMapEntry(6, .map([CBORMapEntry(4, true), CBORMapEntry(3, true), CBORMapEntry(9, "later")])),
            CBORMapEntry(0, "1.1"), CBORMapEntry(7, ["anything"]), CBORMapEntry(5, []),
            CBORMapEntry(1, [1, .embedded(EmbeddedCBOR(COSEKey(key.publicKey).cbor))]),
            CBORMapEntry(2, methods),
        ])
        let bytes = value.encoded()
        let e = try DeviceEngagement(bytes: bytes)
        #expect(e.capabilities?.readerAuthAllSupport == true && e.capabilities?.extendedRequestSupport == true)
        #expect(e.bleOptions?.peripheralServerUUID == ble.peripheralServerUUID)
        #expect(e.otherEntries.map(\.key) == [6, 7, 5])
        #expect(e.bytes == bytes)
        #expect(try DeviceEngagement(uri: e.uri).bytes == bytes)
    }

    @Test func ourHolderEngagesWithVersion11AndCapabilities() throws {
        let key = try PrivateKey.generate(.p256)
        let ble = DeviceRetrievalMethod.ble(
            version: 1, BleOptions(peripheralServerMode: true, centralClientMode: false))
        let e = DeviceEngagement(eDeviceKey: key.publicKey, retrievalMethods: [ble], version: .secondEdition)
        let decoded = try CBOR.decode(e.bytes)
        #expect(decoded[intKey: 0] == "1.1")
        #expect(decoded[intKey: 5] == .array([]))
        #expect(decoded[intKey: 6] == .map([CBORMapEntry(3, true), CBORMapEntry(4, true)]))
        let parsed = try DeviceEngagement(bytes: e.bytes)
        #expect(parsed.supportsReaderAuthAll && parsed.capabilities?.extendedRequestSupport == true)
        #expect(parsed.originInfos == [])
    }

    @Test func version10HasNeitherKeyAndAdvertisesNothing() throws {
        let key = try PrivateKey.generate(.p256)
        let e = DeviceEngagement(eDeviceKey: key.publicKey, retrievalMethods: [], version: .firstEdition)
        let decoded = try CBOR.decode(e.bytes)
        #expect(decoded[intKey: 0] == "1.0")
        #expect(decoded[intKey: 5] == nil && decoded[intKey: 6] == nil)
        #expect(!e.supportsReaderAuthAll && e.capabilities == nil)
        // Keys 5 and 6 in a "1.0" engagement mean nothing (only "1.1" has them).
        let stray = DeviceEngagement(
            eDeviceKey: key.publicKey, retrievalMethods: [], version: "1.0",
            otherEntries: [CBORMapEntry(5, []), CBORMapEntry(6, .map([CBORMapEntry(3, true)]))])
        let parsed = try DeviceEngagement(bytes: stray.bytes)
        #expect(parsed.capabilities == nil && parsed.originInfos == nil && !parsed.supportsReaderAuthAll)
    }

    @Test func capabilitiesOfTheWrongTypeAreIgnoredNotFatal() throws {
        let key = try PrivateKey.generate(.p256)
        for (five, six) in [
            (CBOR.text("x"), CBOR.bool(true)), (.map([]), .array([3])), (.array([]), .map([CBORMapEntry(3, 1)])),
        ] {
            let e = DeviceEngagement(
                eDeviceKey: key.publicKey, retrievalMethods: [], version: "1.1",
                otherEntries: [CBORMapEntry(5, five), CBORMapEntry(6, six)])
            let parsed = try DeviceEngagement(bytes: e.bytes)
            #expect(!parsed.supportsReaderAuthAll, "\(six)")
        }
    }
}
