public import LegibleCore

/// Finds phone numbers, e-mail addresses, URLs, dates and payment-card numbers in recognized
/// text: the server side of the data detection camera UIs do (Apple's `NSDataDetector`).
///
/// Each line is scanned on its own, so a match never crosses a line: OCR lines are the only
/// reliable unit of adjacency, and a number continued on the next line is more often two
/// numbers than one. The scanners are hand-written over the line's UTF-8 bytes, one left-to-right
/// pass each with no backtracking, because this runs on an engine thread once per frame.
///
/// Matching is ASCII: digits, separators and Latin month names. Non-ASCII letters only matter as
/// word characters, so "Müller@example.com" is not cut down to "ller@example.com".
public enum EntityDetector {
    /// Entities found line by line (a match never crosses a line), in reading order.
    ///
    /// Text mode reads `blocks[i].lines`. A block without lines (document mode as it arrives
    /// from some clients) is read from its paragraphs' `words`, cut into lines after each word
    /// whose `recognizedBreak` is `.eolSureSpace`, `.lineBreak` or `.hyphen` (every paragraph
    /// also ends a line). Blocks with both are read from their lines, which hold the same words.
    ///
    /// `kinds` filters what is reported, not what is looked for: a card number is still a card
    /// (and so not a phone number) when only phone numbers are asked for.
    public static func entities(
        in text: RecognizedText, kinds: Set<EntityKind> = Set(EntityKind.allCases)
    ) -> [Entity] {
        guard !kinds.isEmpty else { return [] }
        var scanner = LineScanner()
        var found: [Entity] = []
        for block in text.blocks {
            if !block.lines.isEmpty {
                for line in block.lines {
                    scanner.scan(line.elements[...], kinds: kinds, into: &found)
                }
                continue
            }
            for paragraph in block.paragraphs {
                let words = paragraph.words
                var lineStart = words.startIndex
                for index in words.indices where endsLine(words[index].recognizedBreak) {
                    scanner.scan(words[lineStart...index], kinds: kinds, into: &found)
                    lineStart = index + 1
                }
                if lineStart < words.endIndex {
                    scanner.scan(words[lineStart...], kinds: kinds, into: &found)
                }
            }
        }
        return found
    }

    /// The same for one line given as its elements (text + frame each).
    public static func entities(
        inElements elements: [TextElement], kinds: Set<EntityKind> = Set(EntityKind.allCases)
    ) -> [Entity] {
        guard !kinds.isEmpty else { return [] }
        var scanner = LineScanner()
        var found: [Entity] = []
        scanner.scan(elements[...], kinds: kinds, into: &found)
        return found
    }

    /// Whether a document-mode word is the last of its line. A prefix break belongs to the
    /// word's start, so it never ends a line.
    private static func endsLine(_ recognizedBreak: RecognizedBreak?) -> Bool {
        guard let recognizedBreak, !recognizedBreak.isPrefix else { return false }
        switch recognizedBreak.kind {
        case .eolSureSpace, .lineBreak, .hyphen: return true
        case .unknown, .space, .sureSpace: return false
        }
    }
}
