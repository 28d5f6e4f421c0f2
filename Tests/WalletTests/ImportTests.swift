import CBOR
import Foundation
import ISO18013
import MdocCrypto
import TestSupport
import Testing

@testable import Wallet

/// Importing what issuers hand out, and every reason an import is refused.
struct ImportTests {
    let dir: TemporaryDirectory
    let store: CredentialStore
    let keyPEM: String
    let anchors: [Certificate]

    init() throws {
        dir = try TemporaryDirectory()
        store = try dir.store()
        keyPEM = try AnnexD.deviceKeyPEM()
        anchors = [try AnnexD.iaca()]
    }

    func importFile(
        _ bytes: [UInt8], key: String?? = .none, verifyIssuer: Bool = true, at: Date = AnnexD.inValidity,
        anchors: [Certificate]? = nil
    ) throws(WalletError) -> [String] {
        try store.import(
            fileBytes: bytes, deviceKeyPEM: key ?? keyPEM, trustAnchors: anchors ?? self.anchors,
            verifyIssuer: verifyIssuer, at: at)
    }

    // MARK: Shapes

    @Test func importsABareIssuerSignedKeepingItsBytes() throws {
        let ids = try importFile(AnnexD.issuerSigned)
        #expect(ids.count == 1)
        let id = ids[0]
        #expect(id.count == 16 && id.allSatisfy(\.isHexDigit))
        let stored = try store.credential(id: id)
        #expect(stored.docType == AnnexD.mDL)
        #expect(stored.issuerSignedBytes == AnnexD.issuerSigned)
    }

    @Test func importsADocumentWithDeviceSigned() throws {
        let ids = try importFile(try AnnexD.document().encoded())
        #expect(ids.count == 1)
        #expect(try store.credential(id: ids[0]).docType == AnnexD.mDL)
    }

    @Test func importsTheAnnexDDeviceResponse() throws {
        let ids = try importFile(AnnexD.deviceResponse)
        #expect(ids.count == 1)
    }

    @Test func importsAPymdoccborContainerWithoutDeviceSigned() throws {
        // {"version", "documents": [{"docType", "issuerSigned"}], "status"}: no deviceSigned,
        // which DeviceResponse(bytes:) would refuse.
        let file = try AnnexD.container([AnnexD.issuerSigned])
        #expect(throws: ISO18013Error.self) { try DeviceResponse(bytes: file) }
        let ids = try importFile(file)
        #expect(ids.count == 1)
    }

    @Test func importsHexText() throws {
        let hex = Array((AnnexD.issuerSigned.hex + "\n").utf8)
        let ids = try importFile(hex)
        #expect(try store.credential(id: ids[0]).issuerSignedBytes == AnnexD.issuerSigned)
    }

    @Test func reEncodingTheExtractedIssuerSignedKeepsItemAndMSOBytes() throws {
        // The issuerSigned value of a Document, re-encoded by our encoder, is byte for byte
        // the IssuerSigned as issued: tag-24 items and byte strings keep their bytes.
        let extracted = try #require(try AnnexD.document()["issuerSigned"])
        #expect(extracted.encoded() == AnnexD.issuerSigned)
        // And after a round trip through the store every digest and the signature still hold.
        let ids = try importFile(AnnexD.deviceResponse)
        let stored = try store.credential(id: ids[0])
        let result = IssuerDataAuthentication.verify(
            stored.issuerSigned, docType: AnnexD.mDL, trustAnchors: anchors, at: AnnexD.inValidity)
        #expect(result.isValid, "\(result.failures)")
        #expect(!result.elements.isEmpty)
        #expect(result.elements.allSatisfy { $0.digestMatches })
    }

