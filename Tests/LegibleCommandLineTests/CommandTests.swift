import Testing

@testable import LegibleCommandLine

@Suite("Command-line parsing")
struct CommandTests {
    let tool = Command(
        name: "tool", abstract: "Does things.",
        subcommands: [
            Command(
                name: "run", abstract: "Runs.",
                options: [
                    .value("listen", valueName: "address", help: "Where.", default: "unix:x.sock", repeatable: true),
                    .value("workers", short: "w", valueName: "n", help: "How many."),
                    .flag("verbose", short: "v", help: "Say more."),
                ],
                arguments: [Argument("file", help: "Files.", variadic: true)])
        ])

    @Test func valuesFlagsAndPositionals() throws {
        let parsed = try tool.parse(["run", "--listen", "tcp:1:2", "--listen=unix:y", "-w", "3", "-v", "a", "--", "-b"])
        #expect(parsed.commandPath == ["tool", "run"])
        #expect(parsed.values("listen") == ["tcp:1:2", "unix:y"])
        #expect(try parsed.integer("workers") == 3)
        #expect(parsed.flag("verbose"))
        #expect(parsed.positionals == ["a", "-b"])
    }

    @Test func defaultsApplyWhenAbsent() throws {
        let parsed = try tool.parse(["run", "f"])
        #expect(parsed.values("listen") == ["unix:x.sock"])
        #expect(!parsed.isSet("listen"))
        #expect(try parsed.integer("workers") == nil)
        #expect(!parsed.flag("verbose"))
    }

    @Test(arguments: [
        ["run", "--nope", "f"], ["run", "--workers"], ["run"], ["walk"], [], ["run", "-w", "1", "-w", "2", "f"],
        ["run", "--verbose=yes", "f"],
    ])
    func badUsage(arguments: [String]) {
        #expect(throws: CommandLineError.self) { try tool.parse(arguments) }
    }

    @Test func badIntegerNamesTheOption() throws {
        let parsed = try tool.parse(["run", "-w", "many", "f"])
        #expect(
            throws: CommandLineError.usage(
                "--workers takes a whole number at least 1, not 'many'", commandPath: ["tool", "run"])
        ) {
            try parsed.integer("workers", in: 1...Int.max)
        }
    }

    @Test func helpAnywhere() {
        #expect(throws: CommandLineError.helpRequested(commandPath: ["tool"])) { try tool.parse(["--help"]) }
        #expect(throws: CommandLineError.helpRequested(commandPath: ["tool", "run"])) { try tool.parse(["run", "-h"]) }
        #expect(throws: CommandLineError.helpRequested(commandPath: ["tool", "run"])) {
            try tool.parse(["help", "run"])
        }
    }

    @Test func helpTextListsEveryOptionWithDefaults() {
        let run = tool.command(at: ["tool", "run"])
        let help = run.helpText(commandPath: ["tool", "run"])
        #expect(help.hasPrefix("OVERVIEW: Runs.\n"))
        #expect(help.contains("USAGE: tool run [--listen <address> ...] [--workers <n>] [--verbose] <file> ..."))
        #expect(help.contains("  --listen <address>        Where. (default: unix:x.sock)"))
        #expect(help.contains("  -w, --workers <n>         How many."))
        #expect(help.contains("  -h, --help                Show help information."))
        #expect(tool.helpText().contains("SUBCOMMANDS:\n  run"))
    }

    @Test func exitCodesAndTitledGroupsHaveTheirOwnSections() {
        let command = Command(
            name: "go", abstract: "Goes.",
            options: [.flag("fast", help: "Quickly.")]
                + Option.group("Tuning options", [.value("gear", valueName: "n", help: "Which gear.")]),
            exitCodes: [ExitCodeHelp(0, "Arrived."), ExitCodeHelp(64, "Bad usage.")])
        let help = command.helpText()
        #expect(help.contains("\nOPTIONS:\n  --fast                    Quickly.\n  -h, --help"))
        #expect(help.contains("\nTUNING OPTIONS:\n  --gear <n>                Which gear.\n"))
        #expect(
            help.hasSuffix(
                "\nEXIT CODES:\n  0                         Arrived.\n  64                        Bad usage.\n"))
        let sections = help.split(separator: "\n").filter { $0.hasSuffix(":") && !$0.hasPrefix(" ") }
        #expect(sections == ["OPTIONS:", "TUNING OPTIONS:", "EXIT CODES:"])
        #expect(throws: Never.self) { try command.parse(["--gear", "3"]) }
    }

    @Test func manyOptionsCollapseInTheUsageLine() {
        let many = (1...13).map { Option.flag("f\($0)", help: "Flag \($0).") }
        let command = Command(
            name: "big", abstract: "Big.", options: many, arguments: [Argument("file", help: "F.", variadic: true)])
        #expect(command.usageLine == "[<options>] <file> ...")
        let few = Command(name: "small", abstract: "Small.", options: Array(many.prefix(12)))
        #expect(few.usageLine.hasPrefix("[--f1] [--f2]"))
    }

    @Test func longDiscussionIsWrappedAt80Columns() {
        let command = Command(
            name: "w", abstract: "Wraps.",
            discussion: String(repeating: "word ", count: 40)
                + "\nstill the first paragraph.\n\nNext paragraph.\n\nEXAMPLE:\n  w --keep   this line as written")
        let lines = command.helpText().split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.allSatisfy { $0.count <= 80 })
        #expect(lines.contains("Next paragraph."))
        // Prose lines of one paragraph are joined before wrapping; indented lines are kept.
        #expect(lines.contains { $0.hasSuffix("word still the first paragraph.") })
        #expect(lines.contains("  w --keep   this line as written"))
    }
}
