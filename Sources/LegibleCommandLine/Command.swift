/// A small command-line parser in the spirit of swift-argument-parser: a command declares its
/// options and arguments once, and both parsing and the `--help` text come from that one
/// declaration, so the help can never drift from what is accepted.
public struct Command: Sendable {
    public var name: String
    public var abstract: String
    public var discussion: String
    public var options: [Option]
    public var arguments: [Argument]
    public var subcommands: [Command]
    /// The exit statuses the command documents, listed under EXIT CODES in its help.
    public var exitCodes: [ExitCodeHelp]

    public init(
        name: String, abstract: String, discussion: String = "", options: [Option] = [], arguments: [Argument] = [],
        subcommands: [Command] = [], exitCodes: [ExitCodeHelp] = []
    ) {
        self.name = name
        self.abstract = abstract
        self.discussion = discussion
        self.options = options
        self.arguments = arguments
        self.subcommands = subcommands
        self.exitCodes = exitCodes
    }
}

/// One row of a command's EXIT CODES help section.
public struct ExitCodeHelp: Sendable {
    public var code: Int32
    public var meaning: String

    public init(_ code: Int32, _ meaning: String) {
        self.code = code
        self.meaning = meaning
    }
}

/// A named option: `--name VALUE`, `--name=VALUE`, or a flag without a value.
public struct Option: Sendable {
    public var name: String
    public var short: Character?
    /// nil for a flag.
    public var valueName: String?
    public var help: String
    public var defaultValue: String?
    public var repeatable: Bool
    /// The help section the option is listed in (swift-argument-parser's `OptionGroup(title:)`);
    /// nil lists it under OPTIONS.
    public var group: String?

    /// An option that takes a value.
    public static func value(
        _ name: String, short: Character? = nil, valueName: String, help: String, default defaultValue: String? = nil,
        repeatable: Bool = false
    ) -> Option {
        Option(
            name: name, short: short, valueName: valueName, help: help, defaultValue: defaultValue,
            repeatable: repeatable,
            group: nil)
    }

    /// A flag: present or not.
    public static func flag(_ name: String, short: Character? = nil, help: String) -> Option {
        Option(name: name, short: short, valueName: nil, help: help, defaultValue: nil, repeatable: false, group: nil)
    }

    /// `options`, listed in the help under their own section titled `title`.
    public static func group(_ title: String, _ options: [Option]) -> [Option] {
        options.map { option in
            var option = option
            option.group = title
            return option
        }
    }
}

/// A positional argument.
public struct Argument: Sendable {
    public var name: String
    public var help: String
    public var isOptional: Bool
    public var isVariadic: Bool

    public init(_ name: String, help: String, optional: Bool = false, variadic: Bool = false) {
        self.name = name
        self.help = help
        self.isOptional = optional
        self.isVariadic = variadic
    }
}

/// Why parsing stopped.
public enum CommandLineError: Error, Sendable, Equatable {
    /// `-h`/`--help`: print `Command.helpText` of the named command path and exit 0.
    case helpRequested(commandPath: [String])
    /// Bad usage: print the message and a hint, exit 64 (EX_USAGE).
    case usage(String, commandPath: [String])
}

/// What the command line said.
public struct ParsedCommandLine: Sendable {
    /// The command names from the root to the one chosen, e.g. ["legible", "recognize"].
    public var commandPath: [String]
    public var positionals: [String]
    private var values: [String: [String]]
    private var defaults: [String: String]
    /// Options whose values came from the environment (see `mergingEnvironment`).
    private(set) var fromEnvironment: Set<String> = []

    mutating func setFromEnvironment(_ name: String, _ newValues: [String]) {
        values[name] = newValues
        fromEnvironment.insert(name)
    }

    init(commandPath: [String], positionals: [String], values: [String: [String]], defaults: [String: String]) {
        self.commandPath = commandPath
        self.positionals = positionals
        self.values = values
        self.defaults = defaults
    }

    /// The last value given for `name`, else its declared default.
    public func value(_ name: String) -> String? { values[name]?.last ?? defaults[name] }
    /// Every value given for a repeatable option (the default only when none was given).
    public func values(_ name: String) -> [String] { values[name] ?? defaults[name].map { [$0] } ?? [] }
    public func flag(_ name: String) -> Bool { values[name] != nil }
    /// True when the user gave `name` on the command line.
    public func isSet(_ name: String) -> Bool { values[name] != nil }

