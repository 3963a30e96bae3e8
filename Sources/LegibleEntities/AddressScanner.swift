internal import LegibleCore

/// E-mail addresses and URLs.
///
/// Both end where OCR'd prose usually puts punctuation right after them, so trailing `.`, `,`,
/// `;`, `:`, `!`, `?`, `'` and an unbalanced `)` are left out ("(see example.com/docs).").
extension LineScanner {
    /// local@domain.tld: a local part of letters, digits and `._%+-` (not starting or ending with
    /// a dot, no two dots in a row) and a host of at least two labels with an alphabetic TLD.
    mutating func scanEmails() {
        // Backward scans of the local part stop here, so each byte is read a bounded number of times.
        var floor = 0
        var index = 0
        while index < bytes.count {
            guard bytes[index] == Byte.at else {
                index += 1
                continue
            }
            let at = index
            var start = at
            while start > floor && isLocalPartByte(bytes[start - 1]) { start -= 1 }
            while start < at && !isAlphanumeric(bytes[start]) && bytes[start] != Byte.underscore { start += 1 }
            index = at + 1
            floor = index
            guard start < at, bytes[at - 1] != Byte.dot, !isWordBefore(start), !hasDoubleDot(from: start, to: at)
            else { continue }
            let host = readHost(from: index)
            guard host.labels >= 2, isAlphabeticTLD(host), !isWordAt(host.end), byte(host.end) != Byte.at else {
                continue
            }
            matches.append(Match(kind: .emailAddress, start: start, end: host.end))
            index = host.end
            floor = index
        }
    }

    /// `http://` and `https://` URLs; `www.` hosts with any alphabetic TLD; bare hosts whose TLD
    /// is on a short list. Each may go on with a port, path, query and fragment.
    ///
    /// The TLD list keeps bare hosts to what looks like a web address: "3.14", "1.2.3",
    /// "report.pdf" and "done.it" (a missing space after a full stop) are not URLs. A host right
    /// after `@` is an e-mail's, and one right before `@` is a local part.
    mutating func scanURLs() {
        var index = 0
        while index < bytes.count {
            guard isAlphanumeric(bytes[index]), !blocksURL(before: index) else {
                index += 1
                continue
            }
            if let end = url(at: index) {
                matches.append(Match(kind: .url, start: index, end: end))
                index = end
                continue
            }
            // Skip the rest of this host-like token; nothing inside it can start a URL.
            index += 1
            while index < bytes.count && (isAlphanumeric(bytes[index]) || bytes[index] == Byte.dash) {
                index += 1
            }
        }
    }

    private func url(at start: Int) -> Int? {
        var schemeEnd: Int?
        if hasWord("http://", at: start) {
            schemeEnd = start + 7
        } else if hasWord("https://", at: start) {
            schemeEnd = start + 8
        }
        if let schemeEnd {
            guard isAlphanumeric(byte(schemeEnd)) else { return nil }
            let end = trimmedURLEnd(start: start, end: urlCharactersEnd(from: schemeEnd))
            return end > schemeEnd ? end : nil
        }

        let host = readHost(from: start)
        guard host.labels >= 2, isAlphabeticTLD(host), !isWordAt(host.end), byte(host.end) != Byte.at else {
            return nil
        }
        if hasWord("www.", at: start) {
            guard host.labels >= 3 else { return nil }
        } else {
            guard let key = packedLetters(bytes[host.lastLabel..<host.end]), TopLevelDomains.keys.contains(key) else {
                return nil
            }
        }
        var end = host.end
        if byte(end) == Byte.colon && isDigit(byte(end + 1)) {
            end += 1
            while isDigit(byte(end)) { end += 1 }
        }
        let next = byte(end)
        if next == Byte.slash || next == UInt8(ascii: "?") || next == UInt8(ascii: "#") {
            end = urlCharactersEnd(from: end)
        }
        return trimmedURLEnd(start: start, end: end)
    }

    /// Whether a host starting at `offset` would be the tail of something else: a word, a longer
    /// dotted name, an e-mail domain, or a path or query of a URL found (or refused) already.
    private func blocksURL(before offset: Int) -> Bool {
        guard offset > 0 else { return false }
        switch bytes[offset - 1] {
        case Byte.dot, Byte.dash, Byte.at, Byte.underscore, Byte.plus, UInt8(ascii: "%"), UInt8(ascii: "&"),
            UInt8(ascii: "="), UInt8(ascii: "~"), Byte.slash:
            return true
        default:
            return isWordBefore(offset)
        }
    }

