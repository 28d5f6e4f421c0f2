internal import COpenSSL
import Dispatch

/// OpenSSL made ready ahead, on a thread of its own: its configuration file read, the default
/// provider loaded and the P-256 key generation fetched once (a throwaway key), while the
/// process does other work (a command line parsed, a store opened). A program whose first
/// visible output needs a key (an engagement's QR code) calls ``start()`` as early as it can.
///
/// OpenSSL is initialised without its exit handler (`OPENSSL_INIT_NO_ATEXIT`): a process that
/// exits (an argument error, `--help`) while the thread is still at work would otherwise free
/// OpenSSL's state under it. Nothing is lost: the operating system takes the memory back at
/// exit, and no key material lives in that state.
public enum EarlyInitialisation {
    public static func start() {
        // Here, before any other OpenSSL call of the process can register the exit handler
        // (the base initialisation only: quick); the rest on the thread.
        guard OPENSSL_init_crypto(UInt64(OPENSSL_INIT_NO_ATEXIT), nil) == 1 else { return }
        DispatchQueue(label: "mdoc-holder-openssl-init").async {
            guard OPENSSL_init_crypto(UInt64(OPENSSL_INIT_LOAD_CONFIG), nil) == 1 else { return }
            _ = try? PrivateKey.generate(.p256)
        }
    }
}
