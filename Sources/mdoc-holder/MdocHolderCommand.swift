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
        } catch let error as ExitCode {
            exit(withError: error)
        } catch let error as CleanExit {
            exit(withError: error)
        } catch let error as ValidationError {
            exit(withError: error)
        } catch let error where isArgumentParserOwn(command) {
            // `--help` parses to ArgumentParser's own help command, whose run() throws the
            // request for ArgumentParser to print the help screen.
            exit(withError: error)
        } catch {
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
