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
        try run(name, iterations: iterations, warmup: warmup, setup: setup, body, beside: []).0
    }

    /// Like `run`, with each of `beside` timed once after each `body`, in turn, so that `body`
    /// and the work it is compared with run under the same load (another build starting on
    /// these 2 cores slows both sides alike); returns `body`'s measurement and each of
    /// `beside`'s median, in microseconds.
    static func run<T>(
        _ name: String, iterations: Int, warmup: Int = 10, setup: () throws -> T, _ body: (T) throws -> Void,
        beside: [() -> Void]
    ) rethrows -> (Measurement, [Double]) {
        for _ in 0..<warmup {
            try body(setup())
            for work in beside { work() }
        }
        var samples: [UInt64] = []
        var wall: [UInt64] = []
        var besideSamples = [[UInt64]](repeating: [], count: beside.count)
        samples.reserveCapacity(iterations)
        wall.reserveCapacity(iterations)
        for _ in 0..<iterations {
            let input = try setup()
            let start = threadCPUNanoseconds()
            let wallStart = DispatchTime.now().uptimeNanoseconds
            try body(input)
            samples.append(threadCPUNanoseconds() - start)
            wall.append(DispatchTime.now().uptimeNanoseconds - wallStart)
            for (index, work) in beside.enumerated() {
                let workStart = threadCPUNanoseconds()
                work()
                besideSamples[index].append(threadCPUNanoseconds() - workStart)
            }
        }
        samples.sort()
        wall.sort()
        let mean = Double(samples.reduce(0, +)) / Double(iterations) / 1000
        let measurement = Measurement(
            name: name, iterations: iterations, medianMicroseconds: Double(samples[samples.count / 2]) / 1000,
            meanMicroseconds: mean, wallMedianMicroseconds: Double(wall[wall.count / 2]) / 1000)
        return (measurement, besideSamples.map { Double($0.sorted()[$0.count / 2]) / 1000 })
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
