import Foundation

/// Every case, in the order a run takes them, and the selection by `--cases PATTERN`.
public enum ConformanceSuite {
    public static let all: [ConformanceCase] =
        EngagementCases.all + SessionCases.all + SessionEstablishmentCases.all + RequestCases.all
        + ReaderAuthenticationCases.all + ReaderAuthenticationAllCases.all + ExtendedRequestCases.all
        + TransportCases.all

    /// The cases whose id matches one of `patterns` (shell wildcards `*` and `?`, case
    /// insensitive); all of them when there is no pattern.
    public static func select(_ patterns: [String]) -> [ConformanceCase] {
        guard !patterns.isEmpty else { return all }
        return all.filter { conformanceCase in
            patterns.contains { fnmatch($0.lowercased(), conformanceCase.id.lowercased(), 0) == 0 }
        }
    }
}
