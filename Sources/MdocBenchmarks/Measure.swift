import Foundation

/// Times `body` over `iterations` runs after `warmup` runs; reports the median and mean.
struct Measurement {
    let name: String
    let iterations: Int
    let median: Duration
    let mean: Duration

    var medianMicroseconds: Double { Self.microseconds(median) }
    var meanMicroseconds: Double { Self.microseconds(mean) }

    static func microseconds(_ d: Duration) -> Double {
        Double(d.components.seconds) * 1e6 + Double(d.components.attoseconds) / 1e12
    }

    static func run(_ name: String, iterations: Int, warmup: Int = 10, _ body: () throws -> Void) rethrows
        -> Measurement
    {
        for _ in 0..<warmup { try body() }
        let clock = ContinuousClock()
        var samples: [Duration] = []
        samples.reserveCapacity(iterations)
        for _ in 0..<iterations {
            let start = clock.now
            try body()
            samples.append(clock.now - start)
        }
        samples.sort()
        let total = samples.reduce(Duration.zero, +)
        return Measurement(
            name: name, iterations: iterations, median: samples[samples.count / 2], mean: total / iterations)
    }

    func line(extra: String = "") -> String {
        let padded = name.padding(toLength: 44, withPad: " ", startingAt: 0)
        return padded + String(format: "%10.1f us median %10.1f us mean", medianMicroseconds, meanMicroseconds)
            + (extra.isEmpty ? "" : "  " + extra)
    }
}
