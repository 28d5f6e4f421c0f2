import Synchronization

/// A small most-recently-used list shared by threads: a hit moves to the end, a new entry
/// goes to the end and the oldest fall off past `capacity`. The caches of parsed
/// certificates, trust stores and validated chains are each one of these.
final class RecentlyUsed<Element: Sendable>: Sendable {
    private let entries = Mutex<[Element]>([])
    private let capacity: Int

    init(capacity: Int) {
        self.capacity = capacity
    }

    /// The most recent entry that `matches`, made the newest; nil when none does.
    func find(_ matches: (Element) -> Bool) -> Element? {
        entries.withLock { entries in
            guard let index = entries.lastIndex(where: matches) else { return nil }
            let entry = entries.remove(at: index)
            entries.append(entry)
            return entry
        }
    }

    /// Adds `entry` as the newest, after removing the entries it `replaces`.
    func remember(_ entry: Element, replacing replaces: (Element) -> Bool = { _ in false }) {
        entries.withLock { entries in
            entries.removeAll(where: replaces)
            entries.append(entry)
            if entries.count > capacity { entries.removeFirst(entries.count - capacity) }
        }
    }
}
