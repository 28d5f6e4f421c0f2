extension HolderSession {
    /// The reason the records of an unusable-key response carry (they all carry the same one).
    static func keyFailureReason(_ records: [PresentationRecord]) -> String {
        for record in records {
            if case .notReturned(let reason) = record.outcome { return reason }
        }
        return "a device key could not be used"
    }
}
