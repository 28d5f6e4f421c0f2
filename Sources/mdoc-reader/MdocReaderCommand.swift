import ArgumentParser
import ProjectVersion

@main
struct MdocReaderCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mdoc-reader",
        abstract: "An ISO/IEC 18013-5 mdoc reader: verifies what holders present.",
        version: projectVersion,
        subcommands: [VerifyCommand.self, RequestCommand.self, ConformanceCommand.self, VICALCommand.self])
}
