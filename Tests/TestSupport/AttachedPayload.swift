import CBOR

/// What a replaying attacker sends: a COSE_Sign1 or COSE_Mac0 (`[protected, unprotected,
/// payload / nil, signature-or-tag]`) with `payload` put into its payload slot, headers and
/// signature or tag unchanged. Anything else comes back as it was.
public func attaching(_ payload: [UInt8], to cose: CBOR) -> CBOR {
    guard case .array(let parts) = cose, parts.count == 4 else { return cose }
    return .array([parts[0], parts[1], .bytes(payload), parts[3]])
}
