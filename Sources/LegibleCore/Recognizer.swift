internal import Synchronization

/// What one recognition is asked to do, beyond the pixels.
public struct RecognitionRequest: Sendable, Hashable, Codable {
    public var mode: RecognitionMode
    public var level: RecognitionLevel
    public var includeSymbols: Bool
    /// Candidates per element and symbol, the best first; 0 for none.
    public var maxCandidates: Int
    /// The image is a crop to the client's region of interest (it reads as one block).
    public var hasRegionOfInterest: Bool
    /// `recognizeLine`: the strip is a column of vertical text turned a quarter
    /// counter-clockwise (its first character at the left), as `readsTallLinesAsColumns` asks.
    public var lineIsColumn: Bool = false
    /// Text mode on a frame the line detector found to be a page (many small lines): read with
    /// Tesseract's full layout analysis, which reads columns in order.
    public var readsAsPage: Bool = false
    /// `recognizeLine`: read with the engine's own model only, without its second reader
    /// (`secondReading` asks it later). A frame read script by script asks each line's second
    /// reader once, after every candidate script's engine has read it (`ScriptRouting`).
    public var defersSecondReading: Bool = false
    /// The median word height, in pixels of the image given, that the session's last result
    /// in this scene had; FAST shrinks large text toward its target with it. nil when unknown.
    public var textHeightHint: Double?

    public init(
        mode: RecognitionMode = .text, level: RecognitionLevel = .fast, includeSymbols: Bool = false,
        maxCandidates: Int = 0, hasRegionOfInterest: Bool = false, textHeightHint: Double? = nil
    ) {
        self.mode = mode
        self.level = level
        self.includeSymbols = includeSymbols
        self.maxCandidates = maxCandidates
        self.hasRegionOfInterest = hasRegionOfInterest
        self.textHeightHint = textHeightHint
    }
}

/// Reads the text in an upright gray image.
///
/// A recognizer wraps a C handle that must stay on one thread: implementations are not
/// `Sendable`, and each is created and used on its engine's own thread (never on an I/O thread
/// or on Swift's cooperative pool, which blocking OCR would starve).
public protocol Recognizer: AnyObject {
    /// The engine this recognizer is: its models and what only initialisation can set.
    var key: EngineKey { get }
    /// Raised from another thread to stop the recognition in flight.
    var cancellation: RecognitionCancellation { get }
    /// Recognizes `image`; the result's coordinates are in `image`'s pixels.
    ///
    /// - Parameters:
    ///   - job: the caller's serial of this recognition; `cancellation.cancel(job)` stops it.
    ///   - deadline: stop after this long (`.deadlineExceeded`); nil for no limit.
    /// - Throws: `.cancelled` or `.deadlineExceeded` (partial text is discarded), or what the
    ///   engine reports.
    func recognize(_ image: GrayImage, request: RecognitionRequest, job: UInt64, deadline: Duration?)
        throws(LegibleError)
        -> RecognizedText

    /// Reads one text line cut out of a frame and turned horizontal (dark on light); the
    /// line's coordinates are in `strip`'s pixels. Nil when nothing was read.
    func recognizeLine(_ strip: GrayImage, request: RecognitionRequest, job: UInt64, deadline: Duration?)
        throws(LegibleError)
        -> TextLine?

    /// Whether a detected line much taller than wide is a column read top to bottom (vertical
    /// Chinese): it is then cut out turned a quarter counter-clockwise, its first character at
    /// the strip's left, as PaddleOCR feeds its recognizer a tall box.
    var readsTallLinesAsColumns: Bool { get }

    /// A line read at `level` with a lower confidence than this is read again by a second
    /// model of the script (0: this recognizer has none, or not at this level).
    func secondReadingThreshold(at level: RecognitionLevel) -> Float

    /// Whether the second reader also reads sure lines that may have lost their accents
    /// (`SecondOpinionRecognizer` over `eng`).
    var checksAccents: Bool { get }

    /// The second model's reading of `strip` when it is surer than `first` (what
    /// `recognizeLine` read of it with `defersSecondReading`), otherwise `first`.
    func secondReading(
        of strip: GrayImage, first: TextLine?, request: RecognitionRequest, job: UInt64, deadline: Duration?
    ) throws(LegibleError) -> TextLine?
}

extension Recognizer {
    public var readsTallLinesAsColumns: Bool { false }

    public func secondReadingThreshold(at level: RecognitionLevel) -> Float { 0 }

    public var checksAccents: Bool { false }

    public func secondReading(
        of strip: GrayImage, first: TextLine?, request: RecognitionRequest, job: UInt64, deadline: Duration?
    ) throws(LegibleError) -> TextLine? {
        first
    }

    /// A recognizer without a line mode reads the strip as a frame; its lines become one.
    public func recognizeLine(_ strip: GrayImage, request: RecognitionRequest, job: UInt64, deadline: Duration?)
        throws(LegibleError)
        -> TextLine?
    {
        TextLine.joining(try recognize(strip, request: request, job: job, deadline: deadline).lines)
    }
}

