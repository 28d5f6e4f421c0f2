import FoundationEssentials
import QRCode

#if canImport(Glibc)
    import Glibc
#endif

/// Shows a kiosk's engagement: its QR code written atomically to PNG files and drawn on
/// terminals. Failures are logged (the URI never is) and do not stop the kiosk.
struct QRPublisher: Sendable {
    let configuration: KioskConfiguration
    let log: ServiceLog

    func publish(_ uri: String, session: UInt64) {
        let code: QRCode
        do {
            code = try QRCode(text: uri)
        } catch {
            log.error("session \(session): no QR code for the engagement: \(error)")
            return
        }
        for path in configuration.qrPNGPaths {
            do {
                try code.writePNG(to: path)
            } catch {
                log.error("session \(session): cannot write the QR code to \(path): \(error)")
            }
        }
        for tty in configuration.qrTTYs {
            draw(code, on: tty, session: session)
        }
    }

    /// Clears the terminal and draws the code (no controlling terminal is acquired).
    private func draw(_ code: QRCode, on tty: String, session: UInt64) {
        let fd = open(tty, O_WRONLY | O_NOCTTY | O_CLOEXEC)
        guard fd >= 0 else {
            log.error("session \(session): cannot open \(tty) to draw the QR code: \(String(cString: strerror(errno)))")
            return
        }
        defer { close(fd) }
        let colours = TerminalColours.wanted(fd: fd, environment: ProcessInfo.processInfo.environment)
        let bytes = Array(("\u{1B}[H\u{1B}[2J" + code.terminalString(colours: colours) + "\n").utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            if written < 0 {
                if errno == EINTR { continue }
                log.error("session \(session): cannot draw the QR code on \(tty): \(String(cString: strerror(errno)))")
                return
            }
            offset += written
        }
    }
}
