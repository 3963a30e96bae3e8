#if canImport(Glibc)
    internal import Glibc
#endif

/// Writes to standard output or error through the file descriptors (Glibc's `stdout` and
/// `stderr` globals are not concurrency-safe under Swift 6).
public enum StandardStream: Int32, Sendable {
    case output = 1
    case error = 2

    public func write(_ text: String) {
        var bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeMutableBytes { buffer in
                Glibc.write(rawValue, buffer.baseAddress! + offset, buffer.count - offset)
            }
            if written < 0 {
                if errno == EINTR { continue }
                return
            }
            offset += written
        }
        bytes.removeAll()
    }

    /// True when the stream is a terminal.
    public var isTerminal: Bool { isatty(rawValue) == 1 }
}

/// Exit codes shared by Legible's programs (sysexits where one fits).
public enum ExitCode: Int32, Sendable {
    case success = 0
    case failure = 1
    case unavailable = 2
    case usage = 64
}

extension Command {
    /// Parses `CommandLine.arguments`; prints help and exits 0 for `--help`, prints the error
    /// and exits 64 for bad usage.
    public func parseOrExit(_ arguments: [String] = Array(CommandLine.arguments.dropFirst())) -> ParsedCommandLine {
        do {
            return try parse(arguments)
        } catch {
            switch error {
            case .helpRequested(let path):
                StandardStream.output.write(command(at: path).helpText(commandPath: path))
                exit(ExitCode.success.rawValue)
            case .usage(let message, let path):
                StandardStream.error.write(
                    "Error: \(message)\nUsage: \(path.joined(separator: " ")) \(command(at: path).usageLine)\n"
                        + "  See '\(path.joined(separator: " ")) --help' for more information.\n")
                exit(ExitCode.usage.rawValue)
            }
        }
    }
}

/// Prints `message` as a one-line error and exits with `code`.
public func fail(_ message: String, code: ExitCode) -> Never {
    StandardStream.error.write("Error: \(message)\n")
    exit(code.rawValue)
}