    /// The end of the URL characters from `offset`: RFC 3986's unreserved, reserved and `%`, and
    /// letters and digits of any script (a path as printed, "example.com/über", not as encoded).
    private func urlCharactersEnd(from offset: Int) -> Int {
        var end = offset
        while end < bytes.count {
            if isURLByte(bytes[end]) {
                end += 1
            } else if bytes[end] >= 0xC0 && isWordScalar(at: end) {
                end += 1
                while end < bytes.count && bytes[end] & 0xC0 == 0x80 { end += 1 }
            } else {
                break
            }
        }
        return end
    }

    /// `end` moved back over trailing punctuation and closing parentheses the URL did not open.
    private func trimmedURLEnd(start: Int, end: Int) -> Int {
        // Opened minus closed parentheses; below zero, a trailing ")" closes something outside.
        var depth = 0
        for byte in bytes[start..<end] {
            if byte == Byte.openParen {
                depth += 1
            } else if byte == Byte.closeParen {
                depth -= 1
            }
        }
        var end = end
        while end > start {
            switch bytes[end - 1] {
            case Byte.dot, Byte.comma, UInt8(ascii: ";"), Byte.colon, UInt8(ascii: "!"), UInt8(ascii: "?"),
                UInt8(ascii: "'"):
                end -= 1
            case Byte.closeParen where depth < 0:
                end -= 1
                depth += 1
            default:
                return end
            }
        }
        return end
    }

    /// Dot-separated labels of letters, digits and inner dashes from `offset`: how many, where
    /// the last begins, and where they end (never on a dot or dash).
    private func readHost(from offset: Int) -> (labels: Int, lastLabel: Int, end: Int) {
        var labels = 0
        var lastLabel = offset
        var end = offset
        var cursor = offset
        while isAlphanumeric(byte(cursor)) {
            let labelStart = cursor
            while isAlphanumeric(byte(cursor)) || byte(cursor) == Byte.dash { cursor += 1 }
            guard bytes[cursor - 1] != Byte.dash else { break }
            labels += 1
            lastLabel = labelStart
            end = cursor
            guard byte(cursor) == Byte.dot else { break }
            cursor += 1
        }
        return (labels, lastLabel, end)
    }

    private func isAlphabeticTLD(_ host: (labels: Int, lastLabel: Int, end: Int)) -> Bool {
        host.end - host.lastLabel >= 2 && bytes[host.lastLabel..<host.end].allSatisfy(isLetter)
    }

    private func hasDoubleDot(from start: Int, to end: Int) -> Bool {
        var previous: UInt8 = 0
        for byte in bytes[start..<end] {
            if byte == Byte.dot && previous == Byte.dot { return true }
            previous = byte
        }
        return false
    }

    private func isLocalPartByte(_ byte: UInt8) -> Bool {
        isAlphanumeric(byte) || byte == Byte.dot || byte == Byte.underscore || byte == Byte.dash
            || byte == Byte.plus || byte == UInt8(ascii: "%")
    }

    private func isURLByte(_ byte: UInt8) -> Bool {
        if isAlphanumeric(byte) { return true }
        switch byte {
        case Byte.dash, Byte.dot, Byte.underscore, UInt8(ascii: "~"), Byte.colon, Byte.slash, UInt8(ascii: "?"),
            UInt8(ascii: "#"), UInt8(ascii: "["), UInt8(ascii: "]"), Byte.at, UInt8(ascii: "!"), UInt8(ascii: "$"),
            UInt8(ascii: "&"), UInt8(ascii: "'"), Byte.openParen, Byte.closeParen, UInt8(ascii: "*"), Byte.plus,
            Byte.comma, UInt8(ascii: ";"), UInt8(ascii: "="), UInt8(ascii: "%"):
            return true
        default:
            return false
        }
    }
}

private enum TopLevelDomains {
    /// Generic and common country TLDs, packed by `packedLetters`. Deliberately short, and
    /// without TLDs that are everyday words after a missing space ("it", "in", "is", "me", "to",
    /// "us", "no", "so", "be").
    static let keys: [UInt64] = [
        "com", "org", "net", "edu", "gov", "mil", "int", "info", "biz", "io", "co", "ai", "app", "dev", "tv",
        "de", "uk", "fr", "nl", "ch", "at", "eu", "es", "ca", "au", "jp", "cn", "ru", "se", "dk", "pl", "br",
    ].map(packedLetters)
}
