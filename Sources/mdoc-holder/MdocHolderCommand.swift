import ArgumentParser

@main
struct MdocHolderCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mdoc-holder",
        abstract: "Presents ISO/IEC 18013-5 mdocs (mobile driving licences) from Linux.",
        subcommands: [
            EngagementCommand.self, PresentCommand.self, CredentialsCommand.self, KeysCommand.self, HistoryCommand.self,
            PresentOnlineCommand.self, ServeCommand.self,
        ])
}
