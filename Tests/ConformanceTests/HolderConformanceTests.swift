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
        return await holder.runner().run(ConformanceSuite.select(HolderFault.cases(fault)))
    }

    static func ids(_ results: [CaseResult], _ verdict: CaseVerdict) -> Set<String> {
        Set(results.filter { $0.verdict == verdict }.map(\.id))
    }

    static func explain(_ results: [CaseResult]) -> String {
        results.filter { $0.verdict != .pass }.flatMap(TextReport.lines).joined(separator: "\n")
    }

    /// Cases that cannot run in a mode (or without --l2cap), by design. The chunk-level
    /// cases run in both modes (as GATT client, or as GATT server in central-client mode).
    static let skippedIn: [ScriptedHolder.Mode: Set<String>] = [
        .peripheral: ["BLE_L2CAP_01", "BLE_Ident_01"],
        .central: ["BLE_L2CAP_01"],
    ]

    @Test(arguments: ScriptedHolder.Mode.allCases)
    func ourHolderPassesEveryCase(_ mode: ScriptedHolder.Mode) async throws {
        let results = try await Self.run(mode)
        #expect(results.count == ConformanceSuite.all.count)
        #expect(Self.ids(results, .fail).isEmpty, "\(Self.explain(results))")
        #expect(Self.ids(results, .skip) == Self.skippedIn[mode], "\(Self.explain(results))")
        #expect(ConformanceSummary(results).passed == results.count - Self.skippedIn[mode]!.count)
    }

    /// A first-edition holder ("1.0" engagement, the same engine): the cases for an advertised
    /// second-edition capability skip, every other case passes (it ignores a "1.0" request's
    /// readerAuthAll and refuses the untrusted ones of "1.1" requests all the same).
    @Test func aFirstEditionHolderSkipsOnlyTheCapabilityCases() async throws {
        let holder = try ScriptedHolder(mode: .peripheral, engagementVersion: .firstEdition)
        defer { holder.stop() }
        let results = await holder.runner().run(ConformanceSuite.all)
        #expect(Self.ids(results, .fail).isEmpty, "\(Self.explain(results))")
        let capabilityCases: Set<String> = ["mDL_SM_mdocRAuthAll_01", "mDL_MS_DR_Alt_01", "mDL_MS_DR_MaxSize_01"]
        #expect(Self.ids(results, .skip) == Self.skippedIn[.peripheral]!.union(capabilityCases))
        let engagement = try #require(results.first { $0.id == "mDL_MS_DE_Gen_02" })
        #expect(engagement.reason.hasPrefix("version 1.0 without keys 5 and 6"))
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
            "mDL_SM_mdocRAuthAll_01", "mDL_MS_DR_Ver_02", "mDL_MS_DR_Alt_01", "mDL_MS_DR_MaxSize_01",
        ],
        // Every case whose reader the holder must not take as authenticated: readerAuth and
        // readerAuthAll it cannot trust, and a "1.0" request's readerAuthAll.
        .releasesToUntrusted: [
            "mDL_SM_mdocRAuth_UF_01", "mDL_SM_mdocRAuth_UF_02", "mDL_SM_mdocRAuth_UF_03",
            "mDL_SM_mdocRAuth_UF_04", "mDL_SM_mdocRAuthAll_UF_01", "mDL_SM_mdocRAuthAll_UF_02",
            "mDL_SM_mdocRAuthAll_UF_03", "mDL_SM_mdocRAuthAll_UF_04", "mDL_MS_DR_Ver_01",
        ],
        .noBLEOption: ["BLE_DE_01"],
        .paddedURI: ["mDL_MS_DE_Gen_01"],
        .firstEditionWithSecondEditionKeys: ["mDL_MS_DE_Gen_02"],
        // A "1.0" readerAuthAll read: the trusted one releases (Ver_01), the untrusted one
        // beside a trusted readerAuth refuses (Ver_02).
        .trustsFirstEditionReaderAuthAll: ["mDL_MS_DR_Ver_01", "mDL_MS_DR_Ver_02"],
        .readerAuthAllAnyTranscript: ["mDL_SM_mdocRAuthAll_UF_02"],
        .ignoresMaximumResponseSize: ["mDL_MS_DR_MaxSize_01"],
        .ignoresAlternatives: ["mDL_MS_DR_Alt_01"],
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

    @Test func aFirstEditionEngagementWithSecondEditionKeysFailsSaysWhich() async throws {
        let results = try await Self.run(.peripheral, fault: .firstEditionWithSecondEditionKeys)
        #expect(results.map(\.id) == ["mDL_MS_DE_Gen_01", "mDL_MS_DE_Gen_02", "BLE_DE_01"])
        let engagement = try #require(results.first { $0.id == "mDL_MS_DE_Gen_02" })
        #expect(engagement.reason.contains("key 5 (OriginInfos)"))
        #expect(engagement.reason.contains("key 6 (Capabilities)"))
    }

    @Test func withoutTheBLEOptionEveryCaseThatConnectsSkips() async throws {
        let results = try await Self.run(.peripheral, fault: .noBLEOption)
        #expect(Self.ids(results, .pass) == ["mDL_MS_DE_Gen_01", "mDL_MS_DE_Gen_02"])
        // The engagement without BLE is a plain "1.0" one: the cases for an advertised
        // second-edition capability skip on that first.
        #expect(
            results.filter { $0.verdict == .skip }.allSatisfy {
                $0.reason.contains("no BLE retrieval") || $0.reason.contains("does not advertise")
            })
    }
}
