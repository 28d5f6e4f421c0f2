import BLETestSupport
import Conformance
import Testing

/// The whole case list run against the real holder loop over in-memory wires: the correct
/// holder passes every case its mode allows, and each fault fails exactly its cases.
@Suite(.serialized)
struct HolderConformanceTests {
    static func run(_ mode: ScriptedHolder.Mode, fault: HolderFault? = nil) async throws -> [CaseResult] {
        let holder = try ScriptedHolder(mode: mode, fault: fault)
        defer { holder.stop() }
        return await holder.runner().run(ConformanceSuite.all)
    }

    static func ids(_ results: [CaseResult], _ verdict: CaseVerdict) -> Set<String> {
        Set(results.filter { $0.verdict == verdict }.map(\.id))
    }

    static func explain(_ results: [CaseResult]) -> String {
        results.filter { $0.verdict != .pass }.flatMap(TextReport.lines).joined(separator: "\n")
    }

    /// Cases that cannot run in a mode (or without --l2cap), by design.
    static let skippedIn: [ScriptedHolder.Mode: Set<String>] = [
        .peripheral: ["BLE_L2CAP_01", "BLE_Ident_01"],
        .central: [
            "BLE_L2CAP_01", "BLE_Chunk_01", "BLE_Chunk_02", "BLE_Chunk_03", "BLE_State_01", "BLE_Disconnect_01",
        ],
    ]

    @Test(arguments: ScriptedHolder.Mode.allCases)
    func ourHolderPassesEveryCase(_ mode: ScriptedHolder.Mode) async throws {
        let results = try await Self.run(mode)
        #expect(results.count == ConformanceSuite.all.count)
        #expect(Self.ids(results, .fail).isEmpty, "\(Self.explain(results))")
        #expect(Self.ids(results, .skip) == Self.skippedIn[mode], "\(Self.explain(results))")
        #expect(ConformanceSummary(results).passed == results.count - Self.skippedIn[mode]!.count)
    }

    /// What each fault must fail, and nothing else.
    static let failing: [HolderFault: Set<String>] = [
        .wrongStatusOnUndecryptable: [
            "mDL_SM_SEnc_SEst_UF_01", "mDL_SM_SEnc_SEst_UF_02", "mDL_SM_SEnc_SEst_UF_03", "mDL_SM_SEnc_SEst_UF_04",
            "mDL_SM_SEnc_SEst_UF_06", "BLE_Session_02",
        ],
        .ignoresTermination: ["BLE_Term_01"],
        // Every case that receives a response of more than one chunk.
        .badChunkHeader: [
            "BLE_Session_01", "BLE_Session_02", "BLE_Term_01", "BLE_Chunk_01", "BLE_Chunk_02", "BLE_State_01",
        ],
        .releasesToUntrusted: [
            "mDL_SM_mdocRAuth_UF_01", "mDL_SM_mdocRAuth_UF_02", "mDL_SM_mdocRAuth_UF_03",
            "mDL_SM_mdocRAuth_UF_04",
        ],
        .noBLEOption: ["BLE_DE_01"],
        .paddedURI: ["mDL_MS_DE_Gen_01"],
    ]

    @Test(arguments: HolderFault.allCases)
    func eachFaultFailsExactlyItsCases(_ fault: HolderFault) async throws {
        let results = try await Self.run(.peripheral, fault: fault)
        #expect(Self.ids(results, .fail) == Self.failing[fault], "\(Self.explain(results))")
        for result in results where result.verdict == .fail {
            #expect(!result.evidence.isEmpty, "\(result.id) failed without evidence")
        }
    }

    @Test func aPaddedURIFailsTheEngagementCaseSaysWhy() async throws {
        let results = try await Self.run(.peripheral, fault: .paddedURI)
        let engagement = try #require(results.first { $0.id == "mDL_MS_DE_Gen_01" })
        #expect(engagement.verdict == .fail)
        #expect(engagement.reason.contains("base64url padding"))
        #expect(engagement.evidence.contains { $0.what.hasPrefix("mdoc: URI with") })
    }

    @Test func withoutTheBLEOptionEveryCaseThatConnectsSkips() async throws {
        let results = try await Self.run(.peripheral, fault: .noBLEOption)
        #expect(Self.ids(results, .pass) == ["mDL_MS_DE_Gen_01"])
        #expect(results.filter { $0.verdict == .skip }.allSatisfy { $0.reason.contains("no BLE retrieval") })
    }
}
