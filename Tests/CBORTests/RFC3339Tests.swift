import CBOR
import Foundation
import Testing

/// The hand-written RFC 3339 reader and writer agree with Foundation's ISO 8601 formatter.
struct RFC3339Tests {
    static var formatter: ISO8601DateFormatter {
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withInternetDateTime]
        f.timeZone = TimeZone(secondsFromGMT: 0)
        return f
    }

    @Test func writesWhatFoundationWritesAndReadsItBack() {
        let formatter = Self.formatter
        var generator = SystemRandomNumberGenerator()
        let samples: [TimeInterval] =
            // (Foundation switches to the Julian calendar before 1582; RFC 3339 is Gregorian throughout.)
            [0, -1, 86_399, 86_400, 951_782_400, 4_102_444_799, -12_000_000_000, 1_709_164_800]
            + (0..<2000).map { _ in TimeInterval(Int.random(in: -2_000_000_000...8_000_000_000, using: &generator)) }
        for seconds in samples {
            let date = Date(timeIntervalSince1970: seconds)
            let text = RFC3339.string(from: date)
            #expect(text == formatter.string(from: date), "\(seconds)")
            #expect(RFC3339.date(from: text) == date, "\(text)")
        }
    }

    @Test func readsOffsetsFractionsAndLowercase() {
        let base = RFC3339.date(from: "2024-02-29T12:00:00Z")
        #expect(base == Self.formatter.date(from: "2024-02-29T12:00:00Z"))
        #expect(RFC3339.date(from: "2024-02-29T14:30:00+02:30") == base)
        #expect(RFC3339.date(from: "2024-02-29T09:00:00-03:00") == base)
        #expect(RFC3339.date(from: "2024-02-29t12:00:00z") == base)
        #expect(RFC3339.date(from: "2024-02-29T12:00:00.250Z") == base.map { $0.addingTimeInterval(0.25) })
    }

    @Test(arguments: [
        "", "2024-02-30T12:00:00Z", "2023-02-29T00:00:00Z", "2024-13-01T00:00:00Z", "2024-01-01T24:00:00Z",
        "2024-01-01T00:60:00Z", "2024-01-01 00:00:00Z", "2024-01-01T00:00:00", "2024-01-01T00:00:00Z ",
        "2024-01-01T00:00:00.Z", "2024-01-01T00:00:00+0100", "24-01-01T00:00:00Z", "2024-01-01T00:00:00+24:00",
        "２０２４-01-01T00:00:00Z",
    ])
    func refusesWhatIsNotAnRFC3339DateTime(_ text: String) {
        #expect(RFC3339.date(from: text) == nil)
    }
}
