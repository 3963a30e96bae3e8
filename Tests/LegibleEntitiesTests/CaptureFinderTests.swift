import LegibleCore
import LegibleEntities
import Testing

/// A result whose lines are `lines`, each word an element at x = 100·i on row y = 40·line.
private func result(_ lines: [String], confidence: Float = 0.9) -> RecognizedText {
    let textLines = lines.enumerated().map { row, line in
        let elements = line.split(separator: " ").enumerated().map { index, word in
            TextElement(
                text: String(word), frame: Rect(x: Int32(index * 100), y: Int32(row * 40), width: 80, height: 20),
                confidence: confidence, recognizedLanguages: ["en"])
        }
        return TextLine(
            text: line, frame: Rect(x: 0, y: Int32(row * 40), width: 1000, height: 20), confidence: confidence,
            recognizedLanguages: ["en"], elements: elements)
    }
    let block = TextBlock(
        text: lines.joined(separator: "\n"), frame: Rect(x: 0, y: 0, width: 1000, height: 40 * Int32(lines.count)),
        confidence: confidence, recognizedLanguages: ["en"], lines: textLines)
    return RecognizedText(text: block.text, blocks: [block], imageWidth: 1280, imageHeight: 720)
}

@Suite("Capture goals: linear-time patterns")
struct LinearPatternTests {
    @Test func aSerialNumberPatternFindsOnlyWhatItDescribes() throws {
        let pattern = try LinearPattern(#"[A-Z]{2}-\d{6}"#)
        #expect(
            pattern.matches(in: "Serial AB-123456, not A-123456 nor AB-12345; CD-654321") == ["AB-123456", "CD-654321"])
        #expect(pattern.matches(in: "no serial here").isEmpty)
    }

    @Test(arguments: [
        ("(", "missing )"), (#"(a)\1"#, "invalid escape"), ("a{2,1}", "invalid repetition size"), ("", "empty"),
    ])
    func aPatternThatDoesNotCompileIsInvalidArgumentWithTheReason(pattern: String, reason: String) {
        #expect {
            _ = try LinearPattern(pattern)
        } throws: { error in
            guard let error = error as? LegibleError else { return false }
            return error.code == .invalidArgument && error.message.contains(reason)
        }
    }

    @Test func aPatternPastItsSizeIsRefused() {
        #expect(throws: LegibleError.self) { _ = try LinearPattern(String(repeating: "a", count: 513)) }
    }

    /// `(a+)+$` against a's ending in b is exponential for a backtracking engine (Swift's Regex,
    /// POSIX regcomp, PCRE): Python's `re` took 0.05 s at 20 a's and 0.63 s at 24, about twice
    /// as long for each a more (one run, stop 39). RE2 reads the line once: 100,000 characters
    /// are given 1 s here (this test's whole run took 3 ms in a debug build).
    @Test func aPatternBuiltToExplodeBacktrackingRunsInLinearTime() throws {
        let pattern = try LinearPattern("(a+)+$")
        let line = String(repeating: "a", count: 100_000) + "b"
        let clock = ContinuousClock()
        let started = clock.now
        let found = pattern.matches(in: line)
        let took = clock.now - started
        #expect(found.isEmpty)
        #expect(took < .seconds(1), "took \(took)")
        // And it still matches when the line allows it.
        #expect(pattern.matches(in: "aaaa") == ["aaaa"])
    }
}

@Suite("Capture goals: finding values")
struct CaptureFinderTests {
    @Test func entityValuesAreNormalizedSoThatOneValueReadDifferentlyIsOne() throws {
        let finder = try CaptureFinder(goals: [
            CaptureGoal(name: "phone", target: .entity(.phoneNumber)),
            CaptureGoal(name: "email", target: .entity(.emailAddress)),
            CaptureGoal(name: "card", target: .entity(.paymentCard)),
        ])
        let first = finder.candidates(
            in: result(["Tel +49 30 1234 5678", "Jane.Doe@Example.com", "4111 1111 1111 1111"]))
        let second = finder.candidates(in: result(["Tel +49 3012345678", "jane.doe@example.com", "4111111111111111"]))
        #expect(first.map(\.value) == ["+493012345678", "jane.doe@example.com", "4111111111111111"])
        #expect(second.map(\.value) == first.map(\.value))
        #expect(first.map(\.goal) == ["phone", "email", "card"])
        // The phone number's frames are its four elements on the first line.
        #expect(first[0].frames.count == 4 && first[0].frames.allSatisfy { $0.y == 0 })
        #expect(abs(first[0].confidence - 0.9) < 0.001)
    }

    @Test func aCardNumberThatFailsLuhnIsNoCandidate() throws {
        let finder = try CaptureFinder(goals: [CaptureGoal(name: "card", target: .entity(.paymentCard))])
        #expect(finder.candidates(in: result(["4111 1111 1111 1112"])).isEmpty)
    }

    @Test func aPatternMatchMapsToTheElementsItSpans() throws {
        let finder = try CaptureFinder(goals: [CaptureGoal(name: "serial", target: .pattern(#"S/N [A-Z]{2}-\d{6}"#))])
        let found = finder.candidates(in: result(["Model X1", "S/N AB-123456 made in 2024"]))
        #expect(found.map(\.value) == ["S/N AB-123456"])
        #expect(
            found[0].frames == [Rect(x: 0, y: 40, width: 80, height: 20), Rect(x: 100, y: 40, width: 80, height: 20)])
    }

    @Test func badGoalsAreInvalidArgument() {
        let bad: [[CaptureGoal]] = [
            [CaptureGoal(name: "", target: .entity(.url))],
            [CaptureGoal(name: "a", target: .entity(.url)), CaptureGoal(name: "a", target: .entity(.date))],
            [CaptureGoal(name: "a", target: .entity(.url), confirmations: 0)],
            [CaptureGoal(name: "a", target: .pattern("(unclosed"))],
            (0...CaptureFinder.maxGoals).map { CaptureGoal(name: "g\($0)", target: .entity(.url)) },
        ]
        for goals in bad {
            #expect(throws: LegibleError.self) { _ = try CaptureFinder(goals: goals) }
        }
    }
}
