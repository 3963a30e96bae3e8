/// What one recognition is asked to do, beyond the pixels.
public struct RecognitionRequest: Sendable, Hashable {
    public var mode: RecognitionMode
    public var level: RecognitionLevel
    public var includeSymbols: Bool

    public init(mode: RecognitionMode = .text, level: RecognitionLevel = .fast, includeSymbols: Bool = false) {
        self.mode = mode
        self.level = level
        self.includeSymbols = includeSymbols
    }
}

/// Reads the text in an upright gray image.
///
/// A recognizer wraps a C handle that must stay on one thread: implementations are not
/// `Sendable`, and each is created and used on its engine's own thread (never on an I/O thread
/// or on Swift's cooperative pool, which blocking OCR would starve).
public protocol Recognizer: AnyObject {
    var script: Script { get }
    /// Recognizes `image`; the result's coordinates are in `image`'s pixels.
    func recognize(_ image: GrayImage, request: RecognitionRequest) throws(LegibleError) -> RecognizedText
}
