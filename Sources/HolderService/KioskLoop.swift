import Proximity

/// Kiosk mode: a proximity session always armed on the configured adapter. After every
/// session (or when bluetoothd comes back) a fresh engagement is armed and its QR code
/// published. Failures to arm are retried with a growing delay (0.25 s to 10 s), at once
/// when `org.bluez` changes owner; a failure is logged once until it changes.
struct KioskLoop: Sendable {
    let sessions: SessionManager
    let adapter: String
    let mode: ProximityModeOption
    let publisher: QRPublisher
    let log: ServiceLog

    func run() async {
        var delay = Duration.milliseconds(250)
        var lastProblem: String?
        while !Task.isCancelled {
            do throws(HolderServiceError) {
                let (session, uri) = try await sessions.startProximity(adapter: adapter, mode: mode)
                if lastProblem != nil { log.notice("kiosk: armed again on \(adapter)") }
                lastProblem = nil
                delay = .milliseconds(250)
                publisher.publish(uri, session: session)
                await sessions.waitUntilEnded(session)
            } catch {
                let problem = error.description
                if problem != lastProblem { log.error("kiosk: cannot arm a session on \(adapter): \(problem)") }
                lastProblem = problem
                await sessions.waitForBluetoothChange(timeout: delay)
                delay = min(delay * 2, .seconds(10))
            }
        }
    }
}
