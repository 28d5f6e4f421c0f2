/// One use case of an ISO/IEC 18013-5 second-edition request (`DeviceRequestInfo.useCases`),
/// as the user is shown it: what it is for, whether the reader insists on it, and which
/// documents would answer it.
public struct ConsentUseCase: Sendable, Codable, Hashable {
    /// The use case's position in the request (0 first).
    public var index: Int
    /// The reader needs this use case answered.
    public var mandatory: Bool
    /// `purposeHints`: purpose controller id => purpose code.
    public var purposeHints: [String: Int]
    /// The doc types of the document set that would answer it; nil when no set can be
    /// answered with the credentials held.
    public var answeredBy: [String]?

    public init(index: Int, mandatory: Bool, purposeHints: [String: Int], answeredBy: [String]?) {
        self.index = index
        self.mandatory = mandatory
        self.purposeHints = purposeHints
        self.answeredBy = answeredBy
    }

    /// Whether a document set of this use case can be answered.
    public var isSatisfiable: Bool { answeredBy != nil }

    /// "use case 1 (mandatory; purposes: org.example=3)": for prompts, logs and history.
    public var summary: String {
        var notes: [String] = [mandatory ? "mandatory" : "optional"]
        if !purposeHints.isEmpty {
            let hints = purposeHints.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
            notes.append("purposes: \(hints.joined(separator: ", "))")
        }
        return "use case \(index + 1) (\(notes.joined(separator: "; ")))"
    }
}
