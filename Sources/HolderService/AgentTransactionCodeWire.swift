import DBus
import OnlineFlows
import OnlineTransport
import OpenID4VCI

/// `org.mdocholder.ConsentAgent1.RequestTransactionCode` on the wire
/// (dbus/org.mdocholder.ConsentAgent1.xml): the request as the `a{sv}` the agent gets (who
/// asks and the offer's description of the code), and its `s` answer. The answer is a secret:
/// no error or log line quotes it.
enum AgentTransactionCodeWire {
    static let member = "RequestTransactionCode"
    static let answerSignature = "s"
    /// The longest code taken (the offer's `length` is at most 64).
    static let codeLimit = 256

    /// The `request` argument: "issuer" s (display name), "issuer_id" s (the Credential Issuer
    /// Identifier), "issuer_host" s (the TLS host that served its metadata), "input_mode" s
    /// (numeric|text), "length" u (absent when the offer gives none), "description" s (absent
    /// when none; where the user finds the code).
    static func encode(_ request: TransactionCodeRequest) -> DBusValue {
        var fields: [String: DBusValue] = [
            "issuer": .string(request.issuerName),
            "issuer_id": .string(request.issuer),
            "issuer_host": .string(request.tlsHost),
            "input_mode": .string(request.code.inputMode.rawValue),
        ]
        if let length = request.code.length { fields["length"] = .uint32(UInt32(clamping: length)) }
        if let description = request.code.description { fields["description"] = .string(description) }
        return .properties(fields)
    }

    /// Why an agent's answer was not taken (never quoting it).
    enum AnswerError: Error, Equatable, CustomStringConvertible {
        case wrongSignature(String)
        case empty
        case tooLong(Int)

        var description: String {
            switch self {
            case .wrongSignature(let signature):
                "the agent answered with signature '\(signature)', expected '\(answerSignature)'"
            case .empty: "the agent answered with an empty code"
            case .tooLong(let count): "the agent's code is \(count) characters long, more than \(codeLimit)"
            }
        }
    }

    /// The agent's reply body as the code.
    static func decode(_ body: [DBusValue]) throws(AnswerError) -> String {
        let signature = body.map(\.signature).joined()
        guard signature == answerSignature, let code = body[0].stringValue else { throw .wrongSignature(signature) }
        guard !code.isEmpty else { throw .empty }
        guard code.count <= codeLimit else { throw .tooLong(code.count) }
        return code
    }
}
