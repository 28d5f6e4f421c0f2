import CBOR
import Foundation
import MdocIssuer
import TestSupport
import Testing

struct ClaimsTests {
    /// The error of parsing `json`, or nil if it parses.
    static func failure(_ json: [UInt8]) -> IssuerError? {
        do {
            _ = try MDLClaims.parse(json, relativeTo: IssuerFixtures.directory)
            return nil
        } catch {
            return error
        }
    }

    static func failure(_ json: String) -> IssuerError? { failure(Array(json.utf8)) }

    @Test func committedClaimsHaveTheISOTypes() throws {
        let claims = try IssuerFixtures.mdlClaims()
        #expect(claims.docType == "org.iso.18013.5.1.mDL")
        #expect(claims.nameSpaces.map(\.0) == ["org.iso.18013.5.1"])
        func value(_ id: String) -> CBOR? { claims.value(id, in: MDLClaims.nameSpace) }
        #expect(value("family_name") == .text("Doe"))
        #expect(value("birth_date") == .tagged(1004, .text("1990-04-15")))
        #expect(value("issue_date") == .fullDate("2024-01-15"))
        #expect(value("expiry_date") == .fullDate("2034-01-15"))
        #expect(value("issuing_country") == "US")
        #expect(value("sex") == .unsigned(2))
        #expect(value("height") == .unsigned(168))
        #expect(value("age_birth_year") == .unsigned(1990))
        #expect(value("age_over_18") == true)
        #expect(value("age_over_65") == false)
        #expect(value("portrait")?.bytesValue == [UInt8](try Data(contentsOf: IssuerFixtures.url("portrait.jpg"))))
        #expect(
            value("driving_privileges")
                == [
                    [
                        "vehicle_category_code": "A", "issue_date": .fullDate("2018-08-09"),
                        "expiry_date": .fullDate("2034-01-15"),
                    ],
                    [
                        "vehicle_category_code": "B", "issue_date": .fullDate("2017-02-23"),
                        "expiry_date": .fullDate("2034-01-15"), "codes": [["code": "01", "sign": "=", "value": "06"]],
                    ],
                ])
        // Element order is the file's order.
        #expect(claims.elementIdentifiers[0].1.prefix(3) == ["family_name", "given_name", "birth_date"])
    }

    @Test func drivingPrivilegesEncodeAsTheAnnexDExample() throws {
        let claims = try IssuerFixtures.parse(
            """
            {"docType": "org.example.privileges-only", "nameSpaces": {"org.iso.18013.5.1": {"driving_privileges": [
              {"vehicle_category_code": "A", "issue_date": "2018-08-09", "expiry_date": "2024-10-20"},
              {"vehicle_category_code": "B", "issue_date": "2017-02-23", "expiry_date": "2024-10-20"}
            ]}}}
            """)
        let value = try #require(claims.value("driving_privileges", in: MDLClaims.nameSpace))
        #expect(value.encoded() == Vectors.annexD("DrivingPrivileges_D21"))
    }

    @Test func missingMandatoryElementsAreNamed() throws {
        let json = try IssuerFixtures.claimsJSON(removing: ["portrait", "driving_privileges", "family_name"])
        let error = try #require(Self.failure(json))
        #expect(
            error
                == .missingMandatoryElements(
                    docType: MDLClaims.docType, elements: ["family_name", "portrait", "driving_privileges"]))
        #expect(error.description.contains("family_name, portrait, driving_privileges"))
        // An empty mDL lacks all of them.
        #expect(
            Self.failure("{}")
                == .missingMandatoryElements(docType: MDLClaims.docType, elements: MDLClaims.mandatoryElements))
        // The generic form with the mDL doc type is checked the same way.
        let generic = """
            {"docType": "org.iso.18013.5.1.mDL", "nameSpaces": {"org.iso.18013.5.1": {"family_name": "Doe"}}}
            """
        guard case .missingMandatoryElements(_, let missing)? = Self.failure(generic) else {
            Issue.record("the generic mDL form was not checked")
            return
        }
        #expect(!missing.contains("family_name"))
        #expect(missing.contains("given_name"))
    }

    @Test func wrongTypesNameTheFieldAndNotTheValue() throws {
        let cases: [(String, String, String)] = [
            ("birth_date", "19900415", "birth_date"),
            ("birth_date", "\"1990-02-30\"", "birth_date"),
            ("family_name", "42", "family_name"),
            ("issuing_country", "\"USA\"", "issuing_country"),
            ("sex", "3", "sex"),
            ("height", "-1", "height"),
            ("age_over_18", "\"yes\"", "age_over_18"),
            ("portrait", "{\"path\": \"x\"}", "portrait"),
            ("portrait", "\"not base64!\"", "portrait"),
            ("driving_privileges", "{}", "driving_privileges"),
            (
                "driving_privileges", "[{\"vehicle_category_code\": \"A\"}, {\"issue_date\": \"2020-01-01\"}]",
                "driving_privileges[1].vehicle_category_code"
            ),
            (
                "driving_privileges", "[{\"vehicle_category_code\": \"A\", \"expiry_date\": \"soon\"}]",
                "driving_privileges[0].expiry_date"
            ),
            (
                "driving_privileges", "[{\"vehicle_category_code\": \"A\", \"codes\": [{\"sign\": \"=\"}]}]",
                "driving_privileges[0].codes[0].code"
            ),
            (
                "driving_privileges", "[{\"vehicle_category_code\": \"A\", \"colour\": \"red\"}]",
                "driving_privileges[0].colour"
            ),
        ]
        for (element, json, field) in cases {
            let error = Self.failure(try IssuerFixtures.claimsJSON(replacing: [element: json]))
            guard case .invalidClaim(let reported, let reason)? = error else {
                Issue.record("\(element) = \(json): \(String(describing: error))")
                continue
            }
            #expect(reported == field, "\(element) = \(json)")
            #expect(!reason.contains(json), "the reason quotes the value: \(reason)")
        }
    }

    @Test func portraitAsBase64OrMissingFile() throws {
        let jpeg = [UInt8](try Data(contentsOf: IssuerFixtures.url("portrait.jpg")))
        let base64 = Data(jpeg).base64EncodedString()
        let claims = try MDLClaims.parse(
            try IssuerFixtures.claimsJSON(replacing: ["portrait": "\"\(base64)\""]),
            relativeTo: IssuerFixtures.directory)
        #expect(claims.value("portrait", in: MDLClaims.nameSpace)?.bytesValue == jpeg)

        let missing = Self.failure(try IssuerFixtures.claimsJSON(replacing: ["portrait": "{\"file\": \"nope.jpg\"}"]))
        #expect(missing == .file(path: IssuerFixtures.url("nope.jpg").path, reason: "no such file"))
    }

    @Test func otherElementsFollowTheirJSONType() throws {
        let claims = try IssuerFixtures.parse(
            """
            {"docType": "eu.europa.ec.eudi.pid.1", "nameSpaces": {
              "eu.europa.ec.eudi.pid.1": {"birth_date": "1990-01-02", "nickname": "2020-01-01", "count": 7,
                "ratio": 0.5, "flag": true, "nothing": null, "list": [1, "two"], "nested": {"b": 1, "a": 2},
                "age_over_18": "not checked here"},
              "org.example.other": {"issue_date": "2020-03-04", "expiry_date": "2030-13-01"}}}
            """)
        #expect(claims.docType == "eu.europa.ec.eudi.pid.1")
        #expect(claims.nameSpaces.map(\.0) == ["eu.europa.ec.eudi.pid.1", "org.example.other"])
        func value(_ id: String, _ ns: String = "eu.europa.ec.eudi.pid.1") -> CBOR? { claims.value(id, in: ns) }
        #expect(value("birth_date") == .fullDate("1990-01-02"))
        #expect(value("nickname") == .text("2020-01-01"))
        #expect(value("count") == 7)
        #expect(value("ratio") == .float(0.5))
        #expect(value("flag") == true)
        #expect(value("nothing") == .null)
        #expect(value("list") == [1, "two"])
        #expect(value("nested") == ["b": 1, "a": 2])
        #expect(value("age_over_18") == "not checked here")
        #expect(value("issue_date", "org.example.other") == .fullDate("2020-03-04"))
        #expect(value("expiry_date", "org.example.other") == .text("2030-13-01"))  // not a real date
    }

    @Test func mdlDateTimesAndUnknownElements() throws {
        let claims = try MDLClaims.parse(
            try IssuerFixtures.claimsJSON(replacing: [
                "issue_date": "\"2024-01-15T10:00:00Z\"", "portrait_capture_date": "\"2023-12-01T09:30:00Z\"",
                "nickname": "\"JD\"", "age_over_99": "false", "age_in_years": "36",
            ]), relativeTo: IssuerFixtures.directory)
        func value(_ id: String) -> CBOR? { claims.value(id, in: MDLClaims.nameSpace) }
        #expect(value("issue_date") == .tagged(0, .text("2024-01-15T10:00:00Z")))
        #expect(value("portrait_capture_date") == .tagged(0, .text("2023-12-01T09:30:00Z")))
        #expect(value("nickname") == "JD")
        #expect(value("age_over_99") == false)
        #expect(value("age_in_years") == .unsigned(36))
    }

    @Test func malformedJSONAndShapesAreReported() throws {
        guard case .invalidJSON(let reason)? = Self.failure("{\n  \"family_name\": \"Doe\",\n  oops\n}") else {
            Issue.record("bad JSON was accepted")
            return
        }
        #expect(reason.hasPrefix("line 3, column 3:"))
        #expect(
            Self.failure("[1, 2]") == .invalidClaim(field: "(top level)", reason: "expected an object, found an array"))
        #expect(
            Self.failure("{\"docType\": \"x\"}")
                == .invalidClaim(field: "docType", reason: "given without nameSpaces (the generic form needs both)"))
        #expect(
            {
                if case .invalidClaim("docType", _)? = Self.failure("{\"nameSpaces\": {\"a\": {\"b\": 1}}}") {
                    return true
                }
                return false
            }())
        #expect(
            {
                if case .invalidClaim("family_name", _)? = Self.failure(
                    "{\"family_name\": \"a\", \"family_name\": \"b\"}")
                {
                    return true
                }
                return false
            }())
    }

    @Test func jsonStringsAndNumbersAreReadExactly() throws {
        let claims = try IssuerFixtures.parse(
            #"""
            {"docType": "org.example", "nameSpaces": {"org.example": {
              "escapes": "q\"b\\s\/n\n t\t \u00e4 \ud83d\ude00 ü", "zero": 0, "negative": -5,
              "exponent": 1e3, "fraction": -0.25, "big": 123456789012345678901234567890}}}
            """#)
        func value(_ id: String) -> CBOR? { claims.value(id, in: "org.example") }
        #expect(value("escapes") == .text("q\"b\\s/n\n t\t ä 😀 ü"))
        #expect(value("zero") == 0)
        #expect(value("negative") == -5)
        #expect(value("exponent") == .float(1000))
        #expect(value("fraction") == .float(-0.25))
        #expect(value("big") == .float(1.2345678901234568e29))
        for bad in [
            "{\"a\": 01}", "{\"a\": 1e400}", "{\"a\": \"\\ud800\"}", "{\"a\": tru}", "{\"a\": 1} x", "{\"a\": \"\n\"}",
        ] {
            guard case .invalidJSON? = Self.failure(bad) else {
                Issue.record("accepted: \(bad)")
                continue
            }
        }
    }

    @Test func loadingAMissingFileNamesIt() {
        let url = IssuerFixtures.url("no-such-claims.json")
        #expect(throws: IssuerError.file(path: url.path, reason: "no such file")) {
            try MDLClaims.load(contentsOf: url)
        }
    }
}
