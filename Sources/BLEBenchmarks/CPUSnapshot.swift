// CPU time in the machine at one moment, to say per step of a session who was on the CPU:
// the holder, the reader (this process), bluetoothd, and the whole machine (the kernel's
// Bluetooth work and btvirt included). Read from /proc at the moment a step begins or ends,
// never sampled in between (a sampler is itself a load under emulation).
import Foundation

/// CPU time of some processes, thread by thread, and of the whole machine, at one moment.
struct CPUSnapshot: Sendable {
    /// Per process watched: nanoseconds on the CPU so far of each live thread
    /// (`/proc/PID/task/TID/schedstat`).
    var threads: [Int32: [String: UInt64]]
    /// The machine's busy time so far, every CPU summed (`/proc/stat`: all but idle and
    /// iowait), seconds; nil when unreadable.
    var machineBusy: Double?

    /// Reads the processes `pids` and the machine now.
    static func take(_ pids: [Int32]) -> CPUSnapshot {
        var threads: [Int32: [String: UInt64]] = [:]
        for pid in pids { threads[pid] = threadTimes(pid) }
        return CPUSnapshot(threads: threads, machineBusy: machineBusySeconds())
    }

    /// CPU seconds of `pid` from `earlier` to this snapshot: per thread alive now, its time
    /// since `earlier` (all of it for a thread started since). A thread that ended in between
    /// loses its share: the processes watched keep their threads during a session.
    func seconds(of pid: Int32, since earlier: CPUSnapshot) -> Double? {
        guard let now = threads[pid], !now.isEmpty, let before = earlier.threads[pid], !before.isEmpty else {
            return nil
        }
        let ns = now.reduce(UInt64(0)) { sum, thread in
            sum + (thread.value &- min(before[thread.key] ?? 0, thread.value))
        }
        return Double(ns) / 1e9
    }

    /// The whole machine's busy CPU seconds from `earlier` to this snapshot (every CPU summed).
    func machineSeconds(since earlier: CPUSnapshot) -> Double? {
        guard let now = machineBusy, let before = earlier.machineBusy else { return nil }
        return now - before
    }

    /// Nanoseconds on the CPU of each thread of `pid`; empty when the process is gone.
    static func threadTimes(_ pid: Int32) -> [String: UInt64] {
        guard let tasks = try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task") else { return [:] }
        var times: [String: UInt64] = [:]
        for task in tasks {
            guard let text = try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/schedstat", encoding: .utf8),
                let ns = text.split(separator: " ").first.flatMap({ UInt64($0) })
            else { continue }
            times[task] = ns
        }
        return times
    }

    /// The first line of `/proc/stat` (clock ticks per state, every CPU summed), minus idle
    /// and iowait, in seconds.
    static func machineBusySeconds() -> Double? {
        guard let text = try? String(contentsOfFile: "/proc/stat", encoding: .utf8),
            let line = text.split(separator: "\n").first, line.hasPrefix("cpu ")
        else { return nil }
        let ticks = line.split(separator: " ").dropFirst().compactMap { UInt64($0) }
        guard ticks.count >= 5 else { return nil }
        // user nice system idle iowait irq softirq steal (guest time is already in user).
        let busy = ticks.prefix(8).enumerated().reduce(UInt64(0)) {
            $0 + ($1.offset == 3 || $1.offset == 4 ? 0 : $1.element)
        }
        let hz = Double(sysconf(Int32(_SC_CLK_TCK)))
        return Double(busy) / (hz > 0 ? hz : 100)
    }

    /// The process named `name` (`/proc/PID/comm`), the first found.
    static func process(named name: String) -> Int32? {
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: "/proc") else { return nil }
        for entry in entries {
            guard let pid = Int32(entry),
                let comm = try? String(contentsOfFile: "/proc/\(entry)/comm", encoding: .utf8),
                comm.trimmingCharacters(in: .whitespacesAndNewlines) == name
            else { continue }
            return pid
        }
        return nil
    }
}
