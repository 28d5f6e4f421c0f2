import DBus
import HolderRuntime
import OnlineTransport
import OpenID4VCI
import SecureArea
import Testing
import Wallet

@testable import HolderService

/// ReceiveCredential's options, and how an issuance failure becomes a D-Bus error name.
struct ReceiveOptionsTests {
    static func parse(_ options: [String: DBusValue]) throws(HolderServiceError) -> ReceiveOptions {
        try ReceiveOptions(.properties(options))
    }

    @Test func defaultsAndEachOption() throws {
        #expect(try Self.parse([:]) == ReceiveOptions())
        let options = try Self.parse(["batch": .uint32(3), "wait": .uint32(0), "secure_area": .string("pkcs11")])
        #expect(options.batch == 3 && options.wait == 0 && options.secureArea == .pkcs11)
        #expect(try Self.parse(["batch": .variant(.uint32(2))]).batch == 2)
    }

    @Test func wrongTypesRangesAndUnknownOptionsAreRefusedSayingWhatIsTaken() {
        for options: [String: DBusValue] in [
            ["batch": .uint32(0)], ["batch": .uint32(101)], ["batch": .int32(2)], ["batch": .string("2")],
            ["wait": .uint32(601)], ["wait": .int64(5)], ["secure_area": .string("hsm")],
            ["secure_area": .uint32(1)],
        ] {
            #expect(throws: HolderServiceError.self) { try Self.parse(options) }
        }
        do {
            _ = try Self.parse(["tx_code": .string("493817")])
            Issue.record("tx_code was taken as an option")
        } catch {
            #expect(error.name == "org.mdocholder.Error.InvalidArguments")
            #expect(error.description.contains("consent agent"))
            #expect(!error.description.contains("493817"))
        }
        #expect(throws: HolderServiceError.self) { try ReceiveOptions(.string("batch")) }
    }

    @Test func resumePendingTakesWaitOnly() throws {
        #expect(try ReceiveOptions(resuming: .properties([:])) == ReceiveOptions())
        #expect(try ReceiveOptions(resuming: .properties(["wait": .uint32(5)])).wait == 5)
        #expect(throws: HolderServiceError.self) { try ReceiveOptions(resuming: .properties(["wait": .uint32(601)])) }
        do {
            _ = try ReceiveOptions(resuming: .properties(["batch": .uint32(2)]))
            Issue.record("batch was taken by ResumePending")
        } catch {
            #expect(error.name == "org.mdocholder.Error.InvalidArguments")
            #expect(
                error.description
                    == "unknown option 'batch': ResumePending takes wait (the copies and keys were made when the offer was accepted)"
            )
        }
    }

    @Test func issuanceFailuresHaveTheirOwnErrorNames() {
        let oauth = OAuthErrorResponse(error: "invalid_grant", errorDescription: "the transaction code is wrong")
        let cases: [(CredentialIssuanceError, String)] = [
            (.protocolError(.invalidOffer("no credential_offer")), "InvalidArguments"),
            (.protocolError(.unsupported("format x")), "NotSupported"),
            (.protocolError(.invalidTransactionCode("must be digits only")), "TransactionCode"),
            (.transactionCodeUnavailable("the consent agent declined to give it"), "TransactionCode"),
            (.protocolError(.issuer(endpoint: "token endpoint", oauth)), "IssuerRefused"),
            (.protocolError(.invalidMetadata("no credential_endpoint")), "Issuer"),
            (.protocolError(.invalidResponse(endpoint: "credential endpoint", "no credentials")), "Issuer"),
            (.unexpectedStatus(what: "the token request", host: "issuer.example", status: 500), "Issuer"),
            (.exchange(what: "fetching the offer", .timedOut(host: "issuer.example", seconds: 30)), "Issuer"),
            (
                .refused(
                    docType: "org.iso.18013.5.1.mDL",
                    .issuerAuthenticationFailed(document: 0, docType: "org.iso.18013.5.1.mDL", failures: ["no chain"]),
                    notified: true),
                "CredentialRefused"
            ),
        ]
        for (error, suffix) in cases {
            let mapped = HolderServiceError(issuance: error)
            #expect(mapped.name == "org.mdocholder.Error." + suffix, "\(error)")
            #expect(mapped.description == error.description)
        }
        let wrongCode = HolderServiceError(issuance: .protocolError(.issuer(endpoint: "token endpoint", oauth)))
        #expect(wrongCode.description.contains("invalid_grant") && wrongCode.description.contains("check the code"))
    }
}
