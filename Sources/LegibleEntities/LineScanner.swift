internal import LegibleCore

/// A candidate span of the joined line, in UTF-8 byte offsets (`end` exclusive).
struct Match {
    var kind: EntityKind
    var start: Int
    var end: Int

    var length: Int { end - start }

    /// Breaks ties between overlapping spans of equal length: card > date > phone, e-mail > URL.
    var priority: Int {
        switch kind {
        case .paymentCard: 5
        case .date: 4
        case .phoneNumber: 3
        case .emailAddress: 2
        case .url: 1
        }
    }
}

/// Scans one line at a time; its buffers are kept between lines so a whole result costs a
/// handful of allocations, not a few per line.
///
/// The line is the element texts joined with single spaces, as UTF-8 bytes. `starts` and
/// `ends` map byte offsets back to elements, so a match reports the frames of exactly the
/// elements it touches.
struct LineScanner {
    var bytes: [UInt8] = []
    var starts: [Int] = []
    var ends: [Int] = []
    var matches: [Match] = []
    var accepted: [Match] = []
    /// Digit-group lengths and the separator before each group, for the number scanner.
    var groups: [Int] = []
    var separators: [UInt8] = []

    mutating func scan(_ elements: ArraySlice<TextElement>, kinds: Set<EntityKind>, into found: inout [Entity]) {
        bytes.removeAll(keepingCapacity: true)
        starts.removeAll(keepingCapacity: true)
        ends.removeAll(keepingCapacity: true)
        matches.removeAll(keepingCapacity: true)
        for element in elements {
            if !starts.isEmpty { bytes.append(Byte.space) }
            starts.append(bytes.count)
            bytes.append(contentsOf: element.text.utf8)
            ends.append(bytes.count)
        }

        var hasDigit = false
        var hasAt = false
        var hasDot = false
        var hasColon = false
        for byte in bytes {
            if isDigit(byte) {
                hasDigit = true
            } else if byte == Byte.at {
                hasAt = true
            } else if byte == Byte.dot {
                hasDot = true
            } else if byte == Byte.colon {
                hasColon = true
            }
        }
        // Dates go first: the number scanner stops at them, so "05.03.2024 030 1234567" keeps
        // its phone number instead of becoming one 18-digit run that is neither.
        if hasDigit {
            scanDates()
            scanNumbers()
        }
        if hasAt && hasDot { scanEmails() }
        if hasDot || hasColon { scanURLs() }
        guard !matches.isEmpty else { return }
        resolveOverlaps()
        for match in accepted where kinds.contains(match.kind) {
            found.append(entity(for: match, in: elements))
        }
    }

    /// Keeps one entity per span of text: the longest candidate wins, then the higher priority.
    ///
    /// Longest first makes a URL that contains a date ("example.com/2024-03-05") or an e-mail
    /// address that contains a bare domain stay whole; priority decides equal spans.
    private mutating func resolveOverlaps() {
        accepted.removeAll(keepingCapacity: true)
        if matches.count == 1 {
            accepted.append(matches[0])
            return
        }
        matches.sort { a, b in
            if a.length != b.length { return a.length > b.length }
            if a.priority != b.priority { return a.priority > b.priority }
            return a.start < b.start
        }
        for match in matches where !accepted.contains(where: { $0.start < match.end && match.start < $0.end }) {
            accepted.append(match)
        }
        accepted.sort { $0.start < $1.start }
    }

    private func entity(for match: Match, in elements: ArraySlice<TextElement>) -> Entity {
        var frames: [Rect] = []
        // The first element that ends after the match starts (ends are ascending).
        var low = 0
        var high = ends.count
        while low < high {
            let middle = (low + high) / 2
            if ends[middle] <= match.start { low = middle + 1 } else { high = middle }
        }
        var index = low
        while index < starts.count && starts[index] < match.end {
            if ends[index] > starts[index] { frames.append(elements[elements.startIndex + index].frame) }
            index += 1
        }
        return Entity(
            kind: match.kind, text: String(decoding: bytes[match.start..<match.end], as: UTF8.self), frames: frames)
    }
}

// MARK: Bytes

enum Byte {
    static let space = UInt8(ascii: " ")
    static let at = UInt8(ascii: "@")
    static let dot = UInt8(ascii: ".")
    static let comma = UInt8(ascii: ",")
    static let colon = UInt8(ascii: ":")
    static let slash = UInt8(ascii: "/")
    static let dash = UInt8(ascii: "-")
    static let plus = UInt8(ascii: "+")
    static let underscore = UInt8(ascii: "_")
    static let openParen = UInt8(ascii: "(")
    static let closeParen = UInt8(ascii: ")")
}