    /// An integer option within `range`; a bad value is a usage error naming the option.
    public func integer(_ name: String, in range: ClosedRange<Int> = 0...Int.max) throws(CommandLineError) -> Int? {
        guard let text = value(name) else { return nil }
        guard let number = Int(text), range.contains(number) else {
            let bounds =
                range.upperBound == Int.max
                ? "at least \(range.lowerBound)" : "\(range.lowerBound)...\(range.upperBound)"
            throw .usage("--\(name) takes a whole number \(bounds), not '\(text)'", commandPath: commandPath)
        }
        return number
    }

    /// A value that must be one of `choices`.
    public func choice(_ name: String, from choices: [String]) throws(CommandLineError) -> String? {
        guard let text = value(name) else { return nil }
        guard choices.contains(text) else {
            throw .usage(
                "--\(name) takes one of \(choices.joined(separator: ", ")), not '\(text)'", commandPath: commandPath)
        }
        return text
    }
}

extension Command {
    static let helpOption = Option.flag("help", short: "h", help: "Show help information.")

    /// Parses `arguments` (without the program name).
    public func parse(_ arguments: [String]) throws(CommandLineError) -> ParsedCommandLine {
        try parse(arguments[...], path: [name])
    }

    private func parse(_ arguments: ArraySlice<String>, path: [String]) throws(CommandLineError) -> ParsedCommandLine {
        if !subcommands.isEmpty {
            guard let first = arguments.first else { throw .usage("missing subcommand", commandPath: path) }
            if first == "-h" || first == "--help" { throw .helpRequested(commandPath: path) }
            if first == "help" {
                let target = arguments.dropFirst().first.flatMap { name in subcommands.first { $0.name == name } }
                throw .helpRequested(commandPath: path + (target.map { [$0.name] } ?? []))
            }
            guard let sub = subcommands.first(where: { $0.name == first }) else {
                throw .usage("unknown subcommand '\(first)'", commandPath: path)
            }
            return try sub.parse(arguments.dropFirst(), path: path + [sub.name])
        }
        var values: [String: [String]] = [:]
        var positionals: [String] = []
        var index = arguments.startIndex
        var onlyPositionals = false
        while index < arguments.endIndex {
            let word = arguments[index]
            index += 1
            if onlyPositionals || word == "-" || !word.hasPrefix("-") {
                positionals.append(word)
                continue
            }
            if word == "--" {
                onlyPositionals = true
                continue
            }
            var name: String
            var inlineValue: String?
            if word.hasPrefix("--") {
                name = String(word.dropFirst(2))
                if let equals = name.firstIndex(of: "=") {
                    inlineValue = String(name[name.index(after: equals)...])
                    name = String(name[..<equals])
                }
            } else {
                guard word.count == 2,
                    let option = (options + [Command.helpOption]).first(where: { $0.short == word.last })
                else { throw .usage("unknown option '\(word)'", commandPath: path) }
                name = option.name
            }
            if name == "help" { throw .helpRequested(commandPath: path) }
            guard let option = options.first(where: { $0.name == name }) else {
                throw .usage("unknown option '--\(name)'", commandPath: path)
            }
            if option.valueName == nil {
                guard inlineValue == nil else { throw .usage("--\(name) takes no value", commandPath: path) }
                values[name, default: []].append("")
                continue
            }
            let value: String
            if let inlineValue {
                value = inlineValue
            } else {
                guard index < arguments.endIndex else {
                    throw .usage("--\(name) needs a value <\(option.valueName!)>", commandPath: path)
                }
                value = arguments[index]
                index += 1
            }
            if !option.repeatable && values[name] != nil {
                throw .usage("--\(name) was given more than once", commandPath: path)
            }
            values[name, default: []].append(value)
        }
        try checkPositionals(positionals, path: path)
        var defaults: [String: String] = [:]
        for option in options { if let value = option.defaultValue { defaults[option.name] = value } }
        return ParsedCommandLine(commandPath: path, positionals: positionals, values: values, defaults: defaults)
    }

    private func checkPositionals(_ positionals: [String], path: [String]) throws(CommandLineError) {
        let required = arguments.filter { !$0.isOptional }.count
        if positionals.count < required {
            let missing = arguments[positionals.count].name
            throw .usage("missing argument <\(missing)>", commandPath: path)
        }
        if !(arguments.last?.isVariadic ?? false) && positionals.count > arguments.count {
            throw .usage("unexpected argument '\(positionals[arguments.count])'", commandPath: path)
        }
    }

    /// The command at `path` (as in `CommandLineError`), starting with this command's name.
    public func command(at path: [String]) -> Command {
        var command = self
        for name in path.dropFirst() {
            guard let sub = command.subcommands.first(where: { $0.name == name }) else { break }
            command = sub
        }
        return command
    }