    @Test func importsEveryDocumentOfAContainerInOrder() throws {
        let file = try AnnexD.container([AnnexD.issuerSigned, try AnnexD.partialIssuerSigned()])
        let ids = try importFile(file)
        #expect(ids.count == 2)
        #expect(Set(ids).count == 2)
        #expect(try store.list().map(\.id) == ids)
        let first = try store.credential(id: ids[0])
        let second = try store.credential(id: ids[1])
        #expect(first.issuerSignedBytes == AnnexD.issuerSigned)
        #expect(
            Set(second.elements) == ["org.iso.18013.5.1:family_name", "org.iso.18013.5.1:document_number"],
            "\(second.elements)")
    }

    // MARK: Refusals

    @Test func refusesATamperedElementNamingIt() throws {
        #expect {
            try importFile(try AnnexD.tamperedIssuerSigned())
        } throws: { error in
            guard case .issuerAuthenticationFailed(1, AnnexD.mDL, let failures) = error as? WalletError else {
                return false
            }
            return failures.contains { $0.contains("family_name") && $0.contains("digest") }
                && "\(error)".contains("altered")
        }
        #expect(try store.list().isEmpty)
    }

    @Test func refusesAnUntrustedIssuerAndSuggestsATrustAnchor() throws {
        #expect {
            try importFile(AnnexD.issuerSigned, anchors: [])
        } throws: { error in
            guard case .issuerAuthenticationFailed(_, _, let failures) = error as? WalletError else { return false }
            return failures.contains { $0.contains("not trusted") } && "\(error)".contains("--trust-anchor")
        }
    }

    @Test func refusesAnExpiredCredential() throws {
        #expect {
            try importFile(AnnexD.issuerSigned, at: AnnexD.afterExpiry)
        } throws: { error in
            guard case .expired(1, AnnexD.mDL, let until) = error as? WalletError else { return false }
            return until == RFC3339.date(from: "2021-10-01T13:30:02Z") && "\(error)".contains("2021-10-01T13:30:02Z")
        }
    }

    @Test func refusesACredentialNotValidYet() throws {
        #expect {
            try importFile(AnnexD.issuerSigned, at: AnnexD.beforeValidity)
        } throws: { error in
            if case .notYetValid(1, AnnexD.mDL, _) = error as? WalletError { return true }
            return false
        }
    }

    @Test func refusesADocTypeThatIsNotTheMSOs() throws {
        let file = try AnnexD.container([AnnexD.issuerSigned], docType: "org.example.other")
        #expect(
            throws: WalletError.docTypeMismatch(
                document: 1, documentDocType: "org.example.other", msoDocType: AnnexD.mDL)
        ) {
            try importFile(file)
        }
    }

    @Test func requiresADeviceKey() throws {
        #expect(throws: WalletError.deviceKeyMissing) { try importFile(AnnexD.issuerSigned, key: .some(nil)) }
        #expect("\(WalletError.deviceKeyMissing)".contains("--device-key"))
    }

    @Test func refusesAnUnreadableDeviceKey() throws {
        #expect {
            try importFile(
                AnnexD.issuerSigned, key: "-----BEGIN PRIVATE KEY-----\nnonsense\n-----END PRIVATE KEY-----\n")
        } throws: { error in
            guard case .deviceKeyUnreadable = error as? WalletError else { return false }
            return !"\(error)".contains("nonsense")
        }
    }

    @Test func refusesADeviceKeyThatIsNotTheMSOs() throws {
        let other = try PrivateKey.generate(.p256).pkcs8PEM()
        #expect {
            try importFile(AnnexD.issuerSigned, key: other)
        } throws: { error in
            guard case .deviceKeyMismatch(1, AnnexD.mDL) = error as? WalletError else { return false }
            // The key never appears in the message.
            return !"\(error)".contains("PRIVATE KEY") && !"\(error)".contains(String(other.dropFirst(28).prefix(20)))
        }
        #expect(try store.list().isEmpty)
    }

    @Test func refusesFilesWithNothingToImport() throws {
        #expect {
            try importFile([])
        } throws: { error in
            if case .unreadableFile = error as? WalletError { return true }
            return false
        }
        #expect {
            try importFile(Array("not an mdoc at all".utf8))
        } throws: { error in
            if case .unreadableFile = error as? WalletError { return true }
            return false
        }
        for value: CBOR in [["hello": 1], ["version": "1.0", "documents": [], "status": 0], 42] {
            #expect {
                try importFile(value.encoded())
            } throws: { error in
                if case .nothingToImport = error as? WalletError { return true }
                return false
            }
        }
        let notADocument: CBOR = ["version": "1.0", "documents": ["docType"], "status": 0]
        #expect(throws: WalletError.malformedDocument(document: 1, reason: "it is a CBOR text string, not a map")) {
            try importFile(notADocument.encoded())
        }
    }

    @Test func refusesAMalformedIssuerSigned() throws {
        let broken: CBOR = ["nameSpaces": [:], "issuerAuth": [1, 2]]
        #expect {
            try importFile(broken.encoded())
        } throws: { error in
            if case .malformedDocument(1, _) = error as? WalletError { return true }
            return false
        }
    }

    // MARK: One transaction

    @Test func aBadSecondDocumentStoresNothing() throws {
        let file = try AnnexD.container([AnnexD.issuerSigned, try AnnexD.tamperedIssuerSigned()])
        #expect {
            try importFile(file)
        } throws: { error in
            if case .issuerAuthenticationFailed(2, _, _) = error as? WalletError { return true }
            return false
        }
        #expect(try store.list().isEmpty)
    }

    @Test func aFailureInsideTheTransactionRollsBackEarlierInserts() throws {
        // Document 1 is new and passes every check; document 2 is already stored, which is
        // found only inside the transaction, after document 1 was inserted.
        let existing = try importFile(AnnexD.issuerSigned)
        let file = try AnnexD.container([try AnnexD.partialIssuerSigned(), AnnexD.issuerSigned])
        #expect(throws: WalletError.alreadyStored(document: 2, id: existing[0])) { try importFile(file) }
        #expect(try store.list().map(\.id) == existing)
    }

    @Test func refusesTheSameDocumentTwice() throws {
        let ids = try importFile(AnnexD.issuerSigned)
        #expect(throws: WalletError.alreadyStored(document: 1, id: ids[0])) { try importFile(AnnexD.deviceResponse) }
        let twice = try AnnexD.container([AnnexD.issuerSigned, AnnexD.issuerSigned])
        try store.delete(id: ids[0])
        #expect(throws: WalletError.duplicateDocument(document: 2, sameAs: 1)) { try importFile(twice) }
    }

    // MARK: Without issuer verification

    @Test func withoutIssuerVerificationOnlyTheIssuerChecksAreSkipped() throws {
        // No anchors, tampered digest: accepted when told not to verify the issuer...
        let ids = try importFile(try AnnexD.tamperedIssuerSigned(), verifyIssuer: false, anchors: [])
        #expect(ids.count == 1)
        // ...but the device key, the validity and the docType are still checked.
        let other = try PrivateKey.generate(.p256).pkcs8PEM()
        #expect(throws: WalletError.deviceKeyMismatch(document: 1, docType: AnnexD.mDL)) {
            try importFile(AnnexD.issuerSigned, key: other, verifyIssuer: false, anchors: [])
        }
        #expect {
            try importFile(AnnexD.issuerSigned, verifyIssuer: false, at: AnnexD.afterExpiry, anchors: [])
        } throws: { error in
            if case .expired = error as? WalletError { return true }
            return false
        }
    }
}
