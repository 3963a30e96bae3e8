import Foundation
import LegibleCore
import LegibleWire
import LegibleWireProtobuf
import Testing

@Suite("Protobuf codec")
struct ProtobufCodecTests {
    // MARK: Round trips

    @Test(arguments: Fixtures.clientMessages)
    func clientMessageRoundTrips(_ message: ClientMessage) throws {
        let bytes = ProtobufCodec.encode(message)
        #expect(try ProtobufCodec.decodeClientMessage(bytes) == message)
    }

    @Test(arguments: Fixtures.serverMessages)
    func serverMessageRoundTrips(_ message: ServerMessage) throws {
        let bytes = ProtobufCodec.encode(message)
        #expect(try ProtobufCodec.decodeServerMessage(bytes) == message)
    }

    /// The gRPC method Recognize's request (options and one frame) and its answer (a bare
    /// FrameResult) round-trip as the session's messages do.
    @Test func aRecognizeRequestAndItsFrameResultRoundTrip() throws {
        for case .frame(let frame) in Fixtures.clientMessages {
            for case .start(let start) in Fixtures.clientMessages {
                let bytes = ProtobufCodec.encodeRecognizeRequest(options: start.options, frame: frame)
                let decoded = try ProtobufCodec.decodeRecognizeRequest(bytes)
                #expect(decoded.options == start.options && decoded.frame == frame)
            }
        }
        for case .result(let result) in Fixtures.serverMessages {
            #expect(try ProtobufCodec.decodeFrameResult(ProtobufCodec.encode(result)) == result)
        }
        // A request without its frame is refused, not answered for an empty image.
        #expect(throws: LegibleError.self) { try ProtobufCodec.decodeRecognizeRequest([]) }
    }

    /// A token with a NUL inside decodes whole (protobuf-c's own string would stop at the NUL,
    /// and "TOKEN\0junk" would pass for "TOKEN").
    @Test func anAuthTokenKeepsTheBytesAfterANul() throws {
        var bytes = ProtobufCodec.encode(.start(StartSession(authToken: "TOKEN#junk", options: RecognitionOptions())))
        let hash = try #require(bytes.firstIndex(of: UInt8(ascii: "#")))
        bytes[hash] = 0
        guard case .start(let start) = try ProtobufCodec.decodeClientMessage(bytes) else {
            Issue.record("not a start")
            return
        }
        #expect(Array(start.authToken.utf8) == Array("TOKEN".utf8) + [0] + Array("junk".utf8))
        #expect(!AccessTokens(tokens: ["TOKEN"]).accepts(start.authToken))
        #expect(AccessTokens(tokens: ["TOKEN"]).accepts("TOKEN"))
    }

    @Test func absentFieldsDecodeAsNil() throws {
        let frame = Frame(frameID: 1, encoding: nil, data: [])
        #expect(try ProtobufCodec.decodeClientMessage(ProtobufCodec.encode(.frame(frame))) == .frame(frame))
        let result = FrameResult(frameID: 2, status: .dropped)
        #expect(try ProtobufCodec.decodeServerMessage(ProtobufCodec.encode(.result(result))) == .result(result))
        let element = TextElement(
            text: "", frame: Rect(x: 0, y: 0, width: 0, height: 0), confidence: 0, recognizedLanguages: [])
        let text = RecognizedText(blocks: [
            TextBlock(
                text: "", frame: Rect(x: 0, y: 0, width: 0, height: 0), confidence: 0, recognizedLanguages: [],
                lines: [
                    TextLine(
                        text: "", frame: Rect(x: 0, y: 0, width: 0, height: 0), confidence: 0, recognizedLanguages: [],
                        elements: [element])
                ])
        ])
        let withText = FrameResult(frameID: 3, status: .recognized, text: text)
        #expect(try ProtobufCodec.decodeServerMessage(ProtobufCodec.encode(.result(withText))) == .result(withText))
    }

