internal import LegibleCore

/// Phone numbers and payment-card numbers: both are runs of digit groups, so one scanner reads
/// each run once, whole, and decides what it is.
///
/// A run is an optional `+`, then digit groups separated by one space, dash or dot, where a
/// group may be parenthesized ("(030)", "(0)", "(+49)"). Runs are taken whole and never cut into
/// smaller numbers: "1234 5678 9012 3456" that fails the Luhn check is not a card and is not a
/// 12-digit phone number hiding inside one either.
extension LineScanner {
    mutating func scanNumbers() {
        // The dates found so far, in order; a run never reaches into one.
        let dateCount = matches.count
        var nextDate = 0
        var index = 0
        while index < bytes.count {
            while nextDate < dateCount && matches[nextDate].end <= index { nextDate += 1 }
            if nextDate < dateCount && matches[nextDate].start <= index {
                index = matches[nextDate].end
                continue
            }
            let limit = nextDate < dateCount ? matches[nextDate].start : bytes.count
            guard canStartRun(at: index), let end = readRun(from: index, limit: limit) else {
                index += 1
                continue
            }
            if !isWordAt(end), !continuesNumber(after: end), let kind = classifyRun(from: index, to: end) {
                matches.append(Match(kind: kind, start: index, end: end))
            }
            index = end
        }
    }

    private func canStartRun(at offset: Int) -> Bool {
        let first = bytes[offset]
        let next = byte(offset + 1)
        switch first {
        case Byte.plus: guard isDigit(next) else { return false }
        case Byte.openParen: guard isDigit(next) || next == Byte.plus else { return false }
        default:
            guard isDigit(first), byte(offset - 1) != Byte.plus, !continuesNumber(before: offset) else { return false }
        }
        return !isWordBefore(offset)
    }

    /// Reads the longest run starting at `start` that ends before `limit`; fills `groups` (digit
    /// counts) and `separators` (the byte before each group: space, dash, dot, or 0 for none or
    /// a parenthesis). Returns the end, or nil when not even one group is there.
    ///
    /// Greedy and without backtracking: each byte is read once, whatever the run turns out to be.
    private mutating func readRun(from start: Int, limit: Int) -> Int? {
        groups.removeAll(keepingCapacity: true)
        separators.removeAll(keepingCapacity: true)
        @inline(__always) func at(_ offset: Int) -> UInt8 { offset < limit ? bytes[offset] : 0 }

        var offset = start
        if at(offset) == Byte.plus { offset += 1 }
        var end = -1
        var previousEnd = -1
        var separator: UInt8 = 0
        while true {
            var cursor = offset
            let parenthesized = at(cursor) == Byte.openParen
            if parenthesized {
                cursor += 1
                if at(cursor) == Byte.plus && groups.isEmpty && at(start) != Byte.plus { cursor += 1 }
            }
            let digitsStart = cursor
            while isDigit(at(cursor)) { cursor += 1 }
            let count = cursor - digitsStart
            guard count > 0 else { break }
            if parenthesized {
                guard at(cursor) == Byte.closeParen else { break }
                cursor += 1
            }
            groups.append(count)
            separators.append(parenthesized ? 0 : separator)
            previousEnd = end
            end = cursor

            // The separator before the next group, if one follows.
            let next = at(cursor)
            if next == Byte.space || next == Byte.dash || next == Byte.dot {
                let after = at(cursor + 1)
                guard isDigit(after) || (after == Byte.openParen && next == Byte.space) else { break }
                separator = next
                offset = cursor + 1
            } else if next == Byte.openParen || (parenthesized && isDigit(next)) {
                separator = 0  // "+49(0)30", "(0)30", "(555)123-4567"
                offset = cursor
            } else {
                break
            }
        }
        guard end >= 0 else { return nil }
        // A lone digit after a space is the next thing on the line ("555-1234 7 days"), not part
        // of the number: no numbering plan ends in a one-digit group set off by a space.
        if groups.count >= 2 && groups.last == 1 && separators.last == Byte.space {
            groups.removeLast()
            separators.removeLast()
            end = previousEnd
        }
        return end
    }

