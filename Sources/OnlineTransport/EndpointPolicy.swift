import Curl

/// Where an IP address points: the public internet, or somewhere an endpoint named by a
/// remote party must not lead the holder (this machine, its link, its private networks).
public enum AddressClass: String, Sendable, CaseIterable, CustomStringConvertible {
    /// 127.0.0.0/8, ::1.
    case loopback
    /// 169.254.0.0/16 (a cloud's metadata service lives there), fe80::/10.
    case linkLocal
    /// 10.0.0.0/8, 172.16.0.0/12, 192.168.0.0/16, 100.64.0.0/10 (shared address space, CGNAT),
    /// fec0::/10 (deprecated site-local).
    case privateNetwork
    /// fc00::/7.
    case uniqueLocal
    /// 0.0.0.0/8, :: (connecting there reaches this machine).
    case unspecified
    /// Multicast, broadcast and reserved ranges (224.0.0.0/3, ff00::/8): never a server.
    case reserved
    /// Anything else.
    case publicAddress

    /// The class of `address`; IPv4-mapped and IPv4-compatible IPv6 addresses, and those of
    /// the NAT64 well-known prefix 64:ff9b::/96, are classified as the IPv4 address they carry.
    public init(_ address: IPAddress) {
        if let v4 = address.embeddedIPv4 ?? Self.nat64(address) {
            self = Self.classify(v4: v4.bytes)
        } else if address.isIPv4 {
            self = Self.classify(v4: address.bytes)
        } else {
            self = Self.classify(v6: address.bytes)
        }
    }

    public var description: String {
        switch self {
        case .loopback: return "a loopback address"
        case .linkLocal: return "a link-local address"
        case .privateNetwork: return "a private address"
        case .uniqueLocal: return "a unique-local address"
        case .unspecified: return "the unspecified address"
        case .reserved: return "a multicast or reserved address"
        case .publicAddress: return "a public address"
        }
    }

    private static func nat64(_ address: IPAddress) -> IPAddress? {
        let b = address.bytes
        guard b.count == 16, b[0] == 0x00, b[1] == 0x64, b[2] == 0xFF, b[3] == 0x9B, b[4..<12].allSatisfy({ $0 == 0 })
        else { return nil }
        return IPAddress(bytes: Array(b[12..<16]))
    }

    private static func classify(v4 b: [UInt8]) -> AddressClass {
        switch (b[0], b[1]) {
        case (127, _): return .loopback
        case (0, _): return .unspecified
        case (169, 254): return .linkLocal
        case (10, _), (192, 168): return .privateNetwork
        case (172, 16...31): return .privateNetwork
        case (100, 64...127): return .privateNetwork
        case (224...255, _): return .reserved
        default: return .publicAddress
        }
    }

    private static func classify(v6 b: [UInt8]) -> AddressClass {
        if b[0..<15].allSatisfy({ $0 == 0 }) {
            return b[15] == 1 ? .loopback : b[15] == 0 ? .unspecified : .reserved
        }
        if b[0] == 0xFE, b[1] & 0xC0 == 0x80 { return .linkLocal }
        if b[0] == 0xFE, b[1] & 0xC0 == 0xC0 { return .privateNetwork }
        if b[0] & 0xFE == 0xFC { return .uniqueLocal }
        if b[0] == 0xFF { return .reserved }
        return .publicAddress
    }
}

/// Which addresses an exchange may connect to. Endpoints named by a remote party that has not
/// been authenticated (an issuer's or authorization server's metadata, a verifier's request)
/// may not lead the holder to loopback, link-local, private, unique-local or unspecified
/// addresses, unless the party itself (the credential issuer or verifier the user chose) is
/// at an address of that class: an issuer on loopback may name another loopback port, one on
/// a private network another private address.
///
/// The check runs for the address a socket is about to be made for (libcurl's open-socket
/// callback), so it is the address connected to: no DNS answer can change between the
/// check and the connection. Through a proxy (`https_proxy`) the holder resolves the name
/// itself, checks each address, and has the proxy tunnel to the checked address (never to
/// the name); the proxy's own address is not checked (see `CurlProxy`).
public struct EndpointPolicy: Sendable, Equatable {
    /// Who named the endpoints, for messages: "the issuer", "the verifier".
    public var namedBy: String
    /// Classes allowed besides public addresses; nil: every address (an exchange with the
    /// party the user chose).
    public var allowed: Set<AddressClass>?

    /// Every address: the party the user chose (an offer's credential issuer, a request URL).
    public static let unrestricted = EndpointPolicy(namedBy: "the user", allowed: nil)

    public init(namedBy: String, allowed: Set<AddressClass>?) {
        self.namedBy = namedBy
        self.allowed = allowed
    }

    /// Endpoints `namedBy` a party that was reached at `partyAddress` (nil: not known, so
    /// only public addresses): that address's class is allowed besides public ones.
    public init(namedBy: String, partyAddress: IPAddress?) {
        self.init(namedBy: namedBy, partyAddresses: partyAddress.map { [$0] } ?? [])
    }

    /// Endpoints `namedBy` a party at `partyAddresses` (what its host name resolves to): their
    /// classes are allowed besides public addresses.
    public init(namedBy: String, partyAddresses: [IPAddress]) {
        self.namedBy = namedBy
        self.allowed = Set(partyAddresses.map(AddressClass.init)).union([.publicAddress])
    }

    /// Why `address` may not be connected to, or nil when it may.
    public func refusal(_ address: IPAddress) -> String? {
        guard let allowed else { return nil }
        let kind = AddressClass(address)
        if allowed.contains(kind) { return nil }
        return
            "it resolves to \(address), \(kind); endpoints named by \(namedBy) may not point at loopback, link-local, private, unique-local or reserved addresses unless \(namedBy) itself is at one"
    }
}
