import ArgumentParser
import ProjectVersion

@main
struct MdocIssuerCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mdoc-issuer",
        abstract: "A test issuer of ISO/IEC 18013-5 mdocs: makes a test PKI and issues credentials signed by it.",
        discussion: "Everything it makes is for tests only: private keys are written unencrypted.",
        version: projectVersion,
        subcommands: [
            PKICommand.self, IssueCommand.self, VerifyCommand.self, StatusSignerCommand.self, StatusListCommand.self,
        ])
}