    /// What the run `groups`/`separators` describe is, if anything.
    ///
    /// Neither, whatever its shape, right after an IBAN's "CC99 ".
    ///
    /// Card: no `+`, parentheses or dots; one kind of separator; 12–19 digits grouped as cards
    /// are printed (ungrouped, fours with a shorter last group, or Amex/Diners 4-6-5 and 4-6-4);
    /// a first digit of 2–6 (the payment industries: Visa, Mastercard, Amex, Discover, JCB,
    /// UnionPay, Maestro) and the Luhn check. A run that is a card in everything but the Luhn
    /// check is a misread or made-up card number, so it is nothing, not a phone number; and no
    /// phone number has more than 15 digits (E.164), so neither is any longer run.
    ///
    /// Phone: 7–15 digits; dots only alone (not mixed with spaces, so a row of prices
    /// "12.50 14.99 9.99" is not a number). With `+` that is all. Without it the run must have a
    /// separator or parentheses (a bare digit string is an order, invoice or tracking number far
    /// more often), must not be an ISBN, and with dots must have groups of two digits or more
    /// and not be an IPv4 address. Without parentheses either, it must not read as something else:
    /// - no one-digit group but the first ("1-800-…") or the last ("030 12345-0", a switchboard);
    /// - two groups only when the first starts with a trunk 0 ("030 1234567") or it is 3+4
    ///   ("555-1234"), so ranges and years ("1200-1450", "2023-2024") stay out;
    /// - not a date shape (4-2-2, 2-2-4 with one of `-./`): "2024-13-45" is a typo, not a phone;
    /// - not thousands grouping ("1 234 567", "1.234.567": first group 1–3 digits not starting
    ///   with 0, then threes).
    private func classifyRun(from start: Int, to end: Int) -> EntityKind? {
        let plus = bytes[start] == Byte.plus || byte(start + 1) == Byte.plus
        var digits = 0
        var firstDigit: UInt8 = 0
        var parentheses = false
        for offset in start..<end {
            let byte = bytes[offset]
            if isDigit(byte) {
                if digits == 0 { firstDigit = byte }
                digits += 1
            } else if byte == Byte.openParen {
                parentheses = true
            }
        }
        // "DE89 3704 0044 0532 0130 00": the rest of an IBAN, grouped like a card.
        if followsIBANCountryCode(start) { return nil }
        var spaces = false
        var dashes = false
        var dots = false
        // Dots mixed with another separator; the one after "+CC" does not count.
        var dotsMixed = false
        for index in separators.indices.dropFirst() {
            switch separators[index] {
            case Byte.space: spaces = true
            case Byte.dash: dashes = true
            case Byte.dot: dots = true
            default: break
            }
            if separators[index] != Byte.dot && !(plus && index == 1) { dotsMixed = true }
        }

        if !plus && !parentheses && !dots && !(spaces && dashes) && (12...19).contains(digits)
            && isCardShaped && (UInt8(ascii: "2")...UInt8(ascii: "6")).contains(firstDigit)
        {
            return passesLuhn(from: start, to: end) ? .paymentCard : nil
        }
        guard (7...15).contains(digits) else { return nil }
        if dots && dotsMixed { return nil }
        if plus { return .phoneNumber }
        if !parentheses && !dots && isISBN(from: start, to: end, digits: digits) { return nil }
        guard groups.count >= 2 else { return nil }
        if dots {
            guard groups.allSatisfy({ $0 >= 2 }), !(groups.count == 4 && groups.allSatisfy { $0 <= 3 }) else {
                return nil
            }
        }
        if parentheses { return .phoneNumber }
        let zero = UInt8(ascii: "0")
        if groups.count == 2 && firstDigit != zero && groups != [3, 4] { return nil }
        if groups.dropFirst().dropLast().contains(1) { return nil }
        if groups.count == 3 && separators[1] == separators[2] && separators[1] != Byte.space
            && ((groups[0] == 4 && groups[1] <= 2 && groups[2] <= 2)
                || (groups[0] <= 2 && groups[1] <= 2 && groups[2] == 4))
        {
            return nil
        }
        if firstDigit != zero && groups[0] <= 3 && groups.dropFirst().allSatisfy({ $0 == 3 }) && !dashes {
            return nil
        }
        return .phoneNumber
    }

    /// Whether the run is a hyphenated or spaced ISBN ("978-3-16-148410-0", "0-306-40615-2"):
    /// 10 digits in four groups or 13 in five starting 978/979, with a valid check digit. Every
    /// book's back cover has one, and they are shaped like phone numbers.
    private func isISBN(from start: Int, to end: Int, digits: Int) -> Bool {
        guard (groups.count == 4 && digits == 10) || (groups.count == 5 && digits == 13) else { return false }
        var sum = 0
        var position = 0
        var prefix = 0
        for offset in start..<end where isDigit(bytes[offset]) {
            let digit = Int(bytes[offset] &- 48)
            if digits == 10 {
                sum += (10 - position) * digit
            } else {
                sum += (position % 2 == 0 ? 1 : 3) * digit
                if position < 3 { prefix = prefix * 10 + digit }
            }
            position += 1
        }
        return digits == 10 ? sum % 11 == 0 : (prefix == 978 || prefix == 979) && sum % 10 == 0
    }

    /// Whether the run follows "CC99 " (two capitals, two digits, a space), an IBAN's start.
    private func followsIBANCountryCode(_ start: Int) -> Bool {
        start >= 5 && bytes[start - 1] == Byte.space && isUpper(bytes[start - 5]) && isUpper(bytes[start - 4])
            && isDigit(bytes[start - 3]) && isDigit(bytes[start - 2]) && !isWordBefore(start - 5)
    }

    /// Whether `groups` is grouped the way card numbers are printed.
    private var isCardShaped: Bool {
        if groups.count == 1 { return true }
        if groups == [4, 6, 5] || groups == [4, 6, 4] { return true }
        return groups.dropLast().allSatisfy { $0 == 4 } && groups.last! <= 4
    }

    /// The Luhn check over the digits between `start` and `end`.
    private func passesLuhn(from start: Int, to end: Int) -> Bool {
        var sum = 0
        var double = false
        var offset = end
        while offset > start {
            offset -= 1
            let byte = bytes[offset]
            guard isDigit(byte) else { continue }
            var digit = Int(byte &- 48)
            if double {
                digit *= 2
                if digit > 9 { digit -= 9 }
            }
            sum += digit
            double.toggle()
        }
        return sum % 10 == 0
    }
}
