import CBOR
import ISO18013
import MdocCrypto

/// Session establishment and encryption failures (mDL_SM_SEnc_SEst_UF_NN): an EReaderKey the
/// holder cannot use, or data that does not decrypt, gets SessionData status 10 and no data;
/// an EReaderKeyBytes that is not a tagged COSE_Key gets status 11.
enum SessionEstablishmentCases {
    static let all = [pointNotOnCurve, otherCurve, flippedTag, truncated, noKeyType, untaggedKey]

    static let reference =
        "ISO/IEC 18013-5 9.1.1.4 (status 10: session encryption error, 11: CBOR decoding error), "
        + "9.1.1.5 (session encryption); TS 18013-6 mdoc session establishment test cases"

    static func statusCase(
        _ number: String, _ title: String, expecting status: UInt64,
        craft: @escaping @Sendable (SessionEstablishment) throws -> [UInt8]
    ) -> ConformanceCase {
        ConformanceCase(
            id: "mDL_SM_SEnc_SEst_UF_\(number)", title: title,
            expectation: "SessionData status \(status) without data, nothing further", reference: reference
        ) { context throws(CaseStop) in
            let exchange = try await context.firstMessage("SessionEstablishment (\(title))", watchAfterwards: true) {
                session in
                try craft(EstablishmentCrafting.correct(&session, context.wellFormedRequest(session)))
            }
            return try context.expectStatus(exchange, [status])
        }
    }

    static let pointNotOnCurve = statusCase("01", "an EReaderKey whose point is not on its curve", expecting: 10) {
        EstablishmentCrafting.damagedKey($0) { key in
            let size = key.first { $0.key == .int(-2) }?.value.bytesValue?.count ?? 32
            key.set(-2, .bytes([UInt8](repeating: 0, count: size)))
            key.set(-3, .bytes([UInt8](repeating: 0, count: size)))
        }
    }

    static let otherCurve = statusCase("02", "an EReaderKey on another curve than EDeviceKey", expecting: 10) {
        establishment in
        let other: Curve = establishment.eReaderKey.curve == .p384 ? .p256 : .p384
        return EstablishmentCrafting.replacedKey(establishment, with: try PrivateKey.generate(other).publicKey)
    }

    static let flippedTag = statusCase("03", "a ciphertext whose last byte (the GCM tag) is flipped", expecting: 10) {
        EstablishmentCrafting.damagedData($0) { data in data.dropLast() + [(data.last ?? 0) ^ 0x01] }
    }

    static let truncated = statusCase("04", "a ciphertext cut short by 4 bytes", expecting: 10) {
        EstablishmentCrafting.damagedData($0) { Array($0.dropLast(4)) }
    }

    static let noKeyType = statusCase("06", "an EReaderKey without kty (label 1)", expecting: 10) {
        EstablishmentCrafting.damagedKey($0) { $0.set(1, nil) }
    }

    static let untaggedKey = statusCase("10", "eReaderKey as a plain COSE_Key map, not tag 24", expecting: 11) {
        EstablishmentCrafting.damagedKey($0, tagged: false)
    }
}
