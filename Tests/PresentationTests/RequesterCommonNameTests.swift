import Consent
import Foundation
import Testing

@testable import Presentation

/// The reader's display name is the CN of its certificate subject, each part trimmed of what
/// Foundation's `CharacterSet.whitespaces` holds; the engine trims without Foundation, and
/// must give what Foundation gives.
struct RequesterCommonNameTests {
    /// What the engine did with Foundation before (the definition it keeps).
    static func foundationCommonName(_ subject: String) -> String? {
        for part in subject.split(separator: ",") {
            let trimmed = part.trimmingCharacters(in: .whitespaces)
            if trimmed.hasPrefix("CN=") { return String(trimmed.dropFirst(3)) }
        }
        return nil
    }

    @Test(arguments: [
        "C=US,CN=reader", "C=US, CN=Shop reader ", "C=US,\tCN=tab\t", "O=x,\u{00A0}CN=nbsp\u{2003}",
        "C=US,\u{3000}CN=ideographic space", "C=US, CN= inner space kept", "C=US,\nCN=newline is not trimmed",
        "C=US", "", "CN=", " CN=first, CN=second", "C=US,CN=caf\u{00E9} \u{200B}", "C=US, cn=lower case",
    ])
    func trimsAsFoundationDoes(subject: String) {
        #expect(Requester.commonName(subject) == Self.foundationCommonName(subject))
    }

    /// Every scalar of the Basic Multilingual Plane (where all of Unicode's spaces are) around a
    /// CN is trimmed exactly when Foundation trims it.
    @Test func trimsEveryScalarFoundationTrims() {
        var differing: [String] = []
        for value in 0..<0x1_0000 {
            guard let scalar = Unicode.Scalar(value) else { continue }
            let subject = "C=US,\(scalar)CN=x\(scalar)"
            if Requester.commonName(subject) != Self.foundationCommonName(subject) {
                differing.append("U+" + String(value, radix: 16, uppercase: true))
            }
        }
        #expect(differing.isEmpty, "\(differing.prefix(20))")
    }

    @Test func readsTheCommonNameOfATypicalSubject() {
        #expect(Requester.commonName("C=US, O=Utopia, CN=Utopia shop reader") == "Utopia shop reader")
        #expect(Requester.commonName("C=US, O=Utopia") == nil)
    }
}
