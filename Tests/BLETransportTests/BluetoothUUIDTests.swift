import BLETransport
import Testing

struct BluetoothUUIDTests {
    @Test func theTextFormRoundTripsInLowercase() throws {
        let text = "00000001-A123-48CE-896B-4C76973373E6"
        let uuid = try #require(BluetoothUUID(text))
        #expect(uuid.description == "00000001-a123-48ce-896b-4c76973373e6")
        #expect(BluetoothUUID(uuid.description) == uuid)
    }

    @Test func theEngagementBytesAreBigEndian() throws {
        let bytes: [UInt8] = [
            0x45, 0xEF, 0xEF, 0x74, 0x2B, 0x2C, 0x4E, 0x54, 0x9B, 0x0C, 0x1A, 0x4E, 0x38, 0x42, 0x4F, 0x3D,
        ]
        let uuid = try #require(BluetoothUUID(bytes: bytes))
        #expect(uuid.description == "45efef74-2b2c-4e54-9b0c-1a4e38424f3d")
        #expect(uuid.bytes == bytes)
        #expect(uuid.high == 0x45EF_EF74_2B2C_4E54)
        #expect(uuid.low == 0x9B0C_1A4E_3842_4F3D)
    }

    @Test(arguments: [
        "", "00000001-a123-48ce-896b-4c76973373e", "00000001-a123-48ce-896b-4c76973373e6a",
        "00000001a123-48ce-896b-4c76973373e6-", "0000000g-a123-48ce-896b-4c76973373e6",
        "{00000001-a123-48ce-896b-4c76973373e6}", "00000001_a123_48ce_896b_4c76973373e6", "2a1g", "0x", "123456789",
        "00000001-a123-48ce-896b-4c76973373é",
    ])
    func malformedTextIsRefused(_ text: String) {
        #expect(BluetoothUUID(text) == nil)
    }

    @Test func shortFormsExpandWithTheBluetoothBaseUUID() throws {
        let text16 = "0x180D"
        let text32 = "0000180d"
        #expect(BluetoothUUID(text16)?.description == "0000180d-0000-1000-8000-00805f9b34fb")
        #expect(BluetoothUUID(text32) == BluetoothUUID(text16))
        let wide = "12345678"
        #expect(BluetoothUUID(wide)?.description == "12345678-0000-1000-8000-00805f9b34fb")
    }

    @Test(arguments: [0, 15, 17, 32])
    func onlySixteenBytesAreAUUID(_ count: Int) {
        #expect(BluetoothUUID(bytes: [UInt8](repeating: 1, count: count)) == nil)
    }

    @Test func theCharacteristicUUIDsAreTheStandardOnes() {
        let p = MdocBluetoothUUIDs.peripheralServer
        #expect(p.state.description == "00000001-a123-48ce-896b-4c76973373e6")
        #expect(p.client2Server.description == "00000002-a123-48ce-896b-4c76973373e6")
        #expect(p.server2Client.description == "00000003-a123-48ce-896b-4c76973373e6")
        #expect(p.ident == nil)
        #expect(p.l2capPSM.description == "0000000a-a123-48ce-896b-4c76973373e6")
        let c = MdocBluetoothUUIDs.centralClient
        #expect(c.state.description == "00000005-a123-48ce-896b-4c76973373e6")
        #expect(c.client2Server.description == "00000006-a123-48ce-896b-4c76973373e6")
        #expect(c.server2Client.description == "00000007-a123-48ce-896b-4c76973373e6")
        #expect(c.ident?.description == "00000008-a123-48ce-896b-4c76973373e6")
        #expect(c.l2capPSM.description == "0000000b-a123-48ce-896b-4c76973373e6")
    }

    @Test func stateValuesAreOneByte() {
        #expect(BLEStateValue.start.value == [0x01])
        #expect(BLEStateValue.end.value == [0x02])
        #expect(BLEStateValue(value: [0x01]) == .start)
        #expect(BLEStateValue(value: [0x02]) == .end)
        #expect(BLEStateValue(value: [0x03]) == nil)
        #expect(BLEStateValue(value: [0x01, 0x00]) == nil)
        #expect(BLEStateValue(value: []) == nil)
    }

    @Test func anIdentIsSixteenBytesAndMatchesOnlyItself() throws {
        #expect(BLEIdent(bytes: [UInt8](repeating: 0, count: 15)) == nil)
        let bytes = [UInt8](0..<16)
        let ident = try #require(BLEIdent(bytes: bytes))
        #expect(ident.matches(bytes))
        var other = bytes
        other[15] ^= 1
        #expect(!ident.matches(other))
        #expect(!ident.matches(bytes.dropLast()))
        #expect(!ident.matches(bytes + [0]))
    }
}
