/// Where an option's effective value came from.
public enum ValueSource: String, Sendable {
    case commandLine = "command line"
    case environment
    case defaultValue = "default"
}

extension ParsedCommandLine {
    /// The name of the environment variable for option `name`: `--max-sessions` →
    /// `LEGIBLE_MAX_SESSIONS` with prefix `LEGIBLE_`.
    public static func environmentName(of name: String, prefix: String) -> String {
        prefix + name.uppercased().map { $0 == "-" ? "_" : $0 }.map(String.init).joined()
    }

    /// Takes every option of `command` not given on the command line from the environment
    /// (`PREFIX_NAME`), so that each flag can also be set by a variable, the command line
    /// winning. A repeatable option's variable holds its values separated by spaces or commas;
    /// a flag's variable is 1/true/yes or 0/false/no.
    ///
    /// - Throws: `.usage` naming the variable when a flag's value is none of those.
    public func mergingEnvironment(
        _ environment: [String: String], prefix: String, options: [Option]
    ) throws(CommandLineError) -> ParsedCommandLine {
        var merged = self
        for option in options where !isSet(option.name) {
            let variable = Self.environmentName(of: option.name, prefix: prefix)
            guard let text = environment[variable] else { continue }
            if option.valueName == nil {
                switch text.lowercased() {
                case "1", "true", "yes", "on": merged.setFromEnvironment(option.name, [""])
                case "0", "false", "no", "off", "": continue
                default:
                    throw .usage("\(variable) takes 1 or 0 (true or false), not '\(text)'", commandPath: commandPath)
                }
            } else if option.repeatable {
                let parts = text.split(whereSeparator: { $0 == "," || $0.isWhitespace }).map(String.init)
                if !parts.isEmpty { merged.setFromEnvironment(option.name, parts) }
            } else {
                merged.setFromEnvironment(option.name, [text])
            }
        }
        return merged
    }

    /// Where the effective value of `name` came from.
    public func source(of name: String) -> ValueSource {
        if fromEnvironment.contains(name) { return .environment }
        return isSet(name) ? .commandLine : .defaultValue
    }
}
