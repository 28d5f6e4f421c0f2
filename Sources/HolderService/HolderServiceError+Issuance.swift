import OnlineTransport
import OpenID4VCI
import Wallet

extension HolderServiceError {
    /// A failed `ReceiveCredential` as its caller sees it: the error name says what kind of
    /// failure (the offer, the transaction code, the issuer's refusal, the holder's checks),
    /// the message is the issuance's own (it names hosts, doc types and OAuth error codes,
    /// never a code, token, key or claim value).
    init(issuance error: CredentialIssuanceError) {
        let text = WalletError.withoutImportAdvice(error.description)
        switch error {
        case .protocolError(.invalidOffer): self = .invalidArguments(text)
        case .protocolError(.unsupported): self = .notSupported(text)
        case .protocolError(.invalidTransactionCode), .transactionCodeUnavailable: self = .transactionCode(text)
        case .protocolError(.issuer): self = .issuerRefused(text)
        case .protocolError(.invalidMetadata), .protocolError(.invalidResponse), .exchange, .unexpectedStatus:
            self = .issuer(text)
        case .refused: self = .credentialRefused(text)
        case .store: self = .store(text)
        case .setup, .secureArea: self = .failed(text)
        }
    }
}
