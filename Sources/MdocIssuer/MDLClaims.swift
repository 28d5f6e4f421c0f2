import CBOR
import Foundation
import JOSE

/// The elements of one document to issue: its doc type and, per namespace, the elements in
/// the order they are carried.
public struct DocumentClaims: Sendable {
    public var docType: String
    /// namespace => [(element identifier, value)], ordered.
    public var nameSpaces: [(String, [(String, CBOR)])]

    public init(docType: String, nameSpaces: [(String, [(String, CBOR)])]) {
        self.docType = docType
        self.nameSpaces = nameSpaces
    }

    /// namespace => element identifiers, in order (what may be printed; values are not).
    public var elementIdentifiers: [(String, [String])] {
        nameSpaces.map { ($0.0, $0.1.map(\.0)) }
    }

    /// The value of one element, if present.
    public func value(_ identifier: String, in nameSpace: String) -> CBOR? {
        nameSpaces.first { $0.0 == nameSpace }?.1.first { $0.0 == identifier }?.1
    }
}

/// Reads claims files (JSON) into ``DocumentClaims``.
///
/// Two forms are accepted:
///
/// - The mDL form: one JSON object whose members are the elements of namespace
///   `org.iso.18013.5.1`, issued as doc type `org.iso.18013.5.1.mDL`:
///   `{"family_name": "Doe", "birth_date": "1990-01-01", "portrait": {"file": "portrait.jpg"}, ...}`.
/// - The generic form, for any doc type:
///   `{"docType": "...", "nameSpaces": {"namespace": {"element": value, ...}, ...}}`.
///
/// Elements of `org.iso.18013.5.1` (in either form) get the types of ISO 18013-5 7.2.1: text
/// for names, codes and addresses; full-date (tag 1004, "YYYY-MM-DD") for birth_date,
/// issue_date and expiry_date (issue_date and expiry_date also take an RFC 3339 date-time,
/// issued as a tdate); a tdate for portrait_capture_date; a byte string for portrait,
/// signature_usual_mark and biometric_template_* (JSON: `{"file": "path relative to the
/// claims file"}` or base64 text); unsigned integers for height, weight, age_in_years,
/// age_birth_year and sex (ISO/IEC 5218: 0, 1, 2 or 9); booleans for age_over_NN; and
/// driving_privileges as an array of `{"vehicle_category_code", "issue_date"?, "expiry_date"?,
/// "codes"?: [{"code", "sign"?, "value"?}]}`. Anything else is converted by its JSON type:
/// string → text, integer → int, other number → float, boolean, null, array, object → map.
/// In other namespaces a "YYYY-MM-DD" string becomes a full-date only for the mDL date element
/// names (birth_date, issue_date, expiry_date).
///
/// For doc type `org.iso.18013.5.1.mDL` every mandatory element must be present.
///
/// Errors name the file, the field and what was wrong, never a claim value.
public enum MDLClaims {
    /// The mDL doc type.
    public static let docType = "org.iso.18013.5.1.mDL"
    /// The mDL namespace.
    public static let nameSpace = "org.iso.18013.5.1"
    /// The mandatory mDL elements (ISO 18013-5 7.2.1, table 5).
    public static let mandatoryElements = [
        "family_name", "given_name", "birth_date", "issue_date", "expiry_date", "issuing_country",
        "issuing_authority", "document_number", "portrait", "driving_privileges", "un_distinguishing_sign",
    ]

    /// Reads a claims file. `{"file": ...}` paths are taken relative to the file's directory.
    public static func load(contentsOf url: URL) throws(IssuerError) -> DocumentClaims {
        let bytes = try IssuerFiles.read(url)
        do {
            return try parse(bytes, relativeTo: url.deletingLastPathComponent())
        } catch {
            switch error {
            case .invalidJSON(let reason): throw .invalidJSON("\(url.path): \(reason)")
            default: throw error
            }
        }
    }

