import CBOR
import JOSE

/// Where a credential's status lives: an index into the Status List a Status List Token at
/// `uri` carries (draft-ietf-oauth-status-list section 6). An mdoc's MSO carries it as
/// `status` = `{"status_list": {"idx": uint, "uri": tstr}}`, an SD-JWT VC as the claim
/// `status` = `{"status_list": {"idx": number, "uri": string}}`.
public struct StatusReference: Sendable, Hashable {
    /// `idx`: the position of the credential's status in the list.
    public let index: UInt64
    /// `uri`: the Status List Token's URI (its `sub` claim must be this).
    public let uri: String

    public init(index: UInt64, uri: String) {
        self.index = index
        self.uri = uri
    }

    /// Reads the `status` value of an MSO (or a CWT's claim 65535): a map holding `status_list`.
    public init(statusClaim value: CBOR) throws(StatusListError) {
        guard case .map = value, let reference = value["status_list"], case .map = reference else {
            throw .malformedReference("status is not a map holding a status_list map")
        }
        guard let index = reference["idx"]?.uint64Value else {
            throw .malformedReference("status_list.idx is missing or not an unsigned integer")
        }
        guard let uri = reference["uri"]?.textValue, !uri.isEmpty else {
            throw .malformedReference("status_list.uri is missing or not a text string")
        }
        self.init(index: index, uri: uri)
    }

    /// Reads the `status` claim of an SD-JWT VC.
    public init(statusClaim value: JSONValue) throws(StatusListError) {
        guard let reference = value["status_list"], reference.objectValue != nil else {
            throw .malformedReference("status is not an object holding a status_list object")
        }
        guard let number = reference["idx"]?.numberValue, number >= 0, number.rounded() == number,
            number < 9_007_199_254_740_992
        else {
            throw .malformedReference("status_list.idx is missing or not a non-negative integer")
        }
        guard let uri = reference["uri"]?.stringValue, !uri.isEmpty else {
            throw .malformedReference("status_list.uri is missing or not a string")
        }
        self.init(index: UInt64(number), uri: uri)
    }

    /// The MSO's `status` value for this reference.
    public var cbor: CBOR {
        .map([
            CBORMapEntry("status_list", .map([CBORMapEntry("idx", .unsigned(index)), CBORMapEntry("uri", .text(uri))]))
        ])
    }

    /// The SD-JWT VC's `status` claim for this reference.
    public var json: JSONValue {
        ["status_list": ["idx": .number(Double(index)), "uri": .string(uri)]]
    }
}