    @Test func largeImageRoundTrips() throws {
        let data = (0..<(3 << 20)).map { UInt8(truncatingIfNeeded: ($0 &* 2_654_435_761) >> 13) }
        let frame = Frame(frameID: 5, encoding: .known(.jpeg), data: data, orientation: .known(.down))
        let bytes = ProtobufCodec.encode(.frame(frame))
        #expect(bytes.count > data.count && bytes.count < data.count + 32)
        #expect(try ProtobufCodec.decodeClientMessage(bytes) == .frame(frame))
    }

    /// A list of options longer than a session may give is cut to one entry over its bound as
    /// it is decoded (validation refuses it all the same), not converted entry by entry.
    @Test func aListLongerThanItsBoundIsCutToOneOverIt() throws {
        let options = RecognitionOptions(
            scripts: Array(repeating: .known(.latin), count: 3000), languageHints: Array(repeating: "en", count: 500),
            customWords: (0..<1500).map { "word\($0)" },
            captureGoals: (0..<40).map { CaptureGoal(name: "g\($0)", target: .entity(.phoneNumber)) })
        guard
            case .update(let update) = try ProtobufCodec.decodeClientMessage(
                ProtobufCodec.encode(.update(UpdateSession(options: options))))
        else {
            Issue.record("not an update")
            return
        }
        #expect(update.options.scripts.count == RecognitionOptions.maxScripts + 1)
        #expect(update.options.languageHints == Array(repeating: "en", count: RecognitionOptions.maxLanguageHints + 1))
        #expect(update.options.customWords == (0...RecognitionOptions.maxCustomWords).map { "word\($0)" })
        #expect(
            update.options.captureGoals.map { $0.name } == (0...RecognitionOptions.maxCaptureGoals).map { "g\($0)" })
    }

    /// protobuf-c allocates each string, submessage and unknown field of a message: a peer's
    /// message of more of them than any valid one holds is RESOURCE_EXHAUSTED, its unpack cut
    /// short (7 million empty custom words had cost the server's event loop 1.2 s). The largest
    /// valid messages still decode: 1,000 custom words of 100 bytes, a 12 MB frame.
    @Test func aPeersMessageOfMoreEntriesThanAnyValidOneIsResourceExhausted() throws {
        for options in [
            RecognitionOptions(customWords: Array(repeating: "", count: 10_000)),
            RecognitionOptions(languageHints: Array(repeating: "en", count: 5_000)),
        ] {
            let bytes = ProtobufCodec.encode(.update(UpdateSession(options: options)))
            #expect(throws: LegibleError.self) { try ProtobufCodec.decodeClientMessage(bytes) }
            do {
                _ = try ProtobufCodec.decodeClientMessage(bytes)
            } catch {
                #expect(error.code == .resourceExhausted, "\(error)")
            }
        }
        // Unknown fields count too: field 99 (varint) a million times after a ping.
        let unknown =
            ProtobufCodec.encode(.ping(nonce: 1))
            + Array(repeating: [0x98, 0x06, 0x01], count: 1_000_000).flatMap { $0 }
        #expect(throws: LegibleError.self) { try ProtobufCodec.decodeClientMessage(unknown) }

        let words = (0..<1000).map { String(repeating: "w", count: 96) + String(1000 + $0) }
        let start = ClientMessage.start(
            StartSession(
                options: RecognitionOptions(
                    languageHints: Array(repeating: "de", count: 64), customWords: words,
                    captureGoals: (0..<16).map { CaptureGoal(name: "g\($0)", target: .pattern("[0-9]{4}")) })))
        #expect(try ProtobufCodec.decodeClientMessage(ProtobufCodec.encode(start)) == start)
        let frame = ClientMessage.frame(
            Frame(frameID: 1, encoding: .known(.gray8), data: Array(repeating: 7, count: 12 << 20)))
        let decoded = try ProtobufCodec.decodeClientMessage(ProtobufCodec.encode(frame))
        let same = decoded == frame  // a Bool: a failed comparison of 12 MB arrays takes long to print
        #expect(same)
    }

    /// What a server sends is not budgeted: a result of 10,000 words decodes in a client.
    @Test func aServersResultOfManyWordsDecodes() throws {
        let zero = Rect(x: 0, y: 0, width: 0, height: 0)
        let elements = (0..<10_000).map {
            TextElement(text: "w\($0)", frame: zero, confidence: 0.5, recognizedLanguages: [])
        }
        let text = RecognizedText(blocks: [
            TextBlock(
                text: "", frame: zero, confidence: 0, recognizedLanguages: [],
                lines: [TextLine(text: "", frame: zero, confidence: 0, recognizedLanguages: [], elements: elements)])
        ])
        let result = ServerMessage.result(FrameResult(frameID: 3, status: .recognized, text: text))
        #expect(try ProtobufCodec.decodeServerMessage(ProtobufCodec.encode(result)) == result)
    }

    @Test func emptyStringsInRepeatedFieldsSurvive() throws {
        let options = RecognitionOptions(languageHints: ["", "de", ""], customWords: [""])
        let message = ClientMessage.update(UpdateSession(options: options))
        #expect(try ProtobufCodec.decodeClientMessage(ProtobufCodec.encode(message)) == message)
    }

    // MARK: Bytes are what protobuf expects (a check of the generated code)

    @Test func pingHasTheHandComputedBytes() {
        // field 4 (ping), wire type 2: 0x22; length 2; field 1 (nonce), varint: 0x08, 5.
        #expect(ProtobufCodec.encode(ClientMessage.ping(nonce: 5)) == [0x22, 0x02, 0x08, 0x05])
        // field 5 (end), wire type 2, empty: 0x2A 0x00.
        #expect(ProtobufCodec.encode(ClientMessage.end) == [0x2A, 0x00])
        // field 4 (pong), length 3; nonce 300 = varint 0xAC 0x02.
        #expect(ProtobufCodec.encode(ServerMessage.pong(nonce: 300)) == [0x22, 0x03, 0x08, 0xAC, 0x02])
    }

    @Test func handWrittenBytesDecode() throws {
        #expect(try ProtobufCodec.decodeClientMessage([0x22, 0x02, 0x08, 0x05]) == .ping(nonce: 5))
        #expect(try ProtobufCodec.decodeClientMessage([0x2A, 0x00]) == .end)
        #expect(try ProtobufCodec.decodeServerMessage([0x22, 0x03, 0x08, 0xAC, 0x02]) == .pong(nonce: 300))
    }

    // MARK: Failures

    @Test(
        arguments: [
            [0xFF, 0xFF, 0xFF],  // a tag varint that never ends
            [0x12, 0x10, 0x08],  // frame: length 16, one byte follows
            [0x22, 0x02, 0x08],  // ping: truncated inside
            Array("hello, world".utf8),
        ] as [[UInt8]])
    func garbageIsInvalidArgument(_ bytes: [UInt8]) {
        expectInvalidArgument("bytes are not a legible.v1.ClientMessage") {
            try ProtobufCodec.decodeClientMessage(bytes)
        }
        expectInvalidArgument("bytes are not a legible.v1.ServerMessage") {
            try ProtobufCodec.decodeServerMessage(bytes)
        }
    }

    @Test func emptyBytesAreAnEmptyClientMessage() {
        expectInvalidArgument("empty ClientMessage") { try ProtobufCodec.decodeClientMessage([]) }
        expectInvalidArgument("empty ServerMessage") { try ProtobufCodec.decodeServerMessage([]) }
        // Only a field this build does not know (field 15, varint 1): nothing it can act on.
        expectInvalidArgument("empty ClientMessage") { try ProtobufCodec.decodeClientMessage([0x78, 0x01]) }
    }

    @Test func unknownModeIsInvalidArgument() {
        // start { options { mode: 9 } }: 0x0A len [0x22 len [0x18 0x09]]
        expectInvalidArgument("unknown RecognitionOptions.mode 9") {
            try ProtobufCodec.decodeClientMessage([0x0A, 0x04, 0x22, 0x02, 0x18, 0x09])
        }
    }

    @Test func unknownFrameStatusIsInvalidArgument() {
        // result { frame_id: 4, status: 9 }
        expectInvalidArgument("FrameResult 4 has unknown status 9") {
            try ProtobufCodec.decodeServerMessage([0x12, 0x04, 0x08, 0x04, 0x10, 0x09])
        }
    }

    // MARK: Enum values

    @Test func unknownEncodingSurvives() throws {
        // frame { image { encoding: 99 } }, written by hand, not by our encoder.
        guard case .frame(let frame) = try ProtobufCodec.decodeClientMessage([0x12, 0x04, 0x12, 0x02, 0x08, 0x63])
        else {
            Issue.record("not a frame")
            return
        }
        #expect(frame.encoding == .unknown(99))
        #expect(frame.orientation == nil)
        // And through our encoder as well.
        let unknown = Frame(frameID: 7, encoding: .unknown(42), data: [1, 2, 3], orientation: .unknown(-1))
        #expect(try ProtobufCodec.decodeClientMessage(ProtobufCodec.encode(.frame(unknown))) == .frame(unknown))
    }

    @Test func encodingAndOrientationZeroAreNil() throws {
        // frame { frame_id: 3, image { encoding: 0 }, orientation: 0 }, zeros written explicitly.
        let bytes: [UInt8] = [0x12, 0x08, 0x08, 0x03, 0x12, 0x02, 0x08, 0x00, 0x18, 0x00]
        #expect(try ProtobufCodec.decodeClientMessage(bytes) == .frame(Frame(frameID: 3, encoding: nil, data: [])))
    }

    @Test func unknownScriptsAndBreakTypes() throws {
        // A script in the options stays visible for validation.
        let options = RecognitionOptions(scripts: [.known(.korean), .unknown(77), .unknown(0)])
        let start = ClientMessage.start(StartSession(options: options))
        #expect(try ProtobufCodec.decodeClientMessage(ProtobufCodec.encode(start)) == start)
        // An available script this build does not know is left out of SessionStarted.
        // started { available_scripts: [1, 77, 5] } (packed)
        let started = try ProtobufCodec.decodeServerMessage([0x0A, 0x05, 0x2A, 0x03, 0x01, 0x4D, 0x05])
        guard case .started(let value) = started else {
            Issue.record("not SessionStarted")
            return
        }
        #expect(value.availableScripts == [.latin, .korean])
        #expect(
            value.limits
                == ServerLimits(maxMessageBytes: 0, pendingFramesPerSession: 0, workers: 0, replicasPerScript: 0))

        // An unknown break type is BREAK_TYPE_UNKNOWN; an absent frame is the zero Rect.
        // result { frame_id: 1, status: 1, text { blocks { lines { elements { recognized_break { type: 9 } } } } } }
        let bytes: [UInt8] = [
            0x12, 0x10, 0x08, 0x01, 0x10, 0x01, 0x1A, 0x0A, 0x12, 0x08, 0x32, 0x06, 0x32, 0x04, 0x42, 0x02, 0x08, 0x09,
        ]
        guard case .result(let result) = try ProtobufCodec.decodeServerMessage(bytes) else {
            Issue.record("not a FrameResult")
            return
        }
        let element = try #require(result.text?.blocks.first?.lines.first?.elements.first)
        #expect(element.recognizedBreak == RecognizedBreak(kind: .unknown))
        #expect(element.frame == Rect(x: 0, y: 0, width: 0, height: 0))
        #expect(result.status == .recognized)
    }

    // MARK: Against the reference implementation (protoc, as the Python client's runtime)

    @Test(.enabled(if: RepositoryTool.find("protoc") != nil, "needs protoc (apt-get install protobuf-compiler)"))
    func protocReadsWhatWeWrite() throws {
        let element = TextElement(
            text: "Hi", frame: Rect(x: 10, y: 20, width: 30, height: 40), confidence: 0.5, recognizedLanguages: ["en"],
            recognizedBreak: RecognizedBreak(kind: .space))
        let line = TextLine(
            text: "Hi", frame: Rect(x: 10, y: 20, width: 30, height: 40), confidence: 0.5, recognizedLanguages: [],
            elements: [element], trackID: 3)
        let block = TextBlock(
            text: "Hi", frame: Rect(x: 10, y: 20, width: 30, height: 40), confidence: 0.5, recognizedLanguages: [],
            lines: [line])
        let result = FrameResult(
            frameID: 7, status: .recognized,
            text: RecognizedText(text: "Hi", blocks: [block], imageWidth: 64, imageHeight: 48))
        let bytes = ProtobufCodec.encode(ServerMessage.result(result))
        let run = try protoc(["--decode=legible.v1.ServerMessage"], input: bytes)
        // protoc's text format, each line trimmed of its indentation (the braces keep the nesting).
        let output = String(decoding: run, as: UTF8.self).split(separator: "\n").map {
            $0.trimmingCharacters(in: .whitespaces)
        }
        let geometry = [
            "frame {", "x: 10", "y: 20", "width: 30", "height: 40", "}",
            "corner_points {", "x: 10", "y: 20", "}",
            "corner_points {", "x: 40", "y: 20", "}",
            "corner_points {", "x: 40", "y: 60", "}",
            "corner_points {", "x: 10", "y: 60", "}",
            "confidence: 0.5",
        ]
        let expected: [String] =
            [
                "result {", "frame_id: 7", "status: FRAME_STATUS_RECOGNIZED", "text {", "text: \"Hi\"", "blocks {",
                "text: \"Hi\"",
            ]
            + geometry + ["lines {", "text: \"Hi\""]
            + geometry + ["elements {", "text: \"Hi\""]
            + geometry
            + [
                "recognized_languages {", "language_code: \"en\"", "}", "recognized_break {", "type: BREAK_TYPE_SPACE",
                "}",
            ]
            + ["}", "track_id: 3", "}", "}", "image_width: 64", "image_height: 48", "}", "}"]
        #expect(output == expected)
    }

    @Test(.enabled(if: RepositoryTool.find("protoc") != nil, "needs protoc (apt-get install protobuf-compiler)"))
    func weReadWhatProtocWrites() throws {
        let text = """
            frame {
              frame_id: 12
              image { encoding: ENCODING_GRAY8 data: "\\001\\002\\000\\377" width: 2 height: 2 stride: 2 }
              orientation: ORIENTATION_LEFT
              region_of_interest { x: 1 y: 2 width: 3 height: 4 }
              client_timestamp_us: 1700000000000000
            }
            """
        let bytes = try protoc(["--encode=legible.v1.ClientMessage"], input: Array(text.utf8))
        let expected = Frame(
            frameID: 12, encoding: .known(.gray8), data: [1, 2, 0, 255], width: 2, height: 2, stride: 2,
            orientation: .known(.left), regionOfInterest: Rect(x: 1, y: 2, width: 3, height: 4),
            clientTimestampMicros: 1_700_000_000_000_000)
        #expect(try ProtobufCodec.decodeClientMessage(Array(bytes)) == .frame(expected))
    }

    // MARK: Speed

    /// A 500-word result, encoded and decoded; the figure is printed. The bound is loose (a
    /// debug build on a busy machine); the ratio check catches work that grows faster than
    /// the tree.
    @Test func fiveHundredWordResultIsFastAndLinear() throws {
        let small = ServerMessage.result(Fixtures.result(words: 500))
        let large = ServerMessage.result(Fixtures.result(words: 5000))
        let smallBytes = ProtobufCodec.encode(small)
        #expect(try ProtobufCodec.decodeServerMessage(smallBytes) == small)

        func fastest(_ message: ServerMessage, runs: Int) throws -> (encode: Duration, decode: Duration) {
            let clock = ContinuousClock()
            var encode = Duration.seconds(1000)
            var decode = Duration.seconds(1000)
            for _ in 0..<runs {
                var bytes: [UInt8] = []
                encode = min(encode, clock.measure { bytes = ProtobufCodec.encode(message) })
                decode = min(decode, try clock.measure { _ = try ProtobufCodec.decodeServerMessage(bytes) })
            }
            return (encode, decode)
        }
        let smallTime = try fastest(small, runs: 10)
        let largeTime = try fastest(large, runs: 3)
        print(
            "ProtobufCodec, 500-word result (\(smallBytes.count) bytes): encode \(smallTime.encode), decode \(smallTime.decode);",
            "5000 words: encode \(largeTime.encode), decode \(largeTime.decode)")
        // Under a sanitizer (make test-asan / test-tsan set LEGIBLE_SANITIZED) every allocation
        // costs far more: the bound scales, the linearity checks below do not.
        let slowdown = ProcessInfo.processInfo.environment["LEGIBLE_SANITIZED"] == nil ? 1 : 10
        #expect(smallTime.encode + smallTime.decode < .milliseconds(250) * slowdown)
        // Ten times the words: linear work is ~10×, quadratic would be ~100×.
        #expect(largeTime.encode < smallTime.encode * 30)
        #expect(largeTime.decode < smallTime.decode * 30)
    }

    // MARK: Helpers

    func expectInvalidArgument<T>(
        _ message: String, sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> T
    ) {
        do {
            let value = try body()
            Issue.record("expected \(message), decoded \(value)", sourceLocation: sourceLocation)
        } catch let error as LegibleError {
            #expect(error.code == .invalidArgument, sourceLocation: sourceLocation)
            #expect(error.message == message, sourceLocation: sourceLocation)
        } catch {
            Issue.record("expected a LegibleError, got \(error)", sourceLocation: sourceLocation)
        }
    }

    func protoc(_ arguments: [String], input: [UInt8]) throws -> Data {
        let protoc = try #require(RepositoryTool.find("protoc"))
        let run = try RepositoryTool.run(
            protoc, ["--proto_path=Protos"] + arguments + ["legible/v1/legible.proto"], input: input)
        #expect(run.status == 0, "protoc failed: \(run.standardError)")
        return run.standardOutput
    }
}

