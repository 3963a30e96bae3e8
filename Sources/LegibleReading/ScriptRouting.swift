public import LegibleCore

/// Which script's recognizer reads each detected line of a frame read script by script.
///
/// There is one recognizer per script, shared by every session; a frame of several scripts
/// is read by the first script's engine (which also detects the lines), then by the other
/// scripts' engines for the lines it did not read with confidence, each of those engines
/// reading all the lines handed to it at once. A line's script comes from what was read:
/// the Unicode script of its letters, when a recognizer can write another script's letters
/// (every script's recognizer also writes Latin; Korean's less reliably: `readersWritingLatin`),
/// and otherwise the recognizers' own confidences. Tesseract's OSD, the other candidate, needs at least 50 characters by
/// default and named 13 of 20 clean rendered single lines right with its minimum lowered to
/// 3 (see the README), so it is not used.
///
/// A line's second readers (`SecondOpinionRecognizer`: PP-OCR or a second Tesseract model) are
/// asked after every candidate meant for the line has read it, once each, and only those of
/// the candidates whose readings were unsure and close to the best (`secondReaders`). Asking
/// each candidate's second reader while the line was still being routed made the first frame
/// of an automatic session two to three times slower.
///
/// A value type, moved with the frame from engine to engine.
public struct ScriptRouting: Sendable, Codable {
    /// A line read with at least this mean confidence, in its reader's own script, is done.
    public static let sureConfidence: Float = 0.8
    /// Kanji alone do not tell Chinese from Japanese, and PP-OCR's Chinese recognizer reads a
    /// Japanese line as its kanji without the kana at 0.8–0.9 (its Chinese lines read at
    /// 0.99–1.0; generated Japanese scenes, seeds 0–4): below this, the other Han script's
    /// recognizer, when a candidate, reads the line too and the surer reading is kept.
    public static let sureHanConfidence: Float = 0.95

    /// Once a line has a sure reading, another script's reading of it is re-read by that
    /// script's second reader only when it is this close: on a sign's "港区 MINATO CITY" eng
    /// read "@# & MINATOCITY" at 0.87 and jpn 0.80 (PP-OCR then read it right at 1.0), where
    /// eng's readings of Japanese, Chinese and Korean lines that their own scripts read at
    /// 0.93–1.0 scored 0–0.63 (generated scenes, seed 100; mixed-sign-no-litter-minato).
    public static let secondReadingMargin: Float = 0.15

    /// These scripts' recognizers write a Latin line in Latin letters (`bench/probes/
    /// latin_in_other_readers.py`: every Latin line of generated two-script signs, seeds 0–4, and
    /// of the corpus's tune-part photos, e.g. "India Post" and "BIHIYA" by the Devanagari model):
    /// when one writes its own script's letters, with at least `settlingConfidence`, the line is
    /// in its script (`settledBy`), and a Latin reader's letters for it are a guess: on a
    /// station sign PP-OCRv6 read the Devanagari name बिहिया as "fafear" at 0.73, where the
    /// Devanagari model read it at 0.45 (bench/corpus, deva-sign-bihiya-station, tune part).
    /// Not Korean: `kor` wrote every Latin line of those signs in Hangul, at 0.90–0.93.
    public static let readersWritingLatin: Set<Script> = [.devanagari, .chinese, .japanese]
    /// The least confidence of a reading in its reader's own letters that settles its line
    /// (`readersWritingLatin`); Devanagari's model read that station name at 0.45–0.49.
    public static let settlingConfidence: Float = 0.4

