/// The one matching engine for every request shape: DCQL `claim_sets` / `credential_sets`
/// (OpenID4VP 1.0 section 6.4) and the ISO/IEC 18013-5 second-edition request, whose
/// `alternativeDataElements` are claim sets of one element and whose use cases
/// (`documentSets`) are credential sets of DocRequests, as multipaz maps them.
///
/// Options are in the requester's order of preference; the first one whose members all
/// hold wins.
public enum OptionMatching {
    /// The first of `options` whose members all satisfy `holds`, or nil.
    public static func first<Member>(_ options: [[Member]], where holds: (Member) -> Bool) -> [Member]? {
        options.first { $0.allSatisfy(holds) }
    }

    /// A set of options of which one is to be answered: a DCQL credential set, an 18013-5
    /// use case.
    public struct OptionSet<ID: Hashable & Sendable>: Sendable {
        public var options: [[ID]]
        /// DCQL `required`, 18013-5 `mandatory`.
        public var required: Bool

        public init(options: [[ID]], required: Bool) {
            self.options = options
            self.required = required
        }
    }

    /// What answering a list of option sets gives.
    public struct Resolution<ID: Hashable & Sendable>: Sendable {
        /// Per set, the option chosen (nil: none can be answered).
        public var chosen: [[ID]?]
        /// The union of the chosen options.
        public var answered: Set<ID> { Set(chosen.compactMap { $0 }.flatMap { $0 }) }
        /// The indexes of the required sets that no option satisfies.
        public var unsatisfiedRequired: [Int]
    }

    /// For each set the first option whose members are all in `satisfied`.
    public static func resolve<ID>(_ sets: [OptionSet<ID>], satisfied: Set<ID>) -> Resolution<ID> {
        var chosen: [[ID]?] = []
        var unsatisfied: [Int] = []
        for (index, set) in sets.enumerated() {
            let option = first(set.options, where: satisfied.contains)
            chosen.append(option)
            if option == nil && set.required { unsatisfied.append(index) }
        }
        return Resolution(chosen: chosen, unsatisfiedRequired: unsatisfied)
    }
}
