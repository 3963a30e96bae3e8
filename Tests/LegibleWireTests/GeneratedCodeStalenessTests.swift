import Foundation
import Testing

/// The checked-in protobuf-c code in `Sources/LegibleProtoC` must be what `protoc-c` makes of
/// `Protos/` today: this fails when the .proto changed without `scripts/generate-protos.sh`.
@Suite("Generated protobuf-c code")
struct GeneratedCodeStalenessTests {
    @Test func checkedInCodeMatchesProtos() throws {
        let script = RepositoryTool.root.appendingPathComponent("scripts/generate-protos.sh")
        guard FileManager.default.fileExists(atPath: script.path) else {
            Issue.record("\(script.path) is missing: it regenerates Sources/LegibleProtoC from Protos/")
            return
        }
        guard let protocC = RepositoryTool.find("protoc-c") else {
            Issue.record(
                "protoc-c is not on PATH, so the generated code cannot be checked: apt-get install protobuf-c-compiler")
            return
        }
        let run = try RepositoryTool.run("/bin/bash", [script.path, "--check"])
        #expect(
            run.status == 0,
            """
            scripts/generate-protos.sh --check (with \(protocC)) exited \(run.status): \
            Sources/LegibleProtoC is stale, run scripts/generate-protos.sh and commit the result.
            \(run.standardError)
            """)
    }
}

/// Runs the repository's tools from tests: the root from this file's path, executables from PATH.
enum RepositoryTool {
    /// The repository root: this file is `Tests/LegibleWireTests/<name>.swift`.
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// The full path of `name` on PATH, or nil.
    static func find(_ name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        for directory in path.split(separator: ":") {
            let candidate = "\(directory)/\(name)"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }

    struct Result {
        var status: Int32
        var standardOutput: Data
        var standardError: String
    }

    /// Runs `executable` in the repository root, feeding it `input`, and waits for it.
    ///
    /// Input and output are small here (a few KB), well within a pipe's buffer.
    static func run(_ executable: String, _ arguments: [String], input: [UInt8] = []) throws -> Result {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.currentDirectoryURL = root
        let stdin = Pipe()
        let stdout = Pipe()
        let stderr = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = stderr
        try process.run()
        stdin.fileHandleForWriting.write(Data(input))
        try stdin.fileHandleForWriting.close()
        let output = stdout.fileHandleForReading.readDataToEndOfFile()
        let errors = stderr.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Result(
            status: process.terminationStatus, standardOutput: output,
            standardError: String(decoding: errors, as: UTF8.self))
    }
}
