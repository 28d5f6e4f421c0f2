/// One holder test case: what it sends, what the standard expects back, where it says so,
/// and the code that runs it against a fresh engagement.
public struct ConformanceCase: Sendable {
    /// TS 18013-6 style identifier (mDL_...) or ours (BLE_...).
    public let id: String
    /// What the case sends or does.
    public let title: String
    /// What a conforming holder does.
    public let expectation: String
    /// Where the standard says so.
    public let reference: String
    /// The holder's user must approve a request for the case to pass (interactive runs say so).
    public let needsConsent: Bool
    let body: @Sendable (CaseContext) async throws(CaseStop) -> String

    public init(
        id: String, title: String, expectation: String, reference: String, needsConsent: Bool = false,
        body: @escaping @Sendable (CaseContext) async throws(CaseStop) -> String
    ) {
        self.id = id
        self.title = title
        self.expectation = expectation
        self.reference = reference
        self.needsConsent = needsConsent
        self.body = body
    }
}
