/// An X.509 distinguished name as an ordered list of (attribute, value) pairs, most general
/// first (the order they are encoded in: C, then O, then CN, for instance). Each pair becomes
/// one relative distinguished name.
public struct DistinguishedName: Sendable, Hashable, CustomStringConvertible {
    /// The name attributes the certificate builder can write.
    public enum Attribute: String, Sendable, Hashable, CaseIterable {
        /// countryName (2.5.4.6): two letters, ISO 3166-1 alpha-2 (encoded as a PrintableString).
        case country = "C"
        /// stateOrProvinceName (2.5.4.8).
        case stateOrProvince = "ST"
        /// localityName (2.5.4.7).
        case locality = "L"
        /// organizationName (2.5.4.10).
        case organization = "O"
        /// organizationalUnitName (2.5.4.11).
        case organizationalUnit = "OU"
        /// commonName (2.5.4.3).
        case commonName = "CN"
        /// serialNumber (2.5.4.5), the subject's serial number (not the certificate's).
        case serialNumber = "serialNumber"
    }

    /// One attribute and its value.
    public struct Component: Sendable, Hashable {
        public var attribute: Attribute
        /// The value (UTF-8; encoded as a UTF8String, or a PrintableString for the country).
        public var value: String

        public init(_ attribute: Attribute, _ value: String) {
            self.attribute = attribute
            self.value = value
        }
    }

    /// The components in encoding order.
    public var components: [Component]

    /// A name from pairs in encoding order (most general first).
    public init(_ components: [(Attribute, String)]) {
        self.components = components.map { Component($0.0, $0.1) }
    }

    /// A name from the usual attributes, encoded in the order C, ST, L, O, OU, CN; `nil` ones
    /// are left out.
    public init(
        country: String? = nil, stateOrProvince: String? = nil, locality: String? = nil,
        organization: String? = nil, organizationalUnit: String? = nil, commonName: String? = nil
    ) {
        let pairs: [(Attribute, String?)] = [
            (.country, country), (.stateOrProvince, stateOrProvince), (.locality, locality),
            (.organization, organization), (.organizationalUnit, organizationalUnit), (.commonName, commonName),
        ]
        self.components = pairs.compactMap { pair in pair.1.map { Component(pair.0, $0) } }
    }

    /// The first value of `attribute`, if any.
    public subscript(attribute: Attribute) -> String? {
        components.first { $0.attribute == attribute }?.value
    }

    /// The name on one line, RFC 2253 style, most specific first ("CN=reader,C=US"): the form
    /// ``Certificate/subject`` prints.
    public var description: String {
        components.reversed().map { "\($0.attribute.rawValue)=\(Self.escape($0.value))" }.joined(separator: ",")
    }

    /// RFC 2253 escaping of one attribute value.
    private static func escape(_ value: String) -> String {
        var result = ""
        for (index, character) in value.enumerated() {
            let first = index == 0
            let last = index == value.count - 1
            switch character {
            case ",", "+", "\"", "\\", "<", ">", ";":
                result.append("\\")
            case "#" where first, " " where first || last:
                result.append("\\")
            default:
                break
            }
            result.append(character)
        }
        return result
    }
}
