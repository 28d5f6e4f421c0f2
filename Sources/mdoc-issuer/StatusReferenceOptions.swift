import ArgumentParser
import TokenStatusList

/// `--status-uri URI --status-index N`: the MSO `status` reference of an issued credential.
struct StatusReferenceOptions: ParsableArguments {
    @Option(help: "URI of the Status List Token that carries this credential's status (MSO status.status_list.uri).")
    var statusURI: String?

    @Option(help: "Index of this credential in that status list (MSO status.status_list.idx).")
    var statusIndex: UInt64?

    func validate() throws {
        guard (statusURI == nil) == (statusIndex == nil) else {
            throw ValidationError("give --status-uri and --status-index together")
        }
        if let statusURI, statusURI.isEmpty { throw ValidationError("--status-uri is empty") }
    }

    /// The reference, when both options are given.
    var reference: StatusReference? {
        guard let statusURI, let statusIndex else { return nil }
        return StatusReference(index: statusIndex, uri: statusURI)
    }
}