    /// The `--help` text, laid out as swift-argument-parser lays it out.
    public func helpText(commandPath: [String]? = nil) -> String {
        let path = commandPath ?? [name]
        var out = Command.wrap("OVERVIEW: \(abstract)", indent: 0) + "\n"
        if !discussion.isEmpty { out += "\n" + Command.reflow(discussion) + "\n" }
        out += "\nUSAGE: \(path.joined(separator: " ")) \(usageLine)\n"
        if !arguments.isEmpty {
            out += "\nARGUMENTS:\n"
            for argument in arguments { out += Command.row("<\(argument.name)>", argument.help) }
        }
        if !subcommands.isEmpty {
            out += "\nSUBCOMMANDS:\n"
            for sub in subcommands { out += Command.row(sub.name, sub.abstract) }
            out += "\n  See '\(path.joined(separator: " ")) help <subcommand>' for detailed help.\n"
        }
        // The untitled options under OPTIONS, then each titled group in declaration order.
        out += "\nOPTIONS:\n"
        for option in options.filter({ $0.group == nil }) + [Command.helpOption] { out += Command.row(option) }
        var titles: [String] = []
        for option in options { if let title = option.group, !titles.contains(title) { titles.append(title) } }
        for title in titles {
            out += "\n\(title.uppercased()):\n"
            for option in options where option.group == title { out += Command.row(option) }
        }
        if !exitCodes.isEmpty {
            out += "\nEXIT CODES:\n"
            for exitCode in exitCodes { out += Command.row(String(exitCode.code), exitCode.meaning) }
        }
        return out
    }

    /// Past this many options the usage line says `[<options>]` instead of listing each, as
    /// swift-argument-parser does.
    static let maxOptionsInUsage = 12

    var usageLine: String {
        if !subcommands.isEmpty { return "<subcommand>" }
        var parts: [String] = []
        if options.count > Command.maxOptionsInUsage {
            parts.append("[<options>]")
        } else {
            for option in options {
                var part = "--\(option.name)"
                if let valueName = option.valueName { part += " <\(valueName)>" }
                if option.repeatable { part += " ..." }
                parts.append("[\(part)]")
            }
        }
        for argument in arguments {
            var part = "<\(argument.name)>"
            if argument.isVariadic { part += " ..." }
            parts.append(argument.isOptional ? "[\(part)]" : part)
        }
        return parts.joined(separator: " ")
    }

    /// An option's help row: its spellings, value and help text with the default.
    static func row(_ option: Option) -> String {
        var left = option.short.map { "-\($0), " } ?? ""
        left += "--\(option.name)"
        if let valueName = option.valueName { left += " <\(valueName)>" }
        var help = option.help
        if let defaultValue = option.defaultValue { help += " (default: \(defaultValue))" }
        return row(left, help)
    }

    /// One help row: the left column padded to 26, the text wrapped at 80 columns.
    static func row(_ left: String, _ text: String) -> String {
        let indent = 28
        var line = "  " + left
        if line.count >= indent - 1 {
            line += "\n" + String(repeating: " ", count: indent)
        } else {
            line += String(repeating: " ", count: indent - line.count)
        }
        return line + wrap(text, indent: indent) + "\n"
    }

    /// Prose paragraphs (separated by blank lines) joined and wrapped at 80 columns; a paragraph
    /// with an indented line (examples, tables) keeps its lines as written.
    static func reflow(_ text: String) -> String {
        var paragraphs: [[Substring]] = [[]]
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.allSatisfy(\.isWhitespace) {
                if !paragraphs[paragraphs.count - 1].isEmpty { paragraphs.append([]) }
            } else {
                paragraphs[paragraphs.count - 1].append(line)
            }
        }
        return paragraphs.filter { !$0.isEmpty }.map { lines in
            if lines.contains(where: { $0.first?.isWhitespace == true }) {
                return lines.map { String($0) }.joined(separator: "\n")
            }
            return wrap(lines.joined(separator: " "), indent: 0)
        }.joined(separator: "\n\n")
    }

    /// `text` wrapped at 80 columns, continuation lines indented by `indent`; the first line
    /// is taken to start at column `indent`.
    static func wrap(_ text: String, indent: Int) -> String {
        var out = ""
        var column = indent
        var first = true
        for word in text.split(separator: " ") {
            if !first && column + 1 + word.count > 80 {
                out += "\n" + String(repeating: " ", count: indent)
                column = indent
            } else if !first {
                out += " "
                column += 1
            }
            out += word
            column += word.count
            first = false
        }
        return out
    }
}
