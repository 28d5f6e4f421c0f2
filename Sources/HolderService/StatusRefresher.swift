import DBus
import FoundationEssentials
import HolderRuntime
import OnlineTransport
import TokenStatusList
import Wallet

/// The service's credential status checks: `Holder1.RefreshStatus` and a timer
/// (``ServiceConfiguration/statusRefreshInterval``), both through one
/// ``StatusListResolver`` (its cache is shared) and ``Holder/refreshStatus(id:checker:trustAnchors:at:log:)``.
/// The status list signers must chain to the service's issuer trust (`serve --trust-anchor`);
/// the lists are fetched over HTTPS, so both need `serve --online`.
actor StatusRefresher {
    private let holder: Holder
    private let configuration: ServiceConfiguration
    private let log: ServiceLog
    private var resolver: StatusListResolver?
    private var timer: Task<Void, Never>?

    init(holder: Holder, configuration: ServiceConfiguration, log: ServiceLog) {
        self.holder = holder
        self.configuration = configuration
        self.log = log
    }

    /// Checks every credential with a status list reference now.
    /// - Throws: NotSupported without `--online` or without issuer trust anchors; Store when
    ///   the store cannot be read; Failed when HTTPS cannot be set up.
    func refresh() async throws(HolderServiceError) -> [StatusRefresh] {
        guard configuration.online else {
            throw .notSupported("status refresh fetches status lists over HTTPS: run serve with --online")
        }
        guard !configuration.settings.issuerTrust.isEmpty else {
            throw .notSupported(
                "the service has no issuer trust anchors to verify status lists with: run serve with --trust-anchor IACA.pem"
            )
        }
        let checker = try checker()
        let log = log
        do {
            return try await holder.refreshStatus(checker: checker) { log.holderLine($0) }
        } catch {
            throw .store(error.description)
        }
    }

    private func checker() throws(HolderServiceError) -> StatusListResolver {
        if let resolver { return resolver }
        do {
            let made = try StatusListResolver(tlsCAs: configuration.settings.tlsCAs)
            resolver = made
            return made
        } catch {
            throw .failed("HTTPS could not be set up for status lists: \(error)")
        }
    }

    /// Starts the timer when the service can check (online, issuer trust anchors) and an
    /// interval is set: a check at once, then one per interval. A failed check is logged.
    func startTimer() {
        guard timer == nil, let interval = configuration.statusRefreshInterval, configuration.online,
            !configuration.settings.issuerTrust.isEmpty
        else { return }
        timer = Task { [weak self] in
            while !Task.isCancelled {
                await self?.timedRefresh()
                try? await Task.sleep(for: interval)
            }
        }
    }

    private func timedRefresh() async {
        do {
            let results = try await refresh()
            let unknown = results.filter { !$0.isAnswered }.count
            log.info("status refresh: \(results.count) credential(s) checked, \(unknown) unknown")
        } catch {
            log.warning("status refresh failed: \(error)")
        }
    }

    func stopTimer() async {
        timer?.cancel()
        await timer?.value
        timer = nil
    }

    /// RefreshStatus's reply: one dict per credential checked.
    static func reply(_ results: [StatusRefresh]) -> DBusValue {
        .array(
            .dictionary(key: .string, value: .variant),
            results.map { result in
                var fields: [String: DBusValue] = [
                    "id": .string(result.target.id), "format": .string(result.target.format),
                    "doctype": .string(result.target.docType),
                ]
                switch result.check {
                case .known(let status, let checkedAt):
                    fields["status"] = .string(status.description)
                    fields["checked_at"] = .string(WalletListing.rfc3339(checkedAt))
                case .unknown(let reason):
                    fields["status"] = .string("unknown")
                    fields["reason"] = .string(reason)
                    if let last = result.lastStatus {
                        fields["last_status"] = .string(last.status.description)
                        fields["last_checked_at"] = .string(WalletListing.rfc3339(last.checkedAt))
                    }
                }
                return .properties(fields)
            })
    }
}