    /// Reads claims from JSON text; `{"file": ...}` paths are relative to `directory`.
    public static func parse(_ json: [UInt8], relativeTo directory: URL) throws(IssuerError) -> DocumentClaims {
        let root = try JSONValue.claims(json)
        guard case .orderedObject(let members) = root else {
            throw .invalidClaim(field: "(top level)", reason: "expected an object, found \(root.kindName)")
        }
        let converter = Converter(directory: directory)
        let claims: DocumentClaims
        if let nameSpaces = root["nameSpaces"] {
            guard case .string(let docType)? = root["docType"], !docType.isEmpty else {
                throw .invalidClaim(field: "docType", reason: "the generic form needs a non-empty docType string")
            }
            for member in members where member.key != "docType" && member.key != "nameSpaces" {
                throw .invalidClaim(
                    field: member.key, reason: "unknown member; the generic form has docType and nameSpaces")
            }
            guard case .orderedObject(let spaces) = nameSpaces, !spaces.isEmpty else {
                throw .invalidClaim(field: "nameSpaces", reason: "expected a non-empty object of namespaces")
            }
            var converted: [(String, [(String, CBOR)])] = []
            for space in spaces {
                let name = space.key
                guard case .orderedObject(let items) = space.value, !items.isEmpty else {
                    throw .invalidClaim(field: "nameSpaces.\(name)", reason: "expected a non-empty object of elements")
                }
                converted.append((name, try converter.elements(items, nameSpace: name, path: "nameSpaces.\(name).")))
            }
            claims = DocumentClaims(docType: docType, nameSpaces: converted)
        } else {
            if root["docType"] != nil {
                throw .invalidClaim(field: "docType", reason: "given without nameSpaces (the generic form needs both)")
            }
            guard !members.isEmpty else {
                throw .missingMandatoryElements(docType: docType, elements: mandatoryElements)
            }
            claims = DocumentClaims(
                docType: docType,
                nameSpaces: [(nameSpace, try converter.elements(members, nameSpace: nameSpace, path: ""))])
        }
        try checkUnique(claims)
        if claims.docType == docType {
            let present = Set(claims.nameSpaces.first { $0.0 == nameSpace }?.1.map(\.0) ?? [])
            let missing = mandatoryElements.filter { !present.contains($0) }
            guard missing.isEmpty else { throw .missingMandatoryElements(docType: docType, elements: missing) }
        }
        return claims
    }

    private static func checkUnique(_ claims: DocumentClaims) throws(IssuerError) {
        var spaces: Set<String> = []
        for (name, elements) in claims.nameSpaces {
            guard spaces.insert(name).inserted else {
                throw .invalidClaim(field: "nameSpaces.\(name)", reason: "namespace given twice")
            }
            var seen: Set<String> = []
            for (identifier, _) in elements where !seen.insert(identifier).inserted {
                throw .invalidClaim(field: identifier, reason: "element given twice in \(name)")
            }
        }
    }
}

/// Turns JSON values into CBOR element values by the rules of ``MDLClaims``.
private struct Converter {
    let directory: URL

    static let textElements: Set<String> = [
        "family_name", "given_name", "issuing_country", "issuing_authority", "document_number",
        "un_distinguishing_sign", "administrative_number", "eye_colour", "hair_colour", "birth_place",
        "resident_address", "issuing_jurisdiction", "nationality", "resident_city", "resident_state",
        "resident_postal_code", "resident_country", "family_name_national_character",
        "given_name_national_character",
    ]
    static let dateElements: Set<String> = ["birth_date", "issue_date", "expiry_date"]
    static let unsignedElements: Set<String> = ["height", "weight", "age_in_years", "age_birth_year", "sex"]
    static let byteElements: Set<String> = ["portrait", "signature_usual_mark"]

    func elements(_ members: [JSONValue.Member], nameSpace: String, path: String)
        throws(IssuerError) -> [(String, CBOR)]
    {
        var result: [(String, CBOR)] = []
        for (identifier, value) in members.map({ ($0.key, $0.value) }) {
            guard !identifier.isEmpty else {
                throw .invalidClaim(field: path + "\"\"", reason: "empty element identifier")
            }
            let field = path + identifier
            if nameSpace == MDLClaims.nameSpace {
                result.append((identifier, try mdlElement(identifier, value, field: field)))
            } else if Self.dateElements.contains(identifier), case .string(let text) = value, Self.isFullDate(text) {
                result.append((identifier, .fullDate(text)))
            } else {
                result.append((identifier, try generic(value, field: field)))
            }
        }
        return result
    }

