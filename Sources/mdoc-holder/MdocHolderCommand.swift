import ArgumentParser

@main
struct MdocHolderCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mdoc-holder",
        abstract: "Presents ISO/IEC 18013-5 mdocs (mobile driving licences) from Linux.",
        subcommands: [EngagementCommand.self, CredentialsCommand.self, HistoryCommand.self])
}
