import HolderRuntime

extension HolderServiceError {
    /// The D-Bus error of a holder operation that could not run.
    init(_ error: HolderRuntimeError) {
        switch error {
        case .noCredential: self = .noCredential
        case .store(let text): self = .store(text)
        case .proximity(let text): self = .bluetooth(text)
        case .cancelled: self = .failed("the session was \(error)")
        }
    }
}
