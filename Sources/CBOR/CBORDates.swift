import Foundation

extension CBOR {
    /// `tdate`: tag 0 with an RFC 3339 date-time text.
    public static func tdate(_ date: Date) -> CBOR {
        .tagged(0, .text(RFC3339.string(from: date)))
    }

    /// `full-date`: tag 1004 with an RFC 3339 full-date text (YYYY-MM-DD).
    public static func fullDate(_ text: String) -> CBOR { .tagged(1004, .text(text)) }

    /// The date of a `tdate` (tag 0 text) or an epoch-based date (tag 1).
    public var dateValue: Date? {
        switch self {
        case .tagged(0, .text(let s)): return RFC3339.date(from: s)
        case .tagged(1, let n):
            if let i = n.intValue { return Date(timeIntervalSince1970: TimeInterval(i)) }
            if case .float(let f) = n { return Date(timeIntervalSince1970: f) }
            return nil
        default: return nil
        }
    }
}

/// RFC 3339 date-times as ISO 18013-5 uses them (UTC, no fractional seconds when producing).
public enum RFC3339 {
    public static func string(from date: Date) -> String {
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withInternetDateTime]
        f.timeZone = TimeZone(secondsFromGMT: 0)
        return f.string(from: date)
    }

    /// Parses with or without fractional seconds.
    public static func date(from text: String) -> Date? {
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withInternetDateTime]
        if let d = f.date(from: text) { return d }
        f.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return f.date(from: text)
    }
}
