import ArgumentParser

/// Presents over Bluetooth LE: a fresh engagement per session, shown as asked, the mdoc
/// GATT service on the adapter (peripheral-server mode), the reader's found and connected to
/// (central-client mode), or both, consent, history.
struct PresentCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "present",
        abstract: "Present credentials to a reader over Bluetooth LE (ISO/IEC 18013-5).",
        discussion: """
            Serves readers one session at a time until stopped, or exactly one with --once. Exit status with \
            --once: 0 when a response with at least one element went out, 2 when a response went out but released \
            nothing (declined, untrusted reader, no matching credential), 1 on failure (no response delivered, \
            timeout, error). The bus is the system bus, or DBUS_SYSTEM_BUS_ADDRESS when set.
            """)

    @Option(help: "The Bluetooth adapter.")
    var adapter: String = "hci0"

    @OptionGroup var proximity: ProximityArguments

    @Option(
        help: ArgumentHelp(
            "How to show each engagement (repeatable): terminal, png:PATH (written atomically), uri (the mdoc: URI alone on standard output).",
            valueName: "terminal|png:PATH|uri"))
    var qr: [EngagementCommand.QROutput] = []

    @OptionGroup var consentOptions: ConsentOptions

    @OptionGroup var trust: ReaderTrustOptions

    @Flag(help: "Serve exactly one reader, then exit.")
    var once = false

    @OptionGroup var store: StoreOptions

    /// The command line as plain values: what `run` does is theirs.
    var invocation: PresentInvocation {
        PresentInvocation(
            adapter: adapter, proximity: proximity.options, qr: qr, consent: consentOptions.consent,
            trust: trust.values, once: once, store: store.values)
    }

    func run() async throws { try await invocation.run() }
}