    /// The candidate scripts, in the session's order; the first one's engine reads first.
    public let scripts: [Script]
    /// The detected lines (already filtered by detection score), in the upright image.
    public let lines: [DetectedLine]
    /// Per line, the best reading so far, in its strip's pixels, with the map to the image.
    public private(set) var best: [Reading?]
    /// Per line, the scripts whose recognizers have read it.
    public private(set) var tried: [Set<Script>]
    /// Per line, what each script's recognizer read of it.
    public private(set) var readingsByScript: [[Script: Reading]]
    /// Per line, the scripts still to try, the likeliest first.
    public private(set) var wanted: [[Script]]
    /// Per line, the scripts whose second readers have had their turn.
    public private(set) var secondReadBy: [Set<Script>]
    /// Per line, the script whose recognizer wrote its own letters for it
    /// (`settlingConfidence`): Latin's recognizers no longer read it, nor win it.
    public private(set) var settledBy: [Script?]
    /// Per script whose engine has read, the confidence under which its second reader reads a
    /// line again (`Recognizer.secondReadingThreshold`; 0: it has none).
    public private(set) var secondReadingBelow: [Script: Float] = [:]
    /// Scripts whose second reader also reads a sure line that may have lost its accents
    /// (`SecondOpinionRecognizer.checksAccents`).
    public private(set) var checksAccents: Set<Script> = []

    /// One recognizer's reading of a line.
    public struct Reading: Sendable, Codable {
        public var line: TextLine
        public var toImage: AffineMap
        public var script: Script

        public init(line: TextLine, toImage: AffineMap, script: Script) {
            self.line = line
            self.toImage = toImage
            self.script = script
        }

        /// Confidence, lowered when the letters read are not the reader's script (a Devanagari
        /// model reading an English word): such a reading is a guess in a foreign alphabet. A
        /// line of mostly Latin letters with some of the reader's own (kanji and Latin read by
        /// the Japanese model) is not: every model writes Latin too.
        var score: Float {
            guard let written = WrittenScript.dominant(in: line.text) else { return line.confidence }
            if written.isRead(by: script) || (written == .latin && WrittenScript.has(script, in: line.text)) {
                return line.confidence
            }
            return line.confidence - 0.1
        }
    }

    public init(scripts: [Script], lines: [DetectedLine]) {
        precondition(!scripts.isEmpty, "routing needs a script")
        self.scripts = scripts
        self.lines = lines
        best = Array(repeating: nil, count: lines.count)
        tried = Array(repeating: [], count: lines.count)
        readingsByScript = Array(repeating: [:], count: lines.count)
        wanted = Array(repeating: [scripts[0]], count: lines.count)
        secondReadBy = Array(repeating: [], count: lines.count)
        settledBy = Array(repeating: nil, count: lines.count)
    }

    /// Whether `reading` settles its line's script (`settlingConfidence`).
    static func settles(_ reading: Reading) -> Bool {
        guard readersWritingLatin.contains(reading.script), reading.line.confidence >= settlingConfidence,
            let written = WrittenScript.dominant(in: reading.line.text)
        else { return false }
        return written != .latin && written.isRead(by: reading.script)
    }

    /// Whether `reading` may take line `index` from its best reading so far: a surer one may,
    /// but for a Latin reader's on a line another script settled; a settling reading takes a
    /// line from a Latin reader's however sure.
    func replacesBest(_ reading: Reading, line index: Int) -> Bool {
        guard let current = best[index] else { return true }
        if current.script == .latin, Self.settles(reading) { return true }
        if settledBy[index] != nil, reading.script == .latin { return false }
        return reading.score > current.score
    }

    /// The script whose engine should read next: the first candidate some line still wants,
    /// or whose second reader is to read a line.
    public var nextScript: Script? {
        scripts.first { script in
            wanted.contains { $0.first == script } || !secondReadingLines(for: script).isEmpty
        }
    }

    /// The lines `script`'s second reader is to read now: lines every candidate meant for
    /// them has read, among whose `secondReaders` `script` is, not yet asked.
    public func secondReadingLines(for script: Script) -> [Int] {
        wanted.indices.filter { index in
            wanted[index].isEmpty && !secondReadBy[index].contains(script)
                && secondReaders(of: index).contains(script)
        }
    }

