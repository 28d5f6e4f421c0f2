import CommandLineSupport
import Testing

/// `--consent`: each front-end a command allows, and the error naming exactly those.
struct ConsentChoiceTests {
    @Test("each allowed front-end is read, a policy with its path")
    func readsAllowed() throws {
        #expect(try ConsentChoice(parsing: "tty", allowed: [.tty, .policy]) == .tty)
        #expect(try ConsentChoice(parsing: "agent", allowed: [.agent, .policy]) == .agent)
        #expect(
            try ConsentChoice(parsing: "policy:/etc/k.toml", allowed: [.tty, .policy]) == .policy(path: "/etc/k.toml"))
    }

    @Test("anything else names the front-ends the command allows", arguments: ["", "agent", "policy:", "TTY", "tty "])
    func refusesOthers(text: String) {
        #expect {
            try ConsentChoice(parsing: text, allowed: [.tty, .policy])
        } throws: { error in
            "\(error)" == "--consent must be tty or policy:FILE"
        }
    }

    @Test("a command without the terminal says so")
    func refusesTerminalWhereNotAllowed() {
        #expect {
            try ConsentChoice(parsing: "tty", allowed: [.agent, .policy])
        } throws: { error in
            "\(error)" == "--consent must be agent or policy:FILE"
        }
    }
}
