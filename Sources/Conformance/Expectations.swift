/// The checks cases make of a holder's answer; each returns the pass reason or throws the
/// failure in words.
extension CaseContext {
    /// SessionData with a status in `allowed` and no data; nothing else may follow.
    public func expectStatus(_ exchange: FirstExchange, _ allowed: Set<UInt64>) throws(CaseStop) -> String {
        let wanted = allowed.sorted().map(String.init).joined(separator: " or ")
        guard case .status(let status) = exchange.answer else {
            throw .fail("expected SessionData status \(wanted) without data, got \(exchange.answer)")
        }
        guard allowed.contains(status) else {
            throw .fail("expected SessionData status \(wanted), got status \(status)")
        }
        try expectNothingAfter(exchange)
        return "SessionData status \(status), no data" + endNote(exchange)
    }

    /// An error and nothing released: a DeviceResponse with status 10, 11 or 12 and no
    /// documents, or SessionData status 10 or 11 without data.
    public func expectRequestRefused(_ exchange: FirstExchange) throws(CaseStop) -> String {
        switch exchange.answer {
        case .status(let status) where [10, 11].contains(status):
            try expectNothingAfter(exchange)
            return "SessionData status \(status), no data" + endNote(exchange)
        case .response(let summary, _, _) where [10, 11, 12].contains(summary.status) && summary.documents.isEmpty:
            return "DeviceResponse status \(summary.status), no documents"
        case .response(let summary, _, _):
            throw .fail("expected DeviceResponse status 10, 11 or 12 without documents, got \(summary)")
        default:
            throw .fail("expected an error status, got \(exchange.answer)")
        }
    }

    /// A DeviceResponse that releases no element (documentErrors or nothing), or a refusal.
    public func expectNothingReleased(_ exchange: FirstExchange) throws(CaseStop) -> String {
        switch exchange.answer {
        case .response(let summary, _, _):
            guard summary.releasedElements.isEmpty else {
                throw .fail("data released: \(summary)")
            }
            return "nothing released (\(summary))"
        case .status(let status):
            return "refused with SessionData status \(status)"
        case .ended:
            return "the holder ended the session without releasing anything"
        default:
            throw .fail("expected a DeviceResponse releasing nothing, got \(exchange.answer)")
        }
    }

    /// The holder sent nothing after a status that ends the session.
    func expectNothingAfter(_ exchange: FirstExchange) throws(CaseStop) {
        if case .response(let summary, _, _)? = exchange.afterwards {
            throw .fail("the holder answered after ending the session: \(summary)")
        }
        if case .unreadable? = exchange.afterwards {
            throw .fail("the holder sent another message after ending the session")
        }
        if case .status(let status)? = exchange.afterwards {
            throw .fail("the holder sent SessionData status \(status) after ending the session")
        }
    }

    private func endNote(_ exchange: FirstExchange) -> String {
        switch exchange.afterwards {
        case .ended(let byState)?: return byState ? ", then State 0x02" : ", then the link closed"
        case .transportError?: return ", then the link dropped"
        default: return ""
        }
    }
}
