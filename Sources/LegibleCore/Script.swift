/// The writing systems Legible recognizes, one recognizer model per script (as ML Kit ships them).
public enum Script: Int, Sendable, Hashable, CaseIterable, CustomStringConvertible, Codable {
    case latin = 1
    case chinese = 2
    case devanagari = 3
    case japanese = 4
    case korean = 5

    /// The script a session gets when it names none.
    public static let `default` = Script.latin

    public var description: String {
        switch self {
        case .latin: "latin"
        case .chinese: "chinese"
        case .devanagari: "devanagari"
        case .japanese: "japanese"
        case .korean: "korean"
        }
    }

    public init?(name: String) {
        guard let match = Script.allCases.first(where: { $0.description == name.lowercased() }) else {
            return nil
        }
        self = match
    }
}

/// How the recognized text is structured (DESIGN.md's `Mode`).
public enum RecognitionMode: Int, Sendable, Hashable, CaseIterable, Codable {
    /// blocks → lines → elements → symbols.
    case text = 1
    /// blocks → paragraphs → words → symbols, with breaks.
    case document = 2
}

/// Speed against accuracy (DESIGN.md's `Level`).
public enum RecognitionLevel: Int, Sendable, Hashable, CaseIterable, Codable {
    case fast = 1
    case accurate = 2
}

extension Script {
    /// Whether this script's Tesseract models read photographs right at low word confidences —
    /// the Devanagari models at 0.1 to 0.6 on the corpus's sign photographs — so that their
    /// confidences neither gate nor compare readings as the other models' do: their lines get
    /// a lower floor (`LineConfidenceFloor.default`), and ACCURATE does not read their unsure
    /// lines a second way to keep the higher score (`TesseractEngine`).
    public var readsRightAtLowConfidence: Bool { self == .devanagari }

    /// The Debian package that ships this script's default model, for error messages.
    public var debianPackage: String { ModelCatalog.debianPackage(for: ModelSelection().model(for: self)) }
}
