import Foundation
import LegibleCore

/// One image named on the command line: a file, or `-` for standard input.
///
/// Inputs are checked before anything is sent (a file that cannot be read, or is no image
/// Leptonica reads by its first bytes, is a usage error naming it and the formats read), but
/// a file's bytes are read only when its turn comes, so a long list does not sit in memory.
struct InputImage {
    /// As given on the command line (`-` for standard input).
    var name: String
    var format: ImageFormat
    /// Standard input's bytes (read once, up front); nil for files.
    private var stdinData: [UInt8]?

    /// The name to print: `-` reads better as `(stdin)`.
    var displayName: String { name == "-" ? "(stdin)" : name }

    /// Checks `name` and learns its format from its magic bytes.
    init(_ name: String) throws(CLIFailure) {
        self.name = name
        let head: [UInt8]
        if name == "-" {
            let data = FileHandle.standardInput.readDataToEndOfFile()
            stdinData = Array(data)
            head = Array(data.prefix(16))
        } else {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: name, isDirectory: &isDirectory), isDirectory.boolValue {
                throw .input("\(name): is a folder, not an image")
            }
            guard let handle = FileHandle(forReadingAtPath: name) else {
                throw .input("\(name): cannot read the file")
            }
            defer { try? handle.close() }
            head = Array((try? handle.read(upToCount: 16)) ?? Data())
        }
        guard let format = ImageFormat(head: head) else {
            throw .input(
                "\(name == "-" ? "standard input" : name): not an image (by its first bytes); legible reads "
                    + ImageFormat.acceptedList)
        }
        self.format = format
    }

    /// The image's bytes.
    func read() throws(CLIFailure) -> [UInt8] {
        if let stdinData { return stdinData }
        guard let data = FileManager.default.contents(atPath: name) else {
            throw CLIFailure(.failure, "\(name): cannot read the file")
        }
        return Array(data)
    }
}

/// The image files a `stream` source names: a folder (its JPEG and PNG files by name), a
/// glob pattern (quoted, so the shell leaves it alone), or a file.
func expandSource(_ source: String) throws(CLIFailure) -> [String] {
    var isDirectory: ObjCBool = false
    if FileManager.default.fileExists(atPath: source, isDirectory: &isDirectory) {
        guard isDirectory.boolValue else { return [source] }
        let names = (try? FileManager.default.contentsOfDirectory(atPath: source)) ?? []
        let images = names.filter { ["jpg", "jpeg", "png"].contains(($0 as NSString).pathExtension.lowercased()) }
        return images.sorted().map { (source as NSString).appendingPathComponent($0) }
    }
    var matches = glob_t()
    defer { globfree(&matches) }
    guard glob(source, 0, nil, &matches) == 0 else {
        throw .usage("\(source): no such folder or file, and no file matches it")
    }
    return (0..<Int(matches.gl_pathc)).compactMap { matches.gl_pathv[$0].map { String(cString: $0) } }.sorted()
}