    /// One element of the mDL namespace.
    private func mdlElement(_ identifier: String, _ value: JSONValue, field: String) throws(IssuerError) -> CBOR {
        switch identifier {
        case "issuing_country", "resident_country", "nationality":
            let code = try text(value, field: field)
            guard code.count == 2, code.unicodeScalars.allSatisfy({ ("A"..."Z").contains($0) }) else {
                throw .invalidClaim(field: field, reason: "expected an ISO 3166-1 alpha-2 code (two capital letters)")
            }
            return .text(code)
        case _ where Self.textElements.contains(identifier):
            return .text(try text(value, field: field))
        case "birth_date":
            return try fullDate(value, field: field)
        case "issue_date", "expiry_date":
            if case .string(let text) = value, !Self.isFullDate(text), let date = RFC3339.date(from: text) {
                return .tdate(date)
            }
            return try fullDate(value, field: field)
        case "portrait_capture_date":
            guard case .string(let text) = value, let date = RFC3339.date(from: text) else {
                throw .invalidClaim(field: field, reason: "expected an RFC 3339 date-time string")
            }
            return .tdate(date)
        case _ where Self.byteElements.contains(identifier) || identifier.hasPrefix("biometric_template_"):
            return .bytes(try bytes(value, field: field))
        case "sex":
            let code = try unsigned(value, field: field)
            guard [0, 1, 2, 9].contains(code) else {
                throw .invalidClaim(field: field, reason: "expected an ISO/IEC 5218 code: 0, 1, 2 or 9")
            }
            return .unsigned(code)
        case _ where Self.unsignedElements.contains(identifier):
            return .unsigned(try unsigned(value, field: field))
        case _ where Self.isAgeOver(identifier):
            guard case .bool(let flag) = value else { throw mismatch(field, "a boolean", value) }
            return .bool(flag)
        case "driving_privileges":
            return try drivingPrivileges(value, field: field)
        default:
            return try generic(value, field: field)
        }
    }

    /// age_over_NN, NN two digits.
    static func isAgeOver(_ identifier: String) -> Bool {
        guard identifier.hasPrefix("age_over_") else { return false }
        let digits = identifier.dropFirst("age_over_".count)
        return digits.count == 2 && digits.allSatisfy { $0.isASCII && $0.isNumber }
    }

    /// "YYYY-MM-DD" naming a real calendar day.
    static func isFullDate(_ text: String) -> Bool {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard text.utf8.count == 10, parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
            parts.allSatisfy({ $0.allSatisfy { $0.isASCII && $0.isNumber } }),
            let year = Int(parts[0]), let month = Int(parts[1]), let day = Int(parts[2]), (1...12).contains(month)
        else { return false }
        let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
        let lengths = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
        return (1...lengths[month - 1]).contains(day)
    }

    private func mismatch(_ field: String, _ expected: String, _ value: JSONValue) -> IssuerError {
        .invalidClaim(field: field, reason: "expected \(expected), found \(value.kindName)")
    }

    private func text(_ value: JSONValue, field: String) throws(IssuerError) -> String {
        guard case .string(let text) = value else { throw mismatch(field, "a string", value) }
        return text
    }

    private func fullDate(_ value: JSONValue, field: String) throws(IssuerError) -> CBOR {
        guard case .string(let text) = value else { throw mismatch(field, "a \"YYYY-MM-DD\" date string", value) }
        guard Self.isFullDate(text) else {
            throw .invalidClaim(field: field, reason: "expected a full-date \"YYYY-MM-DD\" naming a real day")
        }
        return .fullDate(text)
    }

    private func unsigned(_ value: JSONValue, field: String) throws(IssuerError) -> UInt64 {
        guard case .integer(let number) = value, number >= 0 else {
            throw .invalidClaim(field: field, reason: "expected a non-negative integer, found \(value.kindName)")
        }
        return UInt64(number)
    }

    /// `{"file": "path"}` (relative to the claims file) or base64 text (standard or URL-safe).
    private func bytes(_ value: JSONValue, field: String) throws(IssuerError) -> [UInt8] {
        switch value {
        case .object, .orderedObject:
            guard case .string(let path)? = value["file"] else {
                throw .invalidClaim(field: field, reason: "expected {\"file\": \"path\"} or base64 text")
            }
            let url = path.hasPrefix("/") ? URL(fileURLWithPath: path) : directory.appendingPathComponent(path)
            let content = try IssuerFiles.read(url)
            guard !content.isEmpty else { throw .file(path: url.path, reason: "is empty (\(field))") }
            return content
        case .string(let text):
            var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
            base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
            guard let data = Data(base64Encoded: base64), !data.isEmpty else {
                throw .invalidClaim(field: field, reason: "expected base64 text or {\"file\": \"path\"}")
            }
            return [UInt8](data)
        default:
            throw mismatch(field, "{\"file\": \"path\"} or base64 text", value)
        }
    }

