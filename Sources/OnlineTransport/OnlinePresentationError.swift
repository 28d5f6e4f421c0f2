import Wallet

/// A failure that ends the flow without an outcome to report to the verifier: the network,
/// the verifier's request_uri endpoint, the credential store.
public enum OnlinePresentationError: Error, Sendable, CustomStringConvertible {
    /// Fetching the Request Object failed.
    case requestFetch(HTTPFetchError)
    /// The request_uri answered with an error status or with something that is not a Request Object.
    case requestURIAnswer(host: String, reason: String)
    /// The response could not be delivered to the verifier (the history says so).
    case responseDelivery(HTTPFetchError)
    /// The credential store could not be read.
    case store(WalletError)
    /// The HTTPS client could not be set up.
    case setup(HTTPFetchError)

    public var description: String {
        switch self {
        case .requestFetch(let e): return "could not fetch the request: \(e)"
        case .requestURIAnswer(let host, let reason): return "the request_uri of \(host) \(reason)"
        case .responseDelivery(let e): return "could not deliver the response: \(e)"
        case .store(let e): return "credential store: \(e)"
        case .setup(let e): return "HTTPS client: \(e)"
        }
    }
}