@inline(__always) func isDigit(_ byte: UInt8) -> Bool { byte &- 48 < 10 }
@inline(__always) func isLetter(_ byte: UInt8) -> Bool { (byte | 0x20) &- 97 < 26 }
@inline(__always) func isUpper(_ byte: UInt8) -> Bool { byte &- 65 < 26 }
@inline(__always) func isAlphanumeric(_ byte: UInt8) -> Bool { isDigit(byte) || isLetter(byte) }

extension LineScanner {
    /// The byte at `offset`, or 0 past either end: lets the scanners look ahead without bounds tests.
    @inline(__always) func byte(_ offset: Int) -> UInt8 {
        offset >= 0 && offset < bytes.count ? bytes[offset] : 0
    }

    /// Whether the character ending just before `offset` is part of a word (a letter or digit
    /// of any script, or `_`): matches must not start in the middle of one.
    func isWordBefore(_ offset: Int) -> Bool {
        guard offset > 0 else { return false }
        let previous = bytes[offset - 1]
        if previous < 0x80 { return isAlphanumeric(previous) || previous == Byte.underscore }
        var lead = offset - 1
        while lead > 0 && bytes[lead] & 0xC0 == 0x80 && offset - lead < 4 { lead -= 1 }
        return isWordScalar(at: lead)
    }

    /// Whether the character starting at `offset` is part of a word: matches must not end in one.
    func isWordAt(_ offset: Int) -> Bool {
        guard offset < bytes.count else { return false }
        let next = bytes[offset]
        if next < 0x80 { return isAlphanumeric(next) || next == Byte.underscore }
        return isWordScalar(at: offset)
    }

    /// Whether `offset` follows a digit and a separator a number could continue through (so it
    /// is the fraction of a decimal, the minutes of a time or the second half of a range).
    func continuesNumber(before offset: Int) -> Bool {
        guard offset >= 2, isDigit(bytes[offset - 2]) else { return false }
        switch bytes[offset - 1] {
        case Byte.dot, Byte.comma, Byte.colon, Byte.slash, Byte.dash: return true
        default: return false
        }
    }

    /// Whether a number continues past `offset` through such a separator.
    func continuesNumber(after offset: Int) -> Bool {
        guard isDigit(byte(offset + 1)) else { return false }
        switch byte(offset) {
        case Byte.dot, Byte.comma, Byte.colon, Byte.slash, Byte.dash: return true
        default: return false
        }
    }

    /// Decodes the UTF-8 sequence at `lead`; letters and digits of any script are word characters.
    func isWordScalar(at lead: Int) -> Bool {
        let first = bytes[lead]
        var value: UInt32
        var count: Int
        switch first {
        case 0xC0...0xDF: (value, count) = (UInt32(first & 0x1F), 2)
        case 0xE0...0xEF: (value, count) = (UInt32(first & 0x0F), 3)
        case 0xF0...0xF7: (value, count) = (UInt32(first & 0x07), 4)
        default: return false
        }
        guard lead + count <= bytes.count else { return false }
        for index in lead + 1..<lead + count {
            value = value << 6 | UInt32(bytes[index] & 0x3F)
        }
        guard let scalar = Unicode.Scalar(value) else { return false }
        return scalar.properties.isAlphabetic || scalar.properties.numericType != nil
    }

    /// Whether the letters at `offset` spell `word` (lowercase ASCII), in any case.
    func hasWord(_ word: StaticString, at offset: Int) -> Bool {
        guard offset + word.utf8CodeUnitCount <= bytes.count else { return false }
        return word.withUTF8Buffer { letters in
            for index in letters.indices where bytes[offset + index] | 0x20 != letters[index] | 0x20 {
                return false
            }
            return true
        }
    }
}

/// Packs up to 12 ASCII letters, case folded, into one integer: month names and TLDs are then
/// found with integer compares instead of string building.
func packedLetters(_ bytes: ArraySlice<UInt8>) -> UInt64? {
    guard bytes.count <= 12 else { return nil }
    var key: UInt64 = 0
    for byte in bytes {
        guard isLetter(byte) else { return nil }
        key = key << 5 | UInt64((byte | 0x20) - 96)
    }
    return key
}

func packedLetters(_ word: String) -> UInt64 {
    packedLetters(Array(word.utf8)[...])!
}