/// Messages with every field set to something other than its default.
enum Fixtures {
    static let options = RecognitionOptions(
        scripts: [.known(.latin), .known(.japanese), .unknown(12)], languageHints: ["de", "ja", "zh-Hant"],
        mode: .document, level: .accurate, customWords: ["Größe", "東京", "SKU-1234"],
        regionOfInterest: Rect(x: -4, y: 8, width: 640, height: 360), maxCandidates: 3, includeSymbols: true,
        autoOrientation: true, languageCorrection: false, minimumTextHeight: 0.125, detectEntities: true,
        maxFrameAgeMillis: 250, stableAfter: 5, waitForSteady: true, recognizeUnchanged: true,
        automaticallyDetectScript: true,
        captureGoals: [
            CaptureGoal(name: "phone", target: .entity(.phoneNumber), confirmations: 3, endWhenCaptured: true),
            CaptureGoal(name: "serial ✓", target: .pattern(#"[A-Z]{2}-\d{6}"#), confirmations: 1),
        ])

    static let capture = Capture(
        goal: "serial ✓", value: "AB-123456",
        frames: [Rect(x: 1, y: 2, width: 3, height: 4), Rect(x: -5, y: 6, width: 7, height: 8)],
        confidence: 0.75, confirmations: 2, captured: true)

    static let clientMessages: [ClientMessage] = [
        .start(
            StartSession(protocolVersion: 7, clientName: "legible-tests/0.1 ✓", authToken: "s3cr3t", options: options)),
        .frame(
            Frame(
                frameID: 0xFFFF_FFFF_FFFF_FFFE, encoding: .known(.nv12),
                data: [0, 1, 0xFF, 0, 0x80, 0x7F] + (0..<26).map { UInt8($0 * 9) },
                width: 32, height: 21, stride: 48, orientation: .known(.rightMirrored),
                regionOfInterest: Rect(x: 1, y: 2, width: 30, height: 18), clientTimestampMicros: 1_712_345_678_901_234)
        ),
        .update(UpdateSession(options: options)),
        .ping(nonce: 0xDEAD_BEEF_CAFE),
        .end,
    ]

    static let serverMessages: [ServerMessage] = [
        .started(
            SessionStarted(
                sessionID: "s-42", serverVersion: "legibled 0.1.0", protocolVersion: 3,
                limits: ServerLimits(
                    maxMessageBytes: 16 << 20, pendingFramesPerSession: 1, workers: 2, replicasPerScript: 4,
                    maxSessions: 1000, frameDeadlineMillis: 5000),
                availableScripts: [.latin, .chinese, .devanagari, .japanese, .korean],
                engines: [
                    EngineInfo(script: .latin, model: "eng", replicas: 2, loaded: 1),
                    EngineInfo(script: .chinese, model: "HanS", replicas: 1, loaded: 0),
                ])),
        .result(
            FrameResult(
                frameID: 99, status: .recognized, text: text,
                timing: Timing(
                    clientTimestampMicros: 17, queueMicros: 1, decodeMicros: 2, recognizeMicros: 3, totalMicros: 6),
                changes: Changes(added: [1, 2], changed: [3], removed: [UInt64.max]),
                quality: FrameQuality(
                    sharpness: 412.5, brightness: 31.25, contrast: 18, medianTextHeight: 11.5,
                    hints: [.textTooSmall, .tooDark, .lowContrast]),
                error: WireError(code: 4, message: "late", frameID: 99, fatal: false),
                orientation: AppliedOrientation(
                    orientation: .leftMirrored, source: .osd, osdRotationDegrees: 270, osdConfidence: 5.5),
                skipReason: .moving, stable: true, sceneDifference: 3.25, motion: 41.5,
                captures: [
                    capture,
                    Capture(
                        goal: "phone", value: "+4930", frames: [], confidence: 0.5, confirmations: 1, captured: false),
                ])),
        .result(
            FrameResult(
                frameID: 100, status: .failed,
                error: WireError(code: 3, message: "not a JPEG: ✗", frameID: 100, fatal: false))),
        .error(WireError(code: 8, message: "message of 20 MiB exceeds 16 MiB", frameID: 5, fatal: true)),
        .pong(nonce: 0xDEAD_BEEF_CAFE),
        .summary(
            SessionSummary(
                framesReceived: 10, framesRecognized: 6, framesDropped: 2, framesSkipped: 1, framesFailed: 1,
                captures: [capture])
        ),
    ]

    static func symbols(_ text: String, x: Int32, y: Int32) -> [TextSymbol] {
        text.enumerated().map { index, character in
            TextSymbol(
                text: String(character), frame: Rect(x: x + Int32(index) * 10, y: y, width: 9, height: 20),
                confidence: 0.9 - Float(index) / 100,
                candidates: [Candidate(text: String(character).uppercased(), confidence: 0.25)],
                recognizedBreak: index == text.count - 1 ? RecognizedBreak(kind: .space) : nil)
        }
    }

    static func word(_ text: String, x: Int32, y: Int32, break kind: RecognizedBreak.Kind = .space) -> TextElement {
        TextElement(
            text: text, frame: Rect(x: x, y: y, width: Int32(text.count) * 10, height: 20), confidence: 0.875,
            recognizedLanguages: ["de", "ja"], symbols: symbols(text, x: x, y: y),
            candidates: [
                Candidate(text: text.lowercased(), confidence: 0.5), Candidate(text: text + "!", confidence: 0.125),
            ],
            recognizedBreak: RecognizedBreak(kind: kind, isPrefix: kind == .hyphen))
    }

    /// Three blocks: a text-mode block of lines, a document-mode block of paragraphs, and a
    /// CJK block.
    static let text = RecognizedText(
        text: "Größe 東京\nSecond line\nA para-\ngraph\n東京駅",
        blocks: [
            TextBlock(
                text: "Größe 東京\nSecond line", frame: Rect(x: 10, y: 20, width: 200, height: 50), confidence: 0.8,
                recognizedLanguages: ["de"],
                lines: [
                    TextLine(
                        text: "Größe 東京", frame: Rect(x: 10, y: 20, width: 100, height: 20), confidence: 0.81,
                        recognizedLanguages: ["de", "ja"],
                        elements: [word("Größe", x: 10, y: 20), word("東京", x: 70, y: 20, break: .eolSureSpace)],
                        trackID: 17, stableFrames: 4, script: .japanese, model: "jpn"),
                    TextLine(
                        text: "Second line", frame: Rect(x: 10, y: 45, width: 110, height: 20), confidence: 0.79,
                        recognizedLanguages: ["en"],
                        elements: [
                            word("Second", x: 10, y: 45, break: .sureSpace),
                            word("line", x: 80, y: 45, break: .lineBreak),
                        ],
                        trackID: 18, stableFrames: 1),
                ]),
            TextBlock(
                text: "A para-\ngraph", frame: Rect(x: 10, y: 100, width: 200, height: 45), confidence: 0.7,
                recognizedLanguages: ["en"],
                lines: [
                    TextLine(
                        text: "A para-", frame: Rect(x: 10, y: 100, width: 70, height: 20), confidence: 0.7,
                        recognizedLanguages: ["en"],
                        elements: [word("A", x: 10, y: 100), word("para-", x: 25, y: 100, break: .hyphen)],
                        trackID: 19, stableFrames: 2)
                ],
                paragraphs: [
                    TextParagraph(
                        text: "A para-\ngraph", frame: Rect(x: 10, y: 100, width: 200, height: 45), confidence: 0.71,
                        recognizedLanguages: ["en"],
                        words: [
                            word("A", x: 10, y: 100), word("para-", x: 25, y: 100, break: .hyphen),
                            word("graph", x: 10, y: 125),
                        ],
                        recognizedBreak: RecognizedBreak(kind: .lineBreak, isPrefix: true))
                ]),
            TextBlock(
                text: "東京駅", frame: Rect(x: 300, y: 400, width: 90, height: 30), confidence: 0.95,
                recognizedLanguages: ["ja"],
                lines: [
                    TextLine(
                        text: "東京駅", frame: Rect(x: 300, y: 400, width: 90, height: 30), confidence: 0.95,
                        recognizedLanguages: ["ja"], elements: [word("東京駅", x: 300, y: 400, break: .unknown)],
                        trackID: UInt64.max, stableFrames: UInt32.max)
                ]),
        ],
        imageWidth: 1280, imageHeight: 720,
        entities: [
            Entity(
                kind: .phoneNumber, text: "+49 30 1234567",
                frames: [Rect(x: 1, y: 2, width: 3, height: 4), Rect(x: 5, y: 6, width: 7, height: 8)]),
            Entity(kind: .paymentCard, text: "4111111111111111", frames: [Rect(x: 9, y: 9, width: 90, height: 20)]),
        ])

    /// A camera-like result: `words` words, 10 to a line, 10 lines to a block, each word with
    /// its symbols, two candidates and a language.
    static func result(words: Int) -> FrameResult {
        var blocks: [TextBlock] = []
        var lines: [TextLine] = []
        var elements: [TextElement] = []
        for index in 0..<words {
            let x = Int32(index % 10) * 60
            let y = Int32(index / 10) * 25
            elements.append(word("word\(index % 97)", x: x, y: y))
            if elements.count == 10 || index == words - 1 {
                lines.append(
                    TextLine(
                        text: elements.map(\.text).joined(separator: " "),
                        frame: Rect(x: 0, y: y, width: 600, height: 20), confidence: 0.8, recognizedLanguages: ["en"],
                        elements: elements, trackID: UInt64(lines.count + 1), stableFrames: 3))
                elements = []
            }
            if lines.count == 10 || (index == words - 1 && !lines.isEmpty) {
                blocks.append(
                    TextBlock(
                        text: lines.map(\.text).joined(separator: "\n"),
                        frame: Rect(x: 0, y: 0, width: 600, height: 250),
                        confidence: 0.8, recognizedLanguages: ["en"], lines: lines))
                lines = []
            }
        }
        return FrameResult(
            frameID: 1, status: .recognized,
            text: RecognizedText(
                text: blocks.map(\.text).joined(separator: "\n"), blocks: blocks, imageWidth: 1280, imageHeight: 720),
            timing: Timing(totalMicros: 1000))
    }
}
