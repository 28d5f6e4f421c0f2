import Conformance
import Foundation
import Testing

/// docs/conformance.md lists every case, in the order a run takes them, and each case says
/// what it expects and where the standard says so.
struct CaseListTests {
    static let documentation = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("docs/conformance.md")

    @Test func theDocumentedTableListsEveryCaseInOrder() throws {
        let text = try String(contentsOf: Self.documentation, encoding: .utf8)
        let documented = text.split(separator: "\n").compactMap { line -> String? in
            guard line.hasPrefix("| mDL_") || line.hasPrefix("| BLE_") else { return nil }
            return line.dropFirst(2).split(separator: " ").first.map(String.init)
        }
        #expect(documented == ConformanceSuite.all.map(\.id))
    }

    @Test func everyCaseStatesItsExpectationAndReference() {
        for conformanceCase in ConformanceSuite.all {
            #expect(
                !conformanceCase.expectation.isEmpty && conformanceCase.reference.contains("18013"),
                "\(conformanceCase.id)")
        }
    }
}
