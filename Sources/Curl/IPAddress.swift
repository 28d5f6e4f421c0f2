import Dispatch
import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

/// An IPv4 or IPv6 address, as a socket connects to it.
public struct IPAddress: Sendable, Hashable, CustomStringConvertible {
    /// 4 bytes (IPv4) or 16 (IPv6), in network order.
    public let bytes: [UInt8]

    /// An address of 4 or 16 bytes; nil for any other length.
    public init?(bytes: [UInt8]) {
        guard bytes.count == 4 || bytes.count == 16 else { return nil }
        self.bytes = bytes
    }

    /// Parses the textual form (`198.51.100.10`, `::1`, `::ffff:127.0.0.1`); nil when it is
    /// none. Brackets (`[::1]`, as in a URL's host) are accepted.
    public init?(_ text: String) {
        var text = text
        if text.hasPrefix("["), text.hasSuffix("]") { text = String(text.dropFirst().dropLast()) }
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 {
            self.bytes = withUnsafeBytes(of: &v4) { Array($0) }
            return
        }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, text, &v6) == 1 {
            self.bytes = withUnsafeBytes(of: &v6) { Array($0) }
            return
        }
        return nil
    }

    /// The address of a `sockaddr_in` or `sockaddr_in6`; nil for other families.
    init?(socketAddress: UnsafePointer<sockaddr>) {
        switch Int32(socketAddress.pointee.sa_family) {
        case AF_INET:
            let address = UnsafeRawPointer(socketAddress).loadUnaligned(as: sockaddr_in.self)
            var raw = address.sin_addr
            bytes = withUnsafeBytes(of: &raw) { Array($0) }
        case AF_INET6:
            let address = UnsafeRawPointer(socketAddress).loadUnaligned(as: sockaddr_in6.self)
            var raw = address.sin6_addr
            bytes = withUnsafeBytes(of: &raw) { Array($0) }
        default:
            return nil
        }
    }

    public var isIPv4: Bool { bytes.count == 4 }

    /// The IPv4 address an IPv4-mapped (`::ffff:a.b.c.d`) or IPv4-compatible (`::a.b.c.d`,
    /// deprecated but still routed by some stacks) IPv6 address stands for; nil otherwise.
    public var embeddedIPv4: IPAddress? {
        guard bytes.count == 16, bytes[0..<10].allSatisfy({ $0 == 0 }) else { return nil }
        let marker = (bytes[10], bytes[11])
        let tail = Array(bytes[12..<16])
        if marker == (0xFF, 0xFF) { return IPAddress(bytes: tail) }
        // ::a.b.c.d, but not :: and ::1 themselves.
        if marker == (0, 0), tail[0] != 0 || tail[1] != 0 { return IPAddress(bytes: tail) }
        return nil
    }

    public var description: String {
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        let family = isIPv4 ? AF_INET : AF_INET6
        let ok = bytes.withUnsafeBytes { raw in
            inet_ntop(family, raw.baseAddress, &buffer, socklen_t(buffer.count)) != nil
        }
        guard ok else { return "?" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

extension IPAddress {
    /// The addresses `host` resolves to (an address literal: itself), found on a thread of
    /// its own (getaddrinfo blocks); empty when it does not resolve.
    public static func resolve(_ host: String) async -> [IPAddress] {
        if let literal = IPAddress(host) { return [literal] }
        return await withCheckedContinuation { (continuation: CheckedContinuation<[IPAddress], Never>) in
            DispatchQueue(label: "mdoc-holder-resolve").async {
                continuation.resume(returning: lookUp(host))
            }
        }
    }

    /// getaddrinfo for `host` (TCP, either family), in its order, without duplicates; blocks.
    static func lookUp(_ host: String) -> [IPAddress] {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, nil, &hints, &list) == 0 else { return [] }
        defer { freeaddrinfo(list) }
        var addresses: [IPAddress] = []
        var entry = list
        while let current = entry {
            if let address = current.pointee.ai_addr, let ip = IPAddress(socketAddress: address),
                !addresses.contains(ip)
            {
                addresses.append(ip)
            }
            entry = current.pointee.ai_next
        }
        return addresses
    }
}
