internal import LegibleCore

/// Dates: numeric (2024-03-05, 05/03/2024, 5.3.2024, 03/05/24) and with an English month name
/// (3 March 2024, 3rd of March, 2024, March 3, 2024, 3 Mar 2024, Mar 3).
///
/// Every date is validated (month 1–12, a day that exists in that month; February 29 only in a
/// leap year when the year is known), which is what keeps version numbers and part numbers out.
extension LineScanner {
    mutating func scanDates() {
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if (isDigit(byte) || isUpper(byte)) && !isWordBefore(index) && !continuesNumber(before: index) {
                let end = isDigit(byte) ? numericOrDayFirstDate(at: index) : monthFirstDate(at: index)
                if let end {
                    matches.append(Match(kind: .date, start: index, end: end))
                    index = end
                    continue
                }
            }
            index += 1
        }
    }

    /// "2024-03-05", "05.03.2024", "3/5/24", or "3 March 2024" / "3rd of Mar" (day first).
    private func numericOrDayFirstDate(at start: Int) -> Int? {
        let first = number(at: start)
        guard first.count <= 4 else { return nil }
        let separator = byte(first.end)
        if separator == Byte.dash || separator == Byte.slash || separator == Byte.dot, isDigit(byte(first.end + 1)) {
            let second = number(at: first.end + 1)
            guard byte(second.end) == separator, isDigit(byte(second.end + 1)) else { return nil }
            let third = number(at: second.end + 1)
            guard isNumericDate(first, second, third, separator: separator) else { return nil }
            // Not "1.2.2024.5" or "05.03.2024,5": the number goes on. An ISO date may be followed
            // by its time ("2024-03-05T10:00"); the date is still only the date.
            let end = third.end
            let isoTime = first.count == 4 && byte(end) == UInt8(ascii: "T") && isDigit(byte(end + 1))
            guard !isWordAt(end) || isoTime, !(byte(end) == separator && isDigit(byte(end + 1))) else { return nil }
            guard !((byte(end) == Byte.dot || byte(end) == Byte.comma) && isDigit(byte(end + 1))) else { return nil }
            return end
        }

        guard first.count <= 2, (1...31).contains(first.value) else { return nil }
        var offset = first.end
        if hasOrdinalSuffix(at: offset) {
            offset += 2
        } else if byte(offset) == Byte.dot {
            offset += 1  // "3. März" style: "3. March 2024"
        }
        guard byte(offset) == Byte.space else { return nil }
        offset += 1
        if hasWord("of ", at: offset) { offset += 3 }
        guard let month = monthName(at: offset) else { return nil }
        let year = yearAfter(month.end)
        guard isValidDay(first.value, month: month.month, year: year?.value) else { return nil }
        return year?.end ?? month.end
    }

    /// "March 3, 2024", "Mar 3", "Sept. 3rd 2024".
    private func monthFirstDate(at start: Int) -> Int? {
        guard let month = monthName(at: start), byte(month.end) == Byte.space, isDigit(byte(month.end + 1)) else {
            return nil
        }
        let day = number(at: month.end + 1)
        guard day.count <= 2, (1...31).contains(day.value) else { return nil }
        var end = day.end
        if hasOrdinalSuffix(at: end) { end += 2 }
        guard !isWordAt(end) else { return nil }
        if let year = yearAfter(end) {
            guard isValidDay(day.value, month: month.month, year: year.value) else { return nil }
            return year.end
        }
        // "Mar 3.5" or "Mar 10:30" is something else.
        guard !continuesNumber(after: end) else { return nil }
        guard isValidDay(day.value, month: month.month, year: nil) else { return nil }
        return end
    }

    /// A four-digit year (1000–2999) after an optional comma and a space: ", 2024" or " 2024".
    private func yearAfter(_ offset: Int) -> (value: Int, end: Int)? {
        var start = offset
        if byte(start) == Byte.comma { start += 1 }
        guard byte(start) == Byte.space, isDigit(byte(start + 1)) else { return nil }
        let year = number(at: start + 1)
        guard year.count == 4, (1000...2999).contains(year.value), !isWordAt(year.end),
            !continuesNumber(after: year.end)
        else { return nil }
        return (year.value, year.end)
    }

    /// Year-month-day with a four-digit year first; otherwise day and month (either order, except
    /// with dots, which are day-first everywhere they are used) and a year of four digits, or of
    /// two when day and month have two digits each or the separator is a slash ("1.2.24" is more
    /// often a version than a date; "3/5/24" is a date).
    private func isNumericDate(_ first: Digits, _ second: Digits, _ third: Digits, separator: UInt8) -> Bool {
        if first.count == 4 {
            return second.count <= 2 && third.count <= 2 && (1900...2099).contains(first.value)
                && isValidDay(third.value, month: second.value, year: first.value)
        }
        guard first.count <= 2, second.count <= 2 else { return false }
        let year: Int
        if third.count == 4 {
            guard (1900...2099).contains(third.value) else { return false }
            year = third.value
        } else if third.count == 2, separator == Byte.slash || (first.count == 2 && second.count == 2) {
            year = 2000 + third.value
        } else {
            return false
        }
        if isValidDay(first.value, month: second.value, year: year) { return true }
        return separator != Byte.dot && isValidDay(second.value, month: first.value, year: year)
    }

    private func isValidDay(_ day: Int, month: Int, year: Int?) -> Bool {
        guard (1...12).contains(month), day >= 1 else { return false }
        switch month {
        case 2:
            guard let year else { return day <= 29 }
            let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
            return day <= (leap ? 29 : 28)
        case 4, 6, 9, 11: return day <= 30
        default: return day <= 31
        }
    }

    /// "st", "nd", "rd" or "th" right after a day, ending the word.
    private func hasOrdinalSuffix(at offset: Int) -> Bool {
        (hasWord("st", at: offset) || hasWord("nd", at: offset) || hasWord("rd", at: offset)
            || hasWord("th", at: offset)) && !isWordAt(offset + 2)
    }

    /// An English month name or abbreviation starting with a capital letter ("March", "MAR",
    /// "Sept."), a whole word. Lowercase is refused because "march" and "may" are verbs far more
    /// often than months in running text.
    private func monthName(at start: Int) -> (month: Int, end: Int)? {
        guard isUpper(byte(start)) else { return nil }
        var end = start
        while end < bytes.count && isLetter(bytes[end]) { end += 1 }
        guard end - start >= 3, !isWordAt(end), let key = packedLetters(bytes[start..<end]) else { return nil }
        for (index, names) in Months.keys.enumerated() {
            if key == names.full { return (index + 1, end) }
            if names.abbreviations.contains(key) {
                return (index + 1, byte(end) == Byte.dot ? end + 1 : end)
            }
        }
        return nil
    }
}

/// The value and extent of a run of ASCII digits.
struct Digits {
    var value: Int
    var count: Int
    var end: Int
}

extension LineScanner {
    /// The digits starting at `start`; the value saturates past nine digits (only the count matters then).
    func number(at start: Int) -> Digits {
        var value = 0
        var end = start
        while end < bytes.count && isDigit(bytes[end]) {
            if end - start < 9 { value = value * 10 + Int(bytes[end] &- 48) }
            end += 1
        }
        return Digits(value: value, count: end - start, end: end)
    }
}

private enum Months {
    /// Per month, its full name and abbreviations, packed by `packedLetters`.
    static let keys: [(full: UInt64, abbreviations: [UInt64])] = [
        ("january", ["jan"]), ("february", ["feb"]), ("march", ["mar"]), ("april", ["apr"]), ("may", []),
        ("june", ["jun"]), ("july", ["jul"]), ("august", ["aug"]), ("september", ["sep", "sept"]),
        ("october", ["oct"]), ("november", ["nov"]), ("december", ["dec"]),
    ].map { (packedLetters($0.0), $0.1.map(packedLetters)) }
}
