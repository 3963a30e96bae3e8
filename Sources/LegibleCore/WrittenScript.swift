/// The writing system of the letters in a text, as far as the scripts Legible reads go.
public enum WrittenScript: Sendable, Equatable {
    case latin, devanagari, han, kana, hangul

    /// The script of most letters of `text`; kana anywhere make it Japanese (kanji are read
    /// by the Chinese and the Japanese recognizers alike). Nil when it has no such letter.
    public static func dominant(in text: String) -> WrittenScript? {
        var counts: [WrittenScript: Int] = [:]
        for scalar in text.unicodeScalars {
            if let script = of(scalar) { counts[script, default: 0] += 1 }
        }
        if counts[.kana] != nil { return .kana }
        return counts.max { ($0.value, $0.key.rank) < ($1.value, $1.key.rank) }?.key
    }

    /// Whether `script`'s recognizer writes these letters.
    public func isRead(by script: Script) -> Bool {
        switch (self, script) {
        case (.latin, .latin), (.devanagari, .devanagari), (.kana, .japanese), (.hangul, .korean): true
        case (.han, .chinese), (.han, .japanese): true
        default: false
        }
    }

    /// Han, kana or Hangul: letters written in columns as well as in rows.
    public var isEastAsian: Bool { self == .han || self == .kana || self == .hangul }

    private var rank: Int {
        switch self {
        case .latin: 0
        case .han: 1
        case .devanagari: 2
        case .hangul: 3
        case .kana: 4
        }
    }

    /// Whether `text` has a letter `script`'s recognizer reads as its own.
    public static func has(_ script: Script, in text: String) -> Bool {
        text.unicodeScalars.contains { scalar in of(scalar).map { $0.isRead(by: script) } ?? false }
    }

    /// Whether a recognizer of `script` may write `text`: no letter in it is of a script that
    /// recognizer does not read (digits, punctuation and symbols are every script's).
    public static func writes(_ text: String, as script: Script) -> Bool {
        text.unicodeScalars.allSatisfy { scalar in of(scalar).map { $0.isRead(by: script) } ?? true }
    }

    /// The writing system of one character; nil for digits, punctuation and symbols.
    public static func of(_ scalar: Unicode.Scalar) -> WrittenScript? {
        switch scalar.value {
        case 0x41...0x5A, 0x61...0x7A, 0xC0...0x24F, 0x1E00...0x1EFF: .latin
        case 0x900...0x97F, 0xA8E0...0xA8FF: .devanagari
        case 0x3040...0x30FF, 0x31F0...0x31FF, 0xFF66...0xFF9F: .kana
        case 0x1100...0x11FF, 0x3130...0x318F, 0xAC00...0xD7AF: .hangul
        case 0x3400...0x4DBF, 0x4E00...0x9FFF, 0xF900...0xFAFF: .han
        default: nil
        }
    }
}