    /// The scripts whose second readers read line `index`: of its readings less sure than
    /// their reader's second-reader threshold, the surest and those within
    /// `secondReadingMargin` of it (beside a sure reading, only those within that margin of
    /// the sure one); for a line nobody read, the first script's. A sure reading in letters
    /// foreign to its reader does not take the turn from the second reader of the script those
    /// letters are: PP-OCRv4's Chinese reader read a German line "GroBe der StraBe" at 0.97
    /// (it has no ö or ß), where the Latin second reader reads "Größe der Straße".
    func secondReaders(of index: Int) -> [Script] {
        func asks(_ script: Script, _ line: TextLine?) -> Bool {
            (line?.confidence ?? 0) < (secondReadingBelow[script] ?? 0)
                || SecondOpinionRecognizer.accentsInDoubt(line, checksAccents: checksAccents.contains(script))
        }
        let readings = scripts.compactMap { readingsByScript[index][$0] }
        guard let surest = readings.max(by: { $0.score < $1.score }) else {
            return asks(scripts[0], nil) ? [scripts[0]] : []
        }
        let unsure = readings.filter { asks($0.script, $0.line) }
        guard let top = unsure.map(\.line.confidence).max() else { return [] }
        let floor =
            (surest.score >= Self.sureConfidence ? surest.line.confidence : top) - Self.secondReadingMargin
        let lettersOwner =
            surest.score < surest.line.confidence
            ? WrittenScript.dominant(in: surest.line.text).flatMap { written in
                scripts.first { written.isRead(by: $0) }
            } : nil
        return scripts.filter { script in
            unsure.contains { $0.script == script && ($0.line.confidence >= floor || script == lettersOwner) }
                && !(script == .latin && settledBy[index] != nil)
        }
    }

    /// What `script`'s recognizer read of line `index`, if it read anything.
    public func reading(of index: Int, by script: Script) -> Reading? { readingsByScript[index][script] }

    /// Notes the threshold of `script`'s second reader, before its engine reads.
    public mutating func setSecondReadingThreshold(_ below: Float, checksAccents: Bool = false, for script: Script) {
        secondReadingBelow[script] = below
        if checksAccents { self.checksAccents.insert(script) } else { self.checksAccents.remove(script) }
    }

    /// Records what `script`'s second reader made of line `index` (`Recognizer.secondReading`:
    /// the surer of that script's reading and the second model's); it replaces the best
    /// reading when it scores higher, or when the best is that script's own reading.
    public mutating func recordSecondReading(_ reading: Reading?, line index: Int, by script: Script) {
        secondReadBy[index].insert(script)
        // The second reader chose between its script's reading and its own: when that script's
        // reading is the best, the choice stands (accents given back may score no higher).
        if let reading, best[index]?.script == reading.script || replacesBest(reading, line: index) {
            best[index] = reading
            if Self.settles(reading) { settledBy[index] = script }
        }
    }

    /// The lines `script`'s engine is to read now.
    public func lines(for script: Script) -> [Int] {
        wanted.indices.filter { wanted[$0].first == script }
    }

    /// Records what `script`'s recognizer read of line `index` (nil: nothing) and decides
    /// which script, if any, reads it next.
    public mutating func record(_ reading: Reading?, line index: Int, by script: Script) {
        tried[index].insert(script)
        readingsByScript[index][script] = reading
        wanted[index].removeAll { $0 == script }
        if let reading, replacesBest(reading, line: index) {
            best[index] = reading
            if Self.settles(reading) { settledBy[index] = script }
        }
        defer { if settledBy[index] != nil { wanted[index].removeAll { $0 == .latin } } }
        let untried = scripts.filter { !tried[index].contains($0) }
        guard let reading else {
            wanted[index] = untried
            return
        }
        let written = WrittenScript.dominant(in: reading.line.text)
        if written == .han, reading.line.confidence < Self.sureHanConfidence,
            let other = untried.first(where: { $0 != script && WrittenScript.han.isRead(by: $0) })
        {
            wanted[index] = [other]
            return
        }
        if let written, written.isRead(by: script), reading.line.confidence >= Self.sureConfidence {
            wanted[index] = []
            return
        }
        // Letters of another candidate script: that script's recognizer reads them best.
        if let written, let other = untried.first(where: { written.isRead(by: $0) }), !written.isRead(by: script) {
            wanted[index] = [other]
            return
        }
        // Unsure, or letters no candidate writes: the best reading so far stays unless another
        // script's recognizer is surer.
        let sureSoFar = best[index].map { $0.score >= Self.sureConfidence } ?? false
        wanted[index] = sureSoFar ? [] : untried
    }

    /// The lines read, each the best reading of its line, in the upright image's pixels.
    public var readings: [Reading] { best.compactMap { $0 } }
}
