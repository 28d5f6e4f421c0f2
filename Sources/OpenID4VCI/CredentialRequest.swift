import JOSE

/// A Credential Request (OpenID4VCI 1.0 section 8.2), as its JSON body: the credential by
/// `credential_identifier` (when the token response gave identifiers) or by
/// `credential_configuration_id`, and one `jwt` proof per key in `proofs`.
public struct CredentialRequest: Sendable {
    public enum Target: Sendable, Equatable {
        case identifier(String)
        case configuration(String)
    }

    public var target: Target
    /// Compact JWS key proofs, one per key to bind.
    public var jwtProofs: [String]
    /// `credential_response_encryption` (``MessageEncryption/requestMember``), when the answer is
    /// to be encrypted.
    public var responseEncryption: JSONValue?

    public init(target: Target, jwtProofs: [String], responseEncryption: JSONValue? = nil) {
        self.target = target
        self.jwtProofs = jwtProofs
        self.responseEncryption = responseEncryption
    }

    /// The JSON body.
    public var body: [UInt8] {
        var members: [String: JSONValue] = [:]
        switch target {
        case .identifier(let id): members["credential_identifier"] = .string(id)
        case .configuration(let id): members["credential_configuration_id"] = .string(id)
        }
        if !jwtProofs.isEmpty { members["proofs"] = ["jwt": .array(jwtProofs.map(JSONValue.string))] }
        if let responseEncryption { members["credential_response_encryption"] = responseEncryption }
        return JSONValue.object(members).serialized
    }
}

/// A Credential Response (OpenID4VCI 1.0 section 8.3): the credentials (immediate) or a
/// `transaction_id` and `interval` (deferred), and an optional `notification_id`.
public enum CredentialResponse: Sendable, Equatable {
    /// Each `credentials[].credential` string as sent (mso_mdoc: base64url IssuerSigned).
    case issued(credentials: [String], notificationID: String?)
    /// Deferred issuance: ask the deferred credential endpoint with `transactionID` after
    /// `interval` seconds.
    case deferred(transactionID: String, interval: Int)

    /// - Throws: ``IssuanceError/invalidResponse(endpoint:_:)`` naming the member.
    public init(body: [UInt8], endpoint: String = "credential endpoint") throws(IssuanceError) {
        let json = try JSONValue(parsing: body) { _ in
            IssuanceError.invalidResponse(endpoint: endpoint, "it is not JSON")
        }
        guard json.objectValue != nil else { throw .invalidResponse(endpoint: endpoint, "it is not a JSON object") }
        if let list = json["credentials"] {
            guard let entries = list.arrayValue, !entries.isEmpty else {
                throw .invalidResponse(endpoint: endpoint, "credentials is not a non-empty array")
            }
            var credentials: [String] = []
            for entry in entries {
                guard let credential = entry["credential"]?.stringValue, !credential.isEmpty else {
                    throw .invalidResponse(endpoint: endpoint, "a credentials entry has no credential string")
                }
                credentials.append(credential)
            }
            let notification = json["notification_id"]?.stringValue
            if json["notification_id"] != nil, notification == nil {
                throw .invalidResponse(endpoint: endpoint, "notification_id is not a string")
            }
            self = .issued(credentials: credentials, notificationID: notification)
            return
        }
        if let transaction = json["transaction_id"]?.stringValue, !transaction.isEmpty {
            guard let interval = json["interval"]?.intValue, interval > 0 else {
                throw .invalidResponse(endpoint: endpoint, "a deferred answer needs a positive interval")
            }
            self = .deferred(transactionID: transaction, interval: interval)
            return
        }
        throw .invalidResponse(endpoint: endpoint, "it has neither credentials nor transaction_id")
    }
}

/// A Deferred Credential Request (OpenID4VCI 1.0 section 9.1): the `transaction_id` of a
/// deferred answer. The answer is a ``CredentialResponse``: the credentials, or (HTTP 202) the
/// transaction again with a new `interval`; earlier drafts answered `issuance_pending`.
public struct DeferredCredentialRequest: Sendable, Equatable {
    public var transactionID: String
    /// `credential_response_encryption`, when the answer is to be encrypted.
    public var responseEncryption: JSONValue?

    public init(transactionID: String, responseEncryption: JSONValue? = nil) {
        self.transactionID = transactionID
        self.responseEncryption = responseEncryption
    }

    public var body: [UInt8] {
        var members: [String: JSONValue] = ["transaction_id": .string(transactionID)]
        if let responseEncryption { members["credential_response_encryption"] = responseEncryption }
        return JSONValue.object(members).serialized
    }
}

/// A Notification Request (OpenID4VCI 1.0 section 11.1).
public struct NotificationRequest: Sendable, Equatable {
    public enum Event: String, Sendable {
        case credentialAccepted = "credential_accepted"
        case credentialFailure = "credential_failure"
        case credentialDeleted = "credential_deleted"
    }

    public var notificationID: String
    public var event: Event
    /// `event_description`: a short text, never values.
    public var eventDescription: String?

    public init(notificationID: String, event: Event, eventDescription: String? = nil) {
        self.notificationID = notificationID
        self.event = event
        self.eventDescription = eventDescription
    }

    public var body: [UInt8] {
        var members: [String: JSONValue] = [
            "notification_id": .string(notificationID), "event": .string(event.rawValue),
        ]
        if let eventDescription {
            // ASCII only, as the spec asks of event_description.
            let ascii = String(
                String.UnicodeScalarView(eventDescription.unicodeScalars.filter { $0.isASCII && $0.value >= 0x20 }))
            members["event_description"] = .string(String(ascii.prefix(300)))
        }
        return JSONValue.object(members).serialized
    }
}
