/// A form body (`application/x-www-form-urlencoded`), fields in order.
public struct FormBody: Sendable, Hashable {
    public struct Field: Sendable, Hashable {
        public var name: String
        public var value: String

        public init(_ name: String, _ value: String) {
            self.name = name
            self.value = value
        }
    }

    public var fields: [Field]

    public init(_ fields: [Field]) {
        self.fields = fields
    }

    /// The first value of `name`.
    public subscript(name: String) -> String? {
        fields.first { $0.name == name }?.value
    }

    /// The encoded body.
    public var encoded: String {
        FormEncoding.encode(fields.map { ($0.name, $0.value) })
    }

    /// ``FormEncoding/contentType``.
    public static let contentType = FormEncoding.contentType
}
