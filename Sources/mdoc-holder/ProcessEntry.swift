import DBus
import Glibc
import MdocCrypto
import SQLite

/// The process's entry: the command runs as a task on the cooperative pool while the main thread
/// waits here for the process to end. An `async` `main` would instead leave the main thread
/// through `dispatch_main`, whose `pthread_exit` unwinds the main thread's stack through the
/// unwind tables (0.5–0.9 MB of them resident for the rest of a service's life, for nothing).
/// Nothing in mdoc-holder runs on the main actor, so no work waits for the main queue.
@main
enum ProcessEntry {
    static func main() {
        if CommandLine.arguments.dropFirst().first == "present" {
            // The libraries the store and BlueZ need first after parsing, loaded here while the
            // process has one thread, as when they were linked. Loaded on another thread while
            // the command line is parsed, they brought the QR code no sooner (the two cores are
            // busy, and their mprotect calls interrupt the other one: docs/benchmarks.md, "The
            // sixteenth session"). Other commands load them when first used, or never.
            SQLiteLibrary.preload()
            DBusLibrary.preload()
            // `present` shows an engagement, whose key needs OpenSSL ready: made ready on
            // another core while the command line is parsed (``EarlyInitialisation``). An empty
            // task makes Dispatch start the cooperative pool's second thread now, so the BlueZ
            // connection `present` starts after parsing finds it running (0.3 ms sooner to the
            // QR code, `Tests/Support/idle-bench.sh`, 40 interleaved rounds).
            EarlyInitialisation.start()
            Task.detached {}
            // The usual command lines without ArgumentParser's first parse, 3 ms of reflection
            // (``PresentCommandLine``); any other, help and errors included, is ArgumentParser's.
            if let invocation = PresentCommandLine.parse(CommandLine.arguments.dropFirst(2)) {
                Task.detached {
                    await MdocHolderCommand.main(present: invocation)
                    exit(0)
                }
                while true { pause() }
            }
        }
        Task.detached {
            await MdocHolderCommand.main()
            exit(0)
        }
        while true { pause() }
    }
}
