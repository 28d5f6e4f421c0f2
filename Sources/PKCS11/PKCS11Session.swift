internal import CPKCS11

/// One PKCS#11 session, closed on deinit. Use it from one thread at a time.
public final class PKCS11Session: @unchecked Sendable {
    let module: PKCS11Module
    let handle: CK_SESSION_HANDLE
    private var functions: CK_FUNCTION_LIST { module.functions.pointee }

    init(module: PKCS11Module, handle: CK_SESSION_HANDLE) {
        self.module = module
        self.handle = handle
    }

    deinit {
        _ = module.functions.pointee.C_CloseSession(handle)
    }

    /// A template attribute whose value bytes this builder owns until `withTemplate` returns.
    private final class Template {
        var values: [UnsafeMutableRawBufferPointer] = []
        var attributes: [CK_ATTRIBUTE] = []
        deinit { for v in values { v.deallocate() } }
        func add(_ type: CK_ULONG, bytes: [UInt8]) {
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: max(bytes.count, 1), alignment: 8)
            buffer.copyBytes(from: bytes)
            values.append(buffer)
            attributes.append(CK_ATTRIBUTE(type: type, pValue: buffer.baseAddress, ulValueLen: CK_ULONG(bytes.count)))
        }
        func add(_ type: CK_ULONG, bool: Bool) { add(type, bytes: [bool ? 1 : 0]) }
        func add(_ type: CK_ULONG, ulong: CK_ULONG) {
            add(type, bytes: withUnsafeBytes(of: ulong) { Array($0) })
        }
    }

    /// Generates an EC key pair on the token: private key sensitive, not extractable, for
    /// signing and ECDH. Returns the public point (uncompressed, 04 ‖ x ‖ y).
    ///
    /// - Parameter ecParams: DER of the curve's OID (CKA_EC_PARAMS).
    public func generateECKeyPair(ecParams: [UInt8], id: [UInt8], label: String) throws(PKCS11Error) -> [UInt8] {
        let publicTemplate = Template()
        publicTemplate.add(CK_ULONG(CKA_TOKEN), bool: true)
        publicTemplate.add(CK_ULONG(CKA_EC_PARAMS), bytes: ecParams)
        publicTemplate.add(CK_ULONG(CKA_VERIFY), bool: true)
        publicTemplate.add(CK_ULONG(CKA_ID), bytes: id)
        publicTemplate.add(CK_ULONG(CKA_LABEL), bytes: Array(label.utf8))
        let privateTemplate = Template()
        privateTemplate.add(CK_ULONG(CKA_TOKEN), bool: true)
        privateTemplate.add(CK_ULONG(CKA_PRIVATE), bool: true)
        privateTemplate.add(CK_ULONG(CKA_SENSITIVE), bool: true)
        privateTemplate.add(CK_ULONG(CKA_EXTRACTABLE), bool: false)
        privateTemplate.add(CK_ULONG(CKA_SIGN), bool: true)
        privateTemplate.add(CK_ULONG(CKA_DERIVE), bool: true)
        privateTemplate.add(CK_ULONG(CKA_ID), bytes: id)
        privateTemplate.add(CK_ULONG(CKA_LABEL), bytes: Array(label.utf8))
        var mechanism = CK_MECHANISM(
            mechanism: CK_MECHANISM_TYPE(CKM_EC_KEY_PAIR_GEN), pParameter: nil, ulParameterLen: 0)
        var publicKey: CK_OBJECT_HANDLE = 0
        var privateKey: CK_OBJECT_HANDLE = 0
        let rv = publicTemplate.attributes.withUnsafeMutableBufferPointer { pub in
            privateTemplate.attributes.withUnsafeMutableBufferPointer { priv in
                functions.C_GenerateKeyPair(
                    handle, &mechanism, pub.baseAddress, CK_ULONG(pub.count), priv.baseAddress, CK_ULONG(priv.count),
                    &publicKey, &privateKey)
            }
        }
        try module.check("C_GenerateKeyPair", rv)
        let point = try attribute(CK_ULONG(CKA_EC_POINT), of: publicKey)
        // CKA_EC_POINT is a DER OCTET STRING around the point.
        guard point.count > 2, point[0] == 0x04 else { return point }
        if point[1] < 0x80 { return Array(point[2...]) }
        let lengthBytes = Int(point[1] & 0x7F)
        return Array(point[(2 + lengthBytes)...])
    }

    private func attribute(_ type: CK_ULONG, of object: CK_OBJECT_HANDLE) throws(PKCS11Error) -> [UInt8] {
        var template = CK_ATTRIBUTE(type: type, pValue: nil, ulValueLen: 0)
        try module.check("C_GetAttributeValue", functions.C_GetAttributeValue(handle, object, &template, 1))
        var value = [UInt8](repeating: 0, count: Int(template.ulValueLen))
        let rv = value.withUnsafeMutableBytes { buffer -> CK_RV in
            template.pValue = buffer.baseAddress
            return functions.C_GetAttributeValue(handle, object, &template, 1)
        }
        try module.check("C_GetAttributeValue", rv)
        return value
    }

    /// The objects of class `objectClass` (CKO_PRIVATE_KEY / CKO_PUBLIC_KEY) with CKA_ID `id`.
    public func objects(id: [UInt8], privateKeys: Bool) throws(PKCS11Error) -> [UInt] {
        let template = Template()
        template.add(CK_ULONG(CKA_CLASS), ulong: CK_ULONG(privateKeys ? CKO_PRIVATE_KEY : CKO_PUBLIC_KEY))
        template.add(CK_ULONG(CKA_ID), bytes: id)
        let rv = template.attributes.withUnsafeMutableBufferPointer {
            functions.C_FindObjectsInit(handle, $0.baseAddress, CK_ULONG($0.count))
        }
        try module.check("C_FindObjectsInit", rv)
        defer { _ = functions.C_FindObjectsFinal(handle) }
        var found = [CK_OBJECT_HANDLE](repeating: 0, count: 8)
        var count: CK_ULONG = 0
        try module.check("C_FindObjects", functions.C_FindObjects(handle, &found, CK_ULONG(found.count), &count))
        return found.prefix(Int(count)).map { UInt($0) }
    }

    /// ECDSA over `digest` (CKM_ECDSA: the caller hashes): raw r ‖ s.
    public func signECDSA(digest: [UInt8], key: UInt) throws(PKCS11Error) -> [UInt8] {
        var mechanism = CK_MECHANISM(mechanism: CK_MECHANISM_TYPE(CKM_ECDSA), pParameter: nil, ulParameterLen: 0)
        try module.check("C_SignInit", functions.C_SignInit(handle, &mechanism, CK_OBJECT_HANDLE(key)))
        var input = digest
        var length: CK_ULONG = 0
        try module.check("C_Sign", functions.C_Sign(handle, &input, CK_ULONG(input.count), nil, &length))
        var signature = [UInt8](repeating: 0, count: Int(length))
        try module.check("C_Sign", functions.C_Sign(handle, &input, CK_ULONG(input.count), &signature, &length))
        return Array(signature.prefix(Int(length)))
    }

    /// ECDH with the peer's uncompressed point (CKM_ECDH1_DERIVE, no KDF): the shared x
    /// coordinate, `length` bytes. The derived session object is destroyed at once.
    public func deriveECDH(key: UInt, peerPoint: [UInt8], length: Int) throws(PKCS11Error) -> [UInt8] {
        var point = peerPoint
        let template = Template()
        template.add(CK_ULONG(CKA_CLASS), ulong: CK_ULONG(CKO_SECRET_KEY))
        template.add(CK_ULONG(CKA_KEY_TYPE), ulong: CK_ULONG(CKK_GENERIC_SECRET))
        template.add(CK_ULONG(CKA_TOKEN), bool: false)
        template.add(CK_ULONG(CKA_SENSITIVE), bool: false)
        template.add(CK_ULONG(CKA_EXTRACTABLE), bool: true)
        template.add(CK_ULONG(CKA_VALUE_LEN), ulong: CK_ULONG(length))
        var derived: CK_OBJECT_HANDLE = 0
        let rv = point.withUnsafeMutableBufferPointer { pointBuffer -> CK_RV in
            var parameters = CK_ECDH1_DERIVE_PARAMS(
                kdf: CK_ULONG(CKD_NULL), ulSharedDataLen: 0, pSharedData: nil,
                ulPublicDataLen: CK_ULONG(pointBuffer.count), pPublicData: pointBuffer.baseAddress)
            return withUnsafeMutablePointer(to: &parameters) { p in
                var mechanism = CK_MECHANISM(
                    mechanism: CK_MECHANISM_TYPE(CKM_ECDH1_DERIVE), pParameter: UnsafeMutableRawPointer(p),
                    ulParameterLen: CK_ULONG(MemoryLayout<CK_ECDH1_DERIVE_PARAMS>.size))
                return template.attributes.withUnsafeMutableBufferPointer {
                    functions.C_DeriveKey(
                        handle, &mechanism, CK_OBJECT_HANDLE(key), $0.baseAddress, CK_ULONG($0.count), &derived)
                }
            }
        }
        try module.check("C_DeriveKey", rv)
        defer { _ = functions.C_DestroyObject(handle, derived) }
        return try attribute(CK_ULONG(CKA_VALUE), of: derived)
    }

    /// Destroys an object.
    public func destroy(_ object: UInt) throws(PKCS11Error) {
        try module.check("C_DestroyObject", functions.C_DestroyObject(handle, CK_OBJECT_HANDLE(object)))
    }
}
