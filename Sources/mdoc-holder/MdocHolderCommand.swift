import ArgumentParser
import FoundationEssentials
import PrintableText
import ProjectVersion

struct MdocHolderCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mdoc-holder",
        abstract: "Presents ISO/IEC 18013-5 mdocs (mobile driving licences) from Linux.",
        version: projectVersion,
        subcommands: [
            EngagementCommand.self, PresentCommand.self, CredentialsCommand.self, KeysCommand.self, HistoryCommand.self,
            PresentOnlineCommand.self, ServeCommand.self,
        ])

    /// ArgumentParser's own `main`, except that an error a command throws is shown through
    /// ``RemoteText`` (its message may carry a reader's, an issuer's or a verifier's words):
    /// escaped, one line, bounded. Parsing errors, help, `ExitCode` and `ValidationError` are
    /// ArgumentParser's as before.
    static func main() async {
        let command: any ParsableCommand
        do {
            command = try await asyncParseAsRoot(nil)
        } catch {
            exit(withError: error)
        }
        do {
            if var asyncCommand = command as? AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                var command = command
                try command.run()
            }
        } catch {
            exit(after: error, of: command)
        }
    }

    /// `present` read by ``PresentCommandLine``, run as `main` runs a parsed command.
    static func main(present invocation: PresentInvocation) async {
        do {
            try await invocation.run()
        } catch {
            exit(after: error, of: nil)
        }
    }

    /// Exits as ArgumentParser does after `command` (nil: ours, read without it) threw
    /// `error`, our own errors shown through ``ShownError``.
    private static func exit(after error: any Error, of command: (any ParsableCommand)?) -> Never {
        switch error {
        case is ExitCode, is CleanExit, is ValidationError:
            exit(withError: error)
        case _ where command.map(isArgumentParserOwn) == true:
            // `--help` parses to ArgumentParser's own help command, whose run() throws the
            // request for ArgumentParser to print the help screen.
            exit(withError: error)
        default:
            exit(withError: ShownError(error))
        }
    }

    /// Whether the parsed command is one of ArgumentParser's built-in commands (help), not ours.
    private static func isArgumentParserOwn(_ command: any ParsableCommand) -> Bool {
        String(reflecting: type(of: command)).hasPrefix("ArgumentParser.")
    }
}

/// An error as the command line shows it: its message through ``RemoteText``.
struct ShownError: Error, CustomStringConvertible {
    let description: String

    init(_ error: any Error) {
        let message = (error as? LocalizedError)?.errorDescription ?? String(describing: error)
        description = RemoteText.printable(message, limit: WalletCLI.messageLimit)
    }
}
