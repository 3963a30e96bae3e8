import Foundation
import LegibleFuzzHarness
import Synchronization
import Testing

/// Every input a fuzz target crashed on (Tests/Fixtures/fuzz-regressions/TARGET/*), and the
/// seed corpora (fuzz/TARGET/corpus/*), fed through the same harness the fuzz executable
/// runs: a fixed bug that comes back crashes here, in `make test`, without libFuzzer.
@Suite("Fuzz regressions")
struct FuzzRegressionTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    static func inputs(_ target: String) -> [String] {
        let folders = [
            root.appendingPathComponent("Tests/Fixtures/fuzz-regressions/\(target)"),
            root.appendingPathComponent("fuzz/\(target)/corpus"),
        ]
        return folders.flatMap { folder in
            ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).sorted().map {
                folder.appendingPathComponent($0).path
            }
        }
    }

    static func bytes(_ path: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    @Test(arguments: inputs("framing"))
    func framing(_ path: String) throws {
        FramingHarness.run(try Self.bytes(path))
    }

    @Test(arguments: inputs("client-message"))
    func clientMessage(_ path: String) throws {
        ClientMessageHarness.run(try Self.bytes(path))
    }

    @Test(arguments: inputs("imaging"))
    func imaging(_ path: String) throws {
        ImagingHarness().run(try Self.bytes(path))
    }

    @Test(arguments: inputs("http2"))
    func http2(_ path: String) throws {
        HTTP2Harness.run(try Self.bytes(path))
    }

    /// One pipeline for every frame-path input (loading Tesseract, the detector and PP-OCR's
    /// recognizer takes a second or so), as one engine thread keeps it; the cases run in
    /// parallel, so they take turns.
    static let framePath = Mutex(FramePathHarness())

    @Test(arguments: inputs("frame-path"))
    func framePath(_ path: String) throws {
        let bytes = try Self.bytes(path)
        Self.framePath.withLock { harness in harness.run(bytes) }
    }
}
