import BlueZ
import Foundation
import Testing

/// The EATT warning reads bluetoothd's main.conf as bluetoothd does: the `[GATT]` section's
/// `Channels`, BlueZ's default (3) when it is commented out or absent.
struct BluetoothdConfigurationTests {
    @Test func debianDefaultFileMeansThreeChannelsAndAWarning() {
        let text = """
            [General]
            #Name = BlueZ
            [GATT]
            # Number of ATT channels
            #Channels = 3
            """
        let configuration = BluetoothdConfiguration(parsing: text)
        #expect(configuration.gattChannels == 3)
        let warnings = configuration.warnings(path: "/etc/bluetooth/main.conf")
        #expect(warnings.count == 1)
        #expect(warnings[0].contains("Channels = 3") && warnings[0].contains("set Channels = 1"))
    }

    @Test func oneChannelInTheGATTSectionNeedsNoWarning() {
        let configuration = BluetoothdConfiguration(parsing: "[GATT]\n  Channels=1  \nExchangeMTU = 513\n")
        #expect(configuration.gattChannels == 1)
        #expect(configuration.warnings().isEmpty)
    }

    @Test func channelsOutsideTheGATTSectionDoNotCount() {
        let configuration = BluetoothdConfiguration(parsing: "[General]\nChannels = 1\n[GATT]\nCache = always\n")
        #expect(configuration.gattChannels == BluetoothdConfiguration.defaultGATTChannels)
    }

    @Test func crlfLinesTabsAndSpacesInsideTheBracketsAreReadAsBluetoothdReadsThem() {
        let configuration = BluetoothdConfiguration(parsing: "[General]\r\n[ GATT ]\r\n\tChannels\t=\t2\r\n")
        #expect(configuration.gattChannels == 2)
        #expect(BluetoothdConfiguration(parsing: "[GATT]\n; Channels = 1\nChannels = x\n").gattChannels == 3)
    }

    @Test func anUnreadableFileGivesNoConfigurationAndNoWarning() throws {
        #expect(BluetoothdConfiguration.read(path: "/nonexistent/bluetooth/main.conf") == nil)
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("main-\(UUID()).conf")
        try "[GATT]\nChannels = 2\n".write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        #expect(BluetoothdConfiguration.read(path: file.path)?.gattChannels == 2)
    }
}