extension TextLine {
    /// This line, saying it was read by `model` (and the script that model reads).
    public func readBy(_ model: String) -> TextLine {
        var line = self
        line.model = model
        line.script = ModelCatalog.script(ofModel: model.hasSuffix("_vert") ? String(model.dropLast(5)) : model)
        return line
    }

    /// Lines read from one strip as one line (a line reader that split a line); nil for none.
    public static func joining(_ lines: [TextLine]) -> TextLine? {
        guard var line = lines.first else { return nil }
        for next in lines.dropFirst() {
            line.elements += next.elements
            line.text += (ReadingOrder.needsSpace(between: line.text, and: next.text) ? " " : "") + next.text
            line.frame = line.frame.union(next.frame)
        }
        return line
    }
}

/// The engine a recognition needs: which models it loads and the settings Tesseract takes
/// only at initialisation (user words, the dictionary). Engines are pooled by key.
public struct EngineKey: Sendable, Hashable, CustomStringConvertible, Codable {
    /// Tesseract model names (`eng`, `HanS`, …), in the order given to `Init`.
    public var models: [String]
    /// Words the recognizer should prefer; sorted and without duplicates.
    public var customWords: [String]
    /// Tesseract's dictionaries (system and frequent words) are loaded.
    public var languageCorrection: Bool

    public init(models: [String], customWords: [String] = [], languageCorrection: Bool = true) {
        self.models = models
        self.customWords = Array(Set(customWords.filter { !$0.isEmpty })).sorted()
        self.languageCorrection = languageCorrection
    }

    /// `eng+Devanagari`, as Tesseract's `Init` takes it.
    public var modelSpec: String { models.joined(separator: "+") }

    /// One model with the default settings: the shared engines of a script. Anything else
    /// (custom words, no dictionary, several models) is an engine the pool keeps in a small LRU.
    public var isStandard: Bool { models.count == 1 && customWords.isEmpty && languageCorrection }

    public var description: String {
        var text = modelSpec
        if !customWords.isEmpty { text += "+\(customWords.count)words" }
        if !languageCorrection { text += "-dict" }
        return text
    }
}

/// The cancel signal of one engine: the serial of the job to stop, set from any thread and
/// read by Tesseract's monitor callback on the engine's thread.
///
/// A serial rather than a flag, so that a cancel meant for a job that has just finished cannot
/// stop the next one.
public final class RecognitionCancellation: Sendable {
    private let running = Atomic<UInt64>(0)
    private let cancelled = Atomic<UInt64>(0)
    private let listener = Locked<(@Sendable () -> Void)?>(nil)

    public init() {}

    /// Stops job `job` if it is the one running (or starts later with that serial).
    public func cancel(_ job: UInt64) {
        cancelled.store(job, ordering: .releasing)
        listener.withLock { $0 }?()
    }

    /// Calls `action` (on the canceller's thread) after each `cancel`: an engine that waits on
    /// something other than Tesseract's monitor — a worker process's answer — is woken by it.
    public func whenCancelled(_ action: (@Sendable () -> Void)?) {
        listener.withLock { $0 = action }
    }

    /// The engine marks which job runs now (on its thread).
    public func begin(_ job: UInt64) {
        running.store(job, ordering: .releasing)
    }

    /// True when the running job was cancelled.
    public var isCancelled: Bool {
        let job = running.load(ordering: .acquiring)
        return job != 0 && job == cancelled.load(ordering: .acquiring)
    }
}

/// What is left of a recognition's time limit, counted from when the limit was set: a frame's
/// deadline covers several steps (detection, then each line), each given what is left.
public struct TimeLimit: Sendable {
    public let limit: Duration?
    private let started = ContinuousClock.now

    /// `limit` nil: no limit.
    public init(_ limit: Duration?) {
        self.limit = limit
    }

    /// The time left, nil for no limit.
    ///
    /// - Throws: `.deadlineExceeded` once it is spent.
    public func remaining() throws(LegibleError) -> Duration? {
        guard let limit else { return nil }
        let left = limit - (ContinuousClock.now - started)
        guard left > .zero else {
            throw LegibleError(.deadlineExceeded, "the recognition took longer than the \(limit) deadline")
        }
        return left
    }
}

/// Coded as the time left when it is encoded, counted again from when it is decoded (a limit
/// crossing to an engine worker process keeps what was left of it).
extension TimeLimit: Codable {
    private enum CodingKeys: String, CodingKey { case left }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(try container.decodeIfPresent(Duration.self, forKey: .left))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        guard let limit else { return }
        try container.encode(max(limit - (ContinuousClock.now - started), .zero), forKey: .left)
    }
}

/// Makes the recognizer of one engine (its models in `EngineKey`), on that engine's own
/// thread; it must honour the cancellation it is given.
public typealias RecognizerFactory =
    @Sendable (EngineKey, RecognitionCancellation) throws(LegibleError) -> any Recognizer
