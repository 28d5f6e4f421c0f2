extension ResultReport {
    /// Puts each document's status into the report: an invalid or suspended credential is not
    /// valid, nor (with `requireStatus`) one whose status is not known to be valid.
    mutating func apply(_ statuses: [DocumentStatus], requireStatus: Bool) {
        for (position, status) in zip(documents.indices, statuses) {
            documents[position].status = status.word
            documents[position].statusDetail = status.detail
            switch status.word {
            case "invalid", "suspended":
                documents[position].valid = false
                documents[position].failures.append("the issuer's status list marks the credential \(status.word!)")
            case "valid":
                break
            default:
                guard requireStatus else { break }
                documents[position].valid = false
                documents[position].failures.append(
                    status.word == nil
                        ? "--require-status: the credential carries no status reference"
                        : "--require-status: the credential's status is unknown")
            }
        }
        if documents.contains(where: { !$0.valid }) { valid = false }
    }
}
