import Glibc
import LegibleCore
import LegibleReading
import LegibleSessions
import LegibleWire
import Testing

@testable import LegibleEngine

/// What crosses between legibled and an engine worker process comes back as it went: a frame
/// and its bytes, an answer with its text, a frame handed between scripts' engines with its
/// pixels, an error with its cause. No processes here: the messages as bytes.
@Suite("Engine worker messages")
struct WorkerCodecTests {
    /// The header and body of an encoded message, as `WorkerChannel.receive` splits them.
    static func split(_ message: [UInt8]) -> (header: WorkerMessageHeader, body: [UInt8]) {
        var offset = 0
        let header = WorkerMessageHeader.read { (buffer: inout [UInt8]) in
            buffer = Array(message[offset..<offset + buffer.count])
            offset += buffer.count
        }
        return (header!, Array(message[offset...]))
    }

    static let context = FrameContext(
        serial: 41, deadline: .milliseconds(1500),
        scene: SceneSnapshot(
            reference: LumaThumbnail(cells: (0..<(32 * 18)).map(Float.init)), textHeight: 23.5, now: .seconds(12)))

    @Test func aFramesBytesTravelBesideItsDescriptionNotInIt() throws {
        let bytes = (0..<100_000).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        let frame = Frame(
            frameID: 9, encoding: .known(.jpeg), data: bytes, width: 1280, height: 720,
            orientation: .known(.right), regionOfInterest: Rect(x: 1, y: 2, width: 3, height: 4),
            clientTimestampMicros: 77)
        let settings = SessionSettings(engineKey: EngineKey(models: ["eng"]), detectEntities: true)
        let message = try WorkerRequest.process(frame, settings, Self.context).encoded()
        // The JSON around the bytes is small: the bytes are not written out as numbers.
        #expect(message.count < bytes.count + 4000)
        let (header, body) = Self.split(message)
        guard
            case .process(let decoded, let decodedSettings, let context) = try WorkerRequest.decode(
                header: header, body: body)
        else {
            Issue.record("not a process request")
            return
        }
        #expect(decoded == frame)
        #expect(decodedSettings == settings)
        #expect(context.serial == 41 && context.deadline == .milliseconds(1500))
        #expect(
            context.scene.reference == LumaThumbnail(cells: (0..<(32 * 18)).map(Float.init))
                && context.scene.textHeight == 23.5)
    }

    @Test func anAnswerComesBackWithItsTextBoxesAndConfidences() throws {
        let word = TextElement(
            text: "Café", frame: Rect(x: 10, y: 20, width: 40, height: 12), confidence: .nan,
            recognizedLanguages: ["fr"], symbols: [])
        let line = TextLine(
            text: "Café", frame: word.frame, confidence: 0.93, recognizedLanguages: ["fr"], elements: [word],
            quad: Quad([Point(x: 10, y: 20), Point(x: 50, y: 21), Point(x: 50, y: 33), Point(x: 10, y: 32)]),
            script: .latin, model: "eng")
        let text = RecognizedText(
            text: "Café",
            blocks: [
                TextBlock(text: "Café", frame: word.frame, confidence: 0.93, recognizedLanguages: ["fr"], lines: [line])
            ], imageWidth: 640, imageHeight: 480)
        let recognition = FrameOutcome.Recognition(
            text: text, quality: FrameQuality(sharpness: 3, medianTextHeight: 12, hints: [.textTooSmall]),
            orientation: AppliedOrientation(orientation: .up, source: .osd, osdRotationDegrees: 90, osdConfidence: 4),
            decodeMicros: 1200, recognizeMicros: 98_000,
            scene: SceneObservation(thumbnail: nil, policy: SkipPolicy(), sceneDifference: 1.5, motion: 0.25))
        let (header, body) = Self.split(
            try WorkerCodec.encode(WorkerReply.outcome(serial: 41, .recognized(recognition))))
        guard
            case .outcome(41, .recognized(let decoded)) = try WorkerCodec.decode(
                WorkerReply.self, header: header, body: body)
        else {
            Issue.record("not the answer sent")
            return
        }
        var expected = text
        var actual = decoded.text
        // NaN is not equal to itself: compare it apart.
        #expect(actual.blocks[0].lines[0].elements[0].confidence.isNaN)
        expected.blocks[0].lines[0].elements[0].confidence = 0
        actual.blocks[0].lines[0].elements[0].confidence = 0
        #expect(actual == expected)
        #expect(decoded.quality == recognition.quality && decoded.orientation == recognition.orientation)
        #expect(decoded.decodeMicros == 1200 && decoded.recognizeMicros == 98_000)
        #expect(decoded.scene.sceneDifference == 1.5 && decoded.scene.motion == 0.25)
    }

    @Test func aHandedOffFrameKeepsItsPixelsAndWhatIsLeftOfItsTime() throws {
        let pixels = (0..<(300 * 200)).map { UInt8(truncatingIfNeeded: $0 &* 13) }
        let handOff = LineHandOff(
            routing: ScriptRouting(scripts: [.latin, .devanagari], lines: []),
            image: GrayImage(width: 300, height: 200, bytesPerRow: 300, pixels: pixels), request: RecognitionRequest(),
            time: TimeLimit(.seconds(5)),
            answer: PendingAnswer(
                map: CoordinateMap(offsetX: 4, offsetY: 5, scale: 0.5), fullWidth: 600, fullHeight: 400,
                measured: ImageQuality(sharpness: 1, brightness: 2, contrast: 3),
                scene: SceneObservation(thumbnail: nil, policy: SkipPolicy(), sceneDifference: 0, motion: 0),
                orientation: AppliedOrientation(orientation: .up, source: .client), decodeMicros: 10,
                recognizeMicros: 20))
        let message = try WorkerCodec.encode(
            WorkerReply.outcome(serial: 2, .handedOff(handOff, to: EngineKey(models: ["Devanagari"]))),
            attachments: ByteAttachments())
        #expect(message.count < pixels.count + 4000)
        let (header, body) = Self.split(message)
        guard
            case .outcome(2, .handedOff(let decoded, let key)) = try WorkerCodec.decode(
                WorkerReply.self, header: header, body: body)
        else {
            Issue.record("not the hand-off sent")
            return
        }
        #expect(key == EngineKey(models: ["Devanagari"]))
        #expect(decoded.image.pixels == pixels && decoded.image.width == 300 && decoded.image.height == 200)
        #expect(decoded.routing.scripts == [.latin, .devanagari])
        #expect(decoded.answer.map == CoordinateMap(offsetX: 4, offsetY: 5, scale: 0.5))
        let remaining = try decoded.time.remaining()
        let left = try #require(remaining)
        #expect(left > .seconds(4) && left <= .seconds(5))
    }

    @Test func aSpentTimeLimitStaysSpent() throws {
        let spent = TimeLimit(.zero)
        let (header, body) = Self.split(
            try WorkerCodec.encode(
                WorkerRequest.continueReading(
                    LineHandOff(
                        routing: ScriptRouting(scripts: [.latin], lines: []),
                        image: GrayImage(width: 1, height: 1, bytesPerRow: 1, pixels: [0]),
                        request: RecognitionRequest(), time: spent,
                        answer: PendingAnswer(
                            map: CoordinateMap(), fullWidth: 1, fullHeight: 1,
                            measured: ImageQuality(sharpness: 0, brightness: 0, contrast: 0),
                            scene: SceneObservation(
                                thumbnail: nil, policy: SkipPolicy(), sceneDifference: 0, motion: 0),
                            orientation: AppliedOrientation(orientation: .up, source: .client), decodeMicros: 0,
                            recognizeMicros: 0)),
                    SessionSettings(engineKey: EngineKey(models: ["eng"])), Self.context)))
        guard case .continueReading(let decoded, _, _) = try WorkerRequest.decode(header: header, body: body) else {
            Issue.record("not the request sent")
            return
        }
        #expect(throws: LegibleError.self) { try decoded.time.remaining() }
    }

    @Test func anErrorKeepsItsCodeMessageAndCause() throws {
        let error = LegibleError(
            .deadlineExceeded, "too slow", cause: EngineCrash(processID: 12, signal: 6, exitStatus: nil))
        let (header, body) = Self.split(try WorkerCodec.encode(WorkerReply.outcome(serial: 1, .failed(error))))
        guard
            case .outcome(1, .failed(let decoded)) = try WorkerCodec.decode(
                WorkerReply.self, header: header, body: body)
        else {
            Issue.record("not the failure sent")
            return
        }
        #expect(decoded.code == .deadlineExceeded && decoded.message == "too slow")
        #expect("\(decoded.cause!)" == "engine process 12 ended by signal 6 (SIGABRT)")
    }

    static let frame = Frame(
        frameID: 3, encoding: .known(.jpeg), data: (0..<100_000).map { UInt8(truncatingIfNeeded: $0 &* 11) },
        width: 1280, height: 720, orientation: .known(.up))
    static let settings = SessionSettings(engineKey: EngineKey(models: ["eng"]))

    /// legibled writes a frame into the worker's shared memory and sends only its description;
    /// the worker, mapping the same memory, gets the same frame back.
    @Test func aFramesBytesGoThroughSharedMemoryWhenTheyFit() throws {
        let server = try SharedFrameMemory(capacity: 1 << 20)
        let worker = try SharedFrameMemory(mapping: dup(server.descriptor))
        let message = try WorkerRequest.process(Self.frame, Self.settings, Self.context).encoded(shared: server)
        #expect(message.count < 4000)
        let (header, body) = Self.split(message)
        #expect(header.attachmentsShared && header.attachmentSizes.first == 100_000)
        guard case .process(let decoded, _, _) = try WorkerRequest.decode(header: header, body: body, shared: worker)
        else {
            Issue.record("not a process request")
            return
        }
        #expect(decoded == Self.frame)
        // Without the memory the message cannot be read.
        #expect(throws: DecodingError.self) { try WorkerRequest.decode(header: header, body: body) }
    }

    /// A worker maps descriptor 4 only when it is legibled's memfd, not whatever a parent left there.
    @Test func onlyLegibledsMemfdIsMapped() throws {
        let memory = try SharedFrameMemory(capacity: 64 << 10)
        #expect(SharedFrameMemory.isOurs(memory.descriptor))
        var template = Array("/tmp/legible-not-frames-XXXXXX".utf8CString)
        let other = mkstemp(&template)
        defer {
            close(other)
            unlink(template)
        }
        #expect(ftruncate(other, 4096) == 0)
        #expect(!SharedFrameMemory.isOurs(other))
        #expect(throws: LegibleError.self) { try SharedFrameMemory(mapping: other) }
        var pipe: [Int32] = [0, 0]
        #expect(Glibc.pipe(&pipe) == 0)
        defer { for end in pipe { close(end) } }
        #expect(throws: LegibleError.self) { try SharedFrameMemory(mapping: pipe[0]) }
    }

    @Test func aFrameLargerThanTheSharedMemoryTravelsInline() throws {
        let server = try SharedFrameMemory(capacity: 64 << 10)
        let message = try WorkerRequest.process(Self.frame, Self.settings, Self.context).encoded(shared: server)
        #expect(message.count > 100_000)
        let (header, body) = Self.split(message)
        #expect(!header.attachmentsShared)
        guard case .process(let decoded, _, _) = try WorkerRequest.decode(header: header, body: body, shared: server)
        else {
            Issue.record("not a process request")
            return
        }
        #expect(decoded == Self.frame)
    }

    @Test func sharedAttachmentsPastTheMemorysEndAreRefused() throws {
        let memory = try SharedFrameMemory(capacity: 64 << 10)
        let value = try WorkerCodec.encode(WorkerRequest.cancel(serial: 1))
        var (header, body) = Self.split(value)
        header.attachmentSizes = [UInt32(memory.capacity) + 1]
        header.attachmentsShared = true
        #expect(throws: DecodingError.self) {
            try WorkerRequest.decode(header: header, body: body, shared: memory)
        }
        // A body that is not the size its header says is refused too.
        header.attachmentSizes = []
        body.append(0)
        #expect(throws: DecodingError.self) { try WorkerRequest.decode(header: header, body: body, shared: memory) }
    }

    /// A 10 MB raw frame takes 10 MB of shared memory while it is read; once answered, all but
    /// the first `keptBytes` are given back, and a camera-sized frame keeps its pages.
    @Test func aLargeFramesPagesAreGivenBackOnceAnswered() throws {
        let memory = try SharedFrameMemory(capacity: 16 << 20)
        #expect(memory.residentBytes == 0)
        #expect(memory.write([[UInt8](repeating: 7, count: 10 << 20)]))
        #expect(memory.residentBytes >= 10 << 20)
        memory.releaseLargeFrames()
        #expect(memory.residentBytes <= SharedFrameMemory.keptBytes)
        #expect(memory.write([[UInt8](repeating: 7, count: 1 << 20)]))
        memory.releaseLargeFrames()
        #expect(memory.residentBytes >= 1 << 20)
        #expect(!memory.write([[UInt8](repeating: 7, count: 16 << 20), [1]]))
    }
}
