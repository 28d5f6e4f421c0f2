import Foundation

/// The report as JUnit XML (one testsuite, a testcase per case; failures carry the reason
/// and the evidence, skips their reason), for CI systems.
public enum JUnitReport {
    public static func render(_ results: [CaseResult], suite: String = "mdoc-reader conformance") -> String {
        let summary = ConformanceSummary(results)
        let total = results.reduce(0.0) { $0 + $1.seconds }
        var xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        xml += "<testsuite name=\"\(escape(suite))\" tests=\"\(results.count)\" failures=\"\(summary.failed)\" "
        xml += "errors=\"0\" skipped=\"\(summary.skipped)\" time=\"\(seconds(total))\">\n"
        for result in results {
            xml +=
                "  <testcase classname=\"conformance\" name=\"\(escape(result.id))\" time=\"\(seconds(result.seconds))\">\n"
            switch result.verdict {
            case .pass:
                break
            case .skip:
                xml += "    <skipped message=\"\(escape(result.reason))\"/>\n"
            case .fail:
                let evidence = result.evidence.map(TextReport.line).joined(separator: "\n")
                xml += "    <failure message=\"\(escape(result.reason))\">\(escape(evidence))</failure>\n"
            }
            xml += "    <system-out>\(escape(result.title + ": " + result.reason))</system-out>\n"
            xml += "  </testcase>\n"
        }
        return xml + "</testsuite>\n"
    }

    static func seconds(_ value: Double) -> String { String(format: "%.3f", value) }

    /// XML text and attribute escaping; control characters other than tab and newline dropped.
    static func escape(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            case "\t", "\n": out.unicodeScalars.append(scalar)
            default:
                if scalar.value >= 0x20 { out.unicodeScalars.append(scalar) }
            }
        }
        return out
    }
}
