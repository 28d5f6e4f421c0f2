import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

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
///
/// Parsed and written by hand: a Foundation date formatter made per call cost more than the
/// signature checks of the MSO whose validity it reads.
public enum RFC3339 {
    /// `YYYY-MM-DDTHH:MM:SSZ`, in UTC, whole seconds.
    public static func string(from date: Date) -> String {
        var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func two(_ n: Int32) -> String { n < 10 ? "0\(n)" : "\(n)" }
        let year = String(parts.tm_year + 1900)
        let yearText = String(repeating: "0", count: max(0, 4 - year.count)) + year
        return "\(yearText)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday))T\(two(parts.tm_hour)):"
            + "\(two(parts.tm_min)):\(two(parts.tm_sec))Z"
    }

    /// Parses `YYYY-MM-DDTHH:MM:SS[.fraction](Z|+HH:MM|-HH:MM)` (RFC 3339 section 5.6; `T`
    /// and `Z` in either case). nil for anything else, or a field out of range.
    public static func date(from text: String) -> Date? {
        let b = Array(text.utf8)
        func number(_ start: Int, _ count: Int) -> Int? {
            guard start + count <= b.count else { return nil }
            var n = 0
            for c in b[start..<(start + count)] {
                guard (48...57).contains(c) else { return nil }
                n = n * 10 + Int(c - 48)
            }
            return n
        }
        func at(_ i: Int, _ chars: String) -> Bool { i < b.count && chars.utf8.contains(b[i]) }
        guard b.count >= 20, let year = number(0, 4), at(4, "-"), let month = number(5, 2), at(7, "-"),
            let day = number(8, 2), at(10, "Tt"), let hour = number(11, 2), at(13, ":"),
            let minute = number(14, 2), at(16, ":"), let second = number(17, 2),
            (1...12).contains(month), day >= 1, day <= daysIn(month: month, year: year), hour <= 23, minute <= 59,
            second <= 60
        else { return nil }
        var i = 19
        var fraction = 0.0
        if at(i, ".") {
            var scale = 0.1
            i += 1
            let start = i
            while i < b.count, (48...57).contains(b[i]) {
                fraction += Double(b[i] - 48) * scale
                scale /= 10
                i += 1
            }
            guard i > start else { return nil }
        }
        var offset = 0
        if at(i, "Zz") {
            i += 1
        } else if at(i, "+-"), let hours = number(i + 1, 2), at(i + 3, ":"), let minutes = number(i + 4, 2),
            hours <= 23, minutes <= 59
        {
            offset = (hours * 60 + minutes) * 60 * (b[i] == UInt8(ascii: "-") ? -1 : 1)
            i += 6
        } else {
            return nil
        }
        guard i == b.count else { return nil }
        var parts = tm()
        parts.tm_year = Int32(year - 1900)
        parts.tm_mon = Int32(month - 1)
        parts.tm_mday = Int32(day)
        parts.tm_hour = Int32(hour)
        parts.tm_min = Int32(minute)
        parts.tm_sec = Int32(second)
        let seconds = Int(timegm(&parts)) - offset
        return Date(timeIntervalSince1970: TimeInterval(seconds) + fraction)
    }

    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }
}
