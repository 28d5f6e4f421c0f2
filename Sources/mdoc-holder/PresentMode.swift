import ArgumentParser
import Proximity

/// `present --mode`: which ISO 18013-5 BLE modes the engagement offers.
enum PresentMode: String, ExpressibleByArgument, CaseIterable {
    case peripheral
    case central
    case both

    func offers(_ mode: ProximityMode) -> Bool {
        switch (self, mode) {
        case (.both, _), (.peripheral, .peripheralServer), (.central, .centralClient): return true
        default: return false
        }
    }
}
