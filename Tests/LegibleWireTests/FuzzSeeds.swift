import Foundation
import LegibleCore
import LegibleWire
import LegibleWireProtobuf
import Testing

/// Writes the seed corpora of fuzz/client-message and fuzz/framing from the codec fixtures.
///
/// Runs only when LEGIBLE_WRITE_FUZZ_SEEDS is set (fuzz/make-seeds.sh sets it); in `make test`
/// it is skipped. The seeds are checked in: regenerate them when the protocol gains fields.
@Suite("Fuzz seeds")
struct FuzzSeeds {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// Valid messages a session accepts, beside the fixtures (whose options name an unknown
    /// script, so that their StartSession is refused).
    static var sessionMessages: [ClientMessage] {
        let blank =
            (try? [UInt8](Data(contentsOf: root.appendingPathComponent("Tests/Fixtures/blank-320x240.jpg")))) ?? []
        let options = RecognitionOptions(
            scripts: [.known(.latin)], languageHints: ["de"], mode: .document, level: .accurate,
            customWords: ["Zwiebel"],
            regionOfInterest: Rect(x: 0, y: 0, width: 16, height: 8), maxCandidates: 3, includeSymbols: true,
            minimumTextHeight: 0.1, detectEntities: true, maxFrameAgeMillis: 100, stableAfter: 2,
            recognizeUnchanged: true)
        return [
            .start(StartSession()),
            .start(StartSession(clientName: "fuzz", options: options)),
            .update(UpdateSession(options: RecognitionOptions(languageHints: ["zh-Hant", "ja"], mode: .text))),
            .frame(Frame(frameID: 1, image: EncodedImage(encoding: .jpeg, data: blank), orientation: .right)),
            .frame(
                Frame(
                    frameID: 2, encoding: .known(.gray8), data: [UInt8](repeating: 200, count: 64), width: 8, height: 8,
                    orientation: .known(.leftMirrored), regionOfInterest: Rect(x: 1, y: 1, width: 4, height: 4))),
            .frame(
                Frame(
                    frameID: 3, encoding: .known(.i420), data: [UInt8](repeating: 90, count: 24), width: 4, height: 4,
                    stride: 4)),
        ]
    }

    @Test(.enabled(if: ProcessInfo.processInfo.environment["LEGIBLE_WRITE_FUZZ_SEEDS"] != nil))
    func write() throws {
        let messages = Fixtures.clientMessages + Self.sessionMessages
        let encoded = messages.map { ProtobufCodec.encode($0) }
        for (index, bytes) in encoded.enumerated() {
            try Self.save(bytes, "client-message", String(format: "message-%02d", index))
        }
        // Framing: a limit byte (index into FramingHarness.limits), an 8-byte chunking seed,
        // then a stream.
        func framing(_ limit: UInt8, _ seed: UInt64, _ stream: [UInt8]) -> [UInt8] {
            [limit] + (0..<8).map { UInt8(truncatingIfNeeded: seed >> (8 * $0)) } + stream
        }
        let session = encoded.flatMap(MessageFraming.frame)
        try Self.save(framing(6, 1, session), "framing", "session")
        try Self.save(framing(6, 0xDEAD_BEEF, session + [0, 0, 0]), "framing", "session-then-partial-header")
        try Self.save(
            framing(3, 7, MessageFraming.frame([]) + MessageFraming.frame(Array(repeating: 1, count: 16))), "framing",
            "at-the-limit")
        try Self.save(framing(3, 9, MessageFraming.frame(Array(repeating: 1, count: 17))), "framing", "over-the-limit")
        try Self.save(
            framing(5, 3, MessageFraming.frame([0x2A, 0]) + [1, 0, 0, 0, 1, 0]), "framing", "compressed-flag")
    }

    static func save(_ bytes: [UInt8], _ target: String, _ name: String) throws {
        let folder = root.appendingPathComponent("fuzz/\(target)/corpus")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Data(bytes).write(to: folder.appendingPathComponent(name))
    }
}
