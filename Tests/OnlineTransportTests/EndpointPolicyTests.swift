import Curl
import Testing

@testable import OnlineTransport

/// The address classes of the endpoint policy, IPv4, IPv6 and the IPv6 forms of IPv4.
@Suite struct EndpointPolicyTests {
    /// A literal address of the tests.
    static func ip(_ text: String) -> IPAddress { IPAddress(text)! }

    static let cases: [(String, AddressClass)] = [
        ("127.0.0.1", .loopback), ("127.255.0.9", .loopback), ("::1", .loopback),
        ("169.254.169.254", .linkLocal), ("fe80::1", .linkLocal), ("febf::1", .linkLocal),
        ("10.0.0.7", .privateNetwork), ("172.16.0.1", .privateNetwork), ("172.31.255.255", .privateNetwork),
        ("192.168.1.1", .privateNetwork), ("100.64.0.1", .privateNetwork), ("100.127.255.254", .privateNetwork),
        ("fec0::1", .privateNetwork),
        ("fc00::1", .uniqueLocal), ("fd12:3456::1", .uniqueLocal),
        ("0.0.0.0", .unspecified), ("0.1.2.3", .unspecified), ("::", .unspecified),
        ("224.0.0.1", .reserved), ("255.255.255.255", .reserved), ("ff02::1", .reserved),
        ("198.51.100.10", .publicAddress), ("8.8.8.8", .publicAddress), ("172.15.0.1", .publicAddress),
        ("172.32.0.1", .publicAddress), ("100.63.0.1", .publicAddress), ("100.128.0.1", .publicAddress),
        ("169.253.0.1", .publicAddress), ("2001:db8::1", .publicAddress),
        // IPv4-mapped, IPv4-compatible and NAT64 forms are what they carry.
        ("::ffff:127.0.0.1", .loopback), ("::ffff:169.254.169.254", .linkLocal), ("::ffff:10.1.2.3", .privateNetwork),
        ("::ffff:0.0.0.0", .unspecified), ("::ffff:198.51.100.10", .publicAddress), ("::127.0.0.1", .loopback),
        ("::a9fe:a9fe", .linkLocal), ("64:ff9b::a9fe:a9fe", .linkLocal), ("64:ff9b::c633:640a", .publicAddress),
        ("[::1]", .loopback),
    ]

    @Test("addresses are classified", arguments: cases)
    func classified(_ text: String, _ expected: AddressClass) throws {
        let address = try #require(IPAddress(text))
        #expect(AddressClass(address) == expected, "\(text)")
    }

    @Test("text that is no address is not parsed")
    func notAddresses() {
        for text in ["", "localhost", "256.1.1.1", "1.2.3", "::g", "[::1", "127.0.0.1:443"] {
            #expect(IPAddress(text) == nil, "\(text)")
        }
        #expect(IPAddress("::ffff:7f00:1")?.description == "::ffff:127.0.0.1")
        #expect(IPAddress("198.51.100.10")?.description == "198.51.100.10")
    }

    @Test("a public party allows public addresses only; a party on loopback allows loopback too")
    func partyClass() throws {
        let publicParty = EndpointPolicy(namedBy: "the issuer", partyAddress: IPAddress("198.51.100.10"))
        #expect(publicParty.refusal(Self.ip("203.0.113.5")) == nil)
        for text in ["127.0.0.1", "::1", "169.254.169.254", "10.0.0.7", "fd00::1", "::ffff:127.0.0.1", "0.0.0.0"] {
            let reason = try #require(publicParty.refusal(Self.ip(text)), "\(text)")
            #expect(reason.contains("endpoints named by the issuer may not point at"))
        }
        let refusal = publicParty.refusal(Self.ip("169.254.169.254"))
        #expect(refusal?.hasPrefix("it resolves to 169.254.169.254, a link-local address;") == true)

        let loopbackParty = EndpointPolicy(namedBy: "the issuer", partyAddress: IPAddress("127.0.0.1"))
        #expect(loopbackParty.refusal(Self.ip("127.0.0.1")) == nil)
        #expect(loopbackParty.refusal(Self.ip("::1")) == nil)
        #expect(loopbackParty.refusal(Self.ip("198.51.100.10")) == nil)
        #expect(loopbackParty.refusal(Self.ip("169.254.169.254")) != nil)
        #expect(loopbackParty.refusal(Self.ip("10.0.0.7")) != nil)

        let privateParty = EndpointPolicy(namedBy: "the verifier", partyAddresses: [Self.ip("10.1.1.1")])
        #expect(privateParty.refusal(Self.ip("192.168.0.9")) == nil)
        #expect(privateParty.refusal(Self.ip("127.0.0.1"))?.contains("by the verifier") == true)

        let unknown = EndpointPolicy(namedBy: "the issuer", partyAddress: nil)
        #expect(unknown.refusal(Self.ip("127.0.0.1")) != nil)
        #expect(EndpointPolicy.unrestricted.refusal(Self.ip("169.254.169.254")) == nil)
    }
}
