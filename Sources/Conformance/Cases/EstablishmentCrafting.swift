import CBOR
import COSE
import ISO18013
import MdocCrypto
import Presentation

/// SessionEstablishment messages with one thing wrong, built from a correct one.
enum EstablishmentCrafting {
    /// The correct SessionEstablishment of `session` for `request`.
    static func correct(_ session: inout ReaderSession, _ request: DeviceRequest) throws -> SessionEstablishment {
        try SessionEstablishment(bytes: session.establishment(for: request))
    }

    /// `establishment` with its ciphertext changed by `damage`.
    static func damagedData(_ establishment: SessionEstablishment, _ damage: ([UInt8]) -> [UInt8]) -> [UInt8] {
        SessionEstablishment(eReaderKey: establishment.eReaderKey, data: damage(establishment.data)).encoded
    }

    /// `establishment` with its eReaderKey's COSE_Key map changed by `mutate` (then tagged 24
    /// unless `tagged` is false).
    static func damagedKey(
        _ establishment: SessionEstablishment, tagged: Bool = true, _ mutate: (inout [CBORMapEntry]) -> Void = { _ in }
    ) -> [UInt8] {
        var entries = establishment.eReaderKey.cbor.mapEntries ?? []
        mutate(&entries)
        let key = CBOR.map(entries)
        return raw(key: tagged ? .embedded(EmbeddedCBOR(key)) : key, data: establishment.data)
    }

    /// `establishment` whose eReaderKey is `key` (another key than the one that encrypted).
    static func replacedKey(_ establishment: SessionEstablishment, with key: PublicKey) -> [UInt8] {
        SessionEstablishment(eReaderKey: COSEKey(key), data: establishment.data).encoded
    }

    static func raw(key: CBOR, data: [UInt8]) -> [UInt8] {
        CBOR.map([CBORMapEntry("eReaderKey", key), CBORMapEntry("data", .bytes(data))]).encoded()
    }
}

extension [CBORMapEntry] {
    /// Sets (or with nil removes) the entry of integer label `label`.
    mutating func set(_ label: Int, _ value: CBOR?) {
        let key = CBOR.int(label)
        if let index = firstIndex(where: { $0.key == key }) {
            if let value { self[index].value = value } else { remove(at: index) }
        } else if let value {
            append(CBORMapEntry(key, value))
        }
    }
}
