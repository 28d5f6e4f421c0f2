import Foundation

/// CPU time of the calling thread (the benchmarks are single-threaded, so this is the CPU
/// the work costs, unaffected by other load on the machine).
func threadCPUNanoseconds() -> UInt64 {
    var t = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t)
    return UInt64(t.tv_sec) * 1_000_000_000 + UInt64(t.tv_nsec)
}

/// Times `body` over `iterations` runs after `warmup` runs; reports the median and mean CPU
/// time per run.
struct Measurement {
    let name: String
    let iterations: Int
    let medianMicroseconds: Double
    let meanMicroseconds: Double
    /// Wall-clock median (for work done outside this thread: a TPM, a token).
    let wallMedianMicroseconds: Double

    static func run(_ name: String, iterations: Int, warmup: Int = 10, _ body: () throws -> Void) rethrows
        -> Measurement
    {
        try run(name, iterations: iterations, warmup: warmup, setup: {}, { _ in try body() })
    }

    /// Like `run`, with an untimed `setup` before each timed `body`.
    static func run<T>(
        _ name: String, iterations: Int, warmup: Int = 10, setup: () throws -> T, _ body: (T) throws -> Void
    ) rethrows -> Measurement {
        for _ in 0..<warmup { try body(setup()) }
        var samples: [UInt64] = []
        var wall: [UInt64] = []
        samples.reserveCapacity(iterations)
        wall.reserveCapacity(iterations)
        for _ in 0..<iterations {
            let input = try setup()
            let start = threadCPUNanoseconds()
            let wallStart = DispatchTime.now().uptimeNanoseconds
            try body(input)
            samples.append(threadCPUNanoseconds() - start)
            wall.append(DispatchTime.now().uptimeNanoseconds - wallStart)
        }
        samples.sort()
        wall.sort()
        let mean = Double(samples.reduce(0, +)) / Double(iterations) / 1000
        return Measurement(
            name: name, iterations: iterations, medianMicroseconds: Double(samples[samples.count / 2]) / 1000,
            meanMicroseconds: mean, wallMedianMicroseconds: Double(wall[wall.count / 2]) / 1000)
    }

    func line(extra: String = "") -> String {
        let padded = name.padding(toLength: 48, withPad: " ", startingAt: 0)
        return padded + String(format: "%10.1f us median %10.1f us mean", medianMicroseconds, meanMicroseconds)
            + (extra.isEmpty ? "" : "  " + extra)
    }
}

/// One operation measured through our types beside OpenSSL's own cost for the same work.
struct Comparison {
    let ours: Measurement
    let floorMicroseconds: Double

    var ratio: Double { ours.medianMicroseconds / floorMicroseconds }

    func line() -> String {
        let padded = ours.name.padding(toLength: 48, withPad: " ", startingAt: 0)
        return padded
            + String(format: "%10.1f us   floor %8.1f us   x%.2f", ours.medianMicroseconds, floorMicroseconds, ratio)
    }
}
