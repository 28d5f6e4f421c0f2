import ArgumentParser
import Proximity

extension ProximityModeOption: ExpressibleByArgument {}

/// The options of a proximity session, as `present` and `serve` take them (one parser for
/// both, so the command line and the service offer the same).
struct ProximityArguments: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "BLE mode the engagement offers: peripheral (the holder is the GATT server), central (the reader is; "
                + "the holder scans for it and checks its Ident) or both (whichever the reader uses). For serve: "
                + "of StartProximity calls that name none, and of the kiosk.",
            valueName: "peripheral|central|both"))
    var mode: ProximityModeOption = .peripheral

    @Flag(
        help: ArgumentHelp(
            "Use L2CAP: in peripheral-server mode also offer a channel (engagement key 21 and the PSM "
                + "characteristic), in central-client mode use the reader's when it serves a PSM; GATT otherwise. "
                + "Without Bluetooth sockets in the kernel, GATT only, with a warning."))
    var l2cap = false

    @Option(
        name: .customLong("max-chunk-size"),
        help: ArgumentHelp(
            "Cap each BLE chunk (header byte included) below min(512, ATT MTU - 3), for a controller that loses "
                + "larger ATT packets.", valueName: "bytes"))
    var maxChunkSize: Int?

    var options: ProximityOptions {
        ProximityOptions(modes: mode, l2cap: l2cap, maximumChunkSize: maxChunkSize)
    }

    func validate() throws {
        if let problem = options.problem { throw ValidationError("--max-chunk-size: \(problem)") }
    }
}