    /// `DrivingPrivileges = [* {"vehicle_category_code": tstr, ? "issue_date": full-date,
    /// ? "expiry_date": full-date, ? "codes": [+ {"code": tstr, ? "sign": tstr, ? "value": tstr}]}]`.
    private func drivingPrivileges(_ value: JSONValue, field: String) throws(IssuerError) -> CBOR {
        guard case .array(let privileges) = value else { throw mismatch(field, "an array of privileges", value) }
        var result: [CBOR] = []
        for (index, privilege) in privileges.enumerated() {
            let path = "\(field)[\(index)]"
            guard case .orderedObject(let members) = privilege else { throw mismatch(path, "an object", privilege) }
            for member in members
            where !["vehicle_category_code", "issue_date", "expiry_date", "codes"].contains(member.key) {
                throw .invalidClaim(field: "\(path).\(member.key)", reason: "unknown driving privilege member")
            }
            guard let category = privilege["vehicle_category_code"] else {
                throw .invalidClaim(field: "\(path).vehicle_category_code", reason: "missing")
            }
            var entries = [
                CBORMapEntry("vehicle_category_code", .text(try text(category, field: "\(path).vehicle_category_code")))
            ]
            for dateField in ["issue_date", "expiry_date"] {
                if let date = privilege[dateField] {
                    entries.append(CBORMapEntry(.text(dateField), try fullDate(date, field: "\(path).\(dateField)")))
                }
            }
            if let codes = privilege["codes"] {
                entries.append(CBORMapEntry("codes", try self.codes(codes, field: "\(path).codes")))
            }
            result.append(.map(entries))
        }
        return .array(result)
    }

    private func codes(_ value: JSONValue, field: String) throws(IssuerError) -> CBOR {
        guard case .array(let codes) = value, !codes.isEmpty else {
            throw .invalidClaim(field: field, reason: "expected a non-empty array of codes, found \(value.kindName)")
        }
        var result: [CBOR] = []
        for (index, code) in codes.enumerated() {
            let path = "\(field)[\(index)]"
            guard case .orderedObject(let members) = code else { throw mismatch(path, "an object", code) }
            for member in members where !["code", "sign", "value"].contains(member.key) {
                throw .invalidClaim(field: "\(path).\(member.key)", reason: "unknown code member")
            }
            guard let name = code["code"] else { throw .invalidClaim(field: "\(path).code", reason: "missing") }
            var entries = [CBORMapEntry("code", .text(try text(name, field: "\(path).code")))]
            for optional in ["sign", "value"] {
                if let member = code[optional] {
                    entries.append(CBORMapEntry(.text(optional), .text(try text(member, field: "\(path).\(optional)"))))
                }
            }
            result.append(.map(entries))
        }
        return .array(result)
    }

    /// By JSON type: string → tstr, integer → int, other number → float, bool, null, array,
    /// object → map with text keys.
    private func generic(_ value: JSONValue, field: String) throws(IssuerError) -> CBOR {
        switch value {
        case .string(let text): return .text(text)
        case .integer(let number): return .int(number)
        case .number(let number): return .float(number)
        case .bool(let flag): return .bool(flag)
        case .null: return .null
        case .array(let items):
            var result: [CBOR] = []
            for (index, item) in items.enumerated() { result.append(try generic(item, field: "\(field)[\(index)]")) }
            return .array(result)
        case .object(let members):
            // Not from the order-keeping reader: in the order of the names.
            let sorted = members.sorted { $0.key < $1.key }.map { JSONValue.Member(key: $0.key, value: $0.value) }
            return try generic(.orderedObject(sorted), field: field)
        case .orderedObject(let members):
            var result: [CBORMapEntry] = []
            for (key, item) in members.map({ ($0.key, $0.value) }) {
                result.append(CBORMapEntry(.text(key), try generic(item, field: "\(field).\(key)")))
            }
            return .map(result)
        }
    }
}
