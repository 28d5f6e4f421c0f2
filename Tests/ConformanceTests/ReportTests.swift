import Conformance
import Foundation
import Testing

/// The reports of a run: lines, summary, evidence of failures, JUnit XML and JSON.
struct ReportTests {
    static func result(_ id: String, _ verdict: CaseVerdict, _ reason: String) -> CaseResult {
        let log = EvidenceLog()
        log.note("sent <SessionEstablishment> & more", bytes: [0xA2, 0x00, 0xFF])
        log.note("holder: SessionData status 11 without data")
        return CaseResult(
            id: id, title: "a \"title\"", verdict: verdict, reason: reason, evidence: log.all,
            duration: .milliseconds(1500))
    }

    static let results = [
        result("mDL_A_01", .pass, "fine"), result("mDL_B_02", .fail, "expected 10, got <11>"),
        result("BLE_C_03", .skip, "not here"),
    ]

    @Test func oneLinePerCaseEvidenceUnderFailuresAndTheSummary() {
        let text = TextReport.render(Self.results)
        let lines = text.split(separator: "\n").map(String.init)
        #expect(lines.first == "PASS mDL_A_01 fine")
        #expect(lines[1] == "FAIL mDL_B_02 expected 10, got <11>")
        #expect(
            lines[2].hasPrefix("    +") && lines[2].hasSuffix("sent <SessionEstablishment> & more (3 bytes): a200ff"))
        #expect(lines.contains("SKIP BLE_C_03 not here"))
        #expect(lines.last == "conformance: 1 passed, 1 failed, 1 skipped")
    }

    @Test func junitCountsCasesAndEscapesText() {
        let xml = JUnitReport.render(Self.results)
        #expect(xml.contains("tests=\"3\" failures=\"1\" errors=\"0\" skipped=\"1\""))
        #expect(xml.contains("<failure message=\"expected 10, got &lt;11&gt;\">"))
        #expect(xml.contains("&lt;SessionEstablishment&gt; &amp; more"))
        #expect(xml.contains("<skipped message=\"not here\"/>"))
        #expect(xml.contains("name=\"mDL_A_01\" time=\"1.500\""))
        #expect(!xml.contains("<SessionEstablishment>"))
    }

    @Test func jsonCarriesTheSummaryAndEvidence() throws {
        let json = try JSONReport.render(Self.results)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        #expect(object["passed"] as? Int == 1 && object["failed"] as? Int == 1 && object["skipped"] as? Int == 1)
        let cases = try #require(object["cases"] as? [[String: Any]])
        #expect(cases.map { $0["verdict"] as? String } == ["PASS", "FAIL", "SKIP"])
        let evidence = try #require(cases[1]["evidence"] as? [[String: Any]])
        #expect(evidence.first?["hex"] as? String == "a200ff")
        #expect(evidence.first?["bytes"] as? Int == 3)
    }

    @Test func patternsSelectCasesByIdentifier() {
        #expect(ConformanceSuite.select([]).count == ConformanceSuite.all.count)
        let establishment = ConformanceSuite.select(["mdl_sm_senc_*"]).map(\.id)
        #expect(!establishment.isEmpty && establishment.allSatisfy { $0.hasPrefix("mDL_SM_SEnc_SEst_UF_") })
        #expect(
            ConformanceSuite.select(["BLE_Chunk_0?", "mDL_MS_DE_Gen_01"]).map(\.id)
                == ["mDL_MS_DE_Gen_01", "BLE_Chunk_01", "BLE_Chunk_02", "BLE_Chunk_03"])
        #expect(ConformanceSuite.select(["nothing"]).isEmpty)
    }

    @Test func caseIdentifiersAreUnique() {
        let ids = ConformanceSuite.all.map(\.id)
        #expect(Set(ids).count == ids.count)
    }
}
