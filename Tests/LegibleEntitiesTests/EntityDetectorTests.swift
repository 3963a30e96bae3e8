import LegibleCore
import LegibleEntities
import Testing

/// One line as OCR gives it: an element per space-separated word, element `i` at x = 100·i.
private func line(_ text: String) -> [TextElement] {
    text.split(separator: " ").enumerated().map { index, word in
        TextElement(text: String(word), frame: frame(index), confidence: 90, recognizedLanguages: ["en"])
    }
}

private func frame(_ index: Int) -> Rect { Rect(x: Int32(index * 100), y: 0, width: 80, height: 20) }
private func frames(_ indices: ClosedRange<Int>) -> [Rect] { indices.map(frame) }

private func found(_ text: String, kinds: Set<EntityKind> = Set(EntityKind.allCases)) -> [Entity] {
    EntityDetector.entities(inElements: line(text), kinds: kinds)
}

/// The kind and text of everything found, for comparisons that do not care about frames.
private func summary(_ text: String) -> [String] {
    found(text).map { "\($0.kind): \($0.text)" }
}

@Suite("Entities: each kind")
struct EntityKindTests {
    @Test func internationalPhoneNumberSpansItsFourElements() {
        #expect(
            found("Call +49 30 1234 5678 today")
                == [Entity(kind: .phoneNumber, text: "+49 30 1234 5678", frames: frames(1...4))])
    }

    @Test(arguments: [
        "(555) 123-4567", "030 1234567", "555-1234", "555.123.4567", "+44 (0)20 7946 0958", "+1-212-555-0123",
        "0171 1234 5678", "+493012345678", "01 23 45 67 89",
    ])
    func phoneFormats(_ number: String) {
        #expect(summary("Tel \(number) ask") == ["phone_number: \(number)"])
    }

    @Test func loneDigitAfterTheNumberIsNotPartOfIt() {
        #expect(summary("Call 555-1234 7 days a week") == ["phone_number: 555-1234"])
    }

    @Test func emailWithoutTrailingFullStop() {
        #expect(
            found("Write to jane.doe+cam@mail.example.co.uk.")
                == [Entity(kind: .emailAddress, text: "jane.doe+cam@mail.example.co.uk", frames: [frame(2)])])
    }

    @Test func emailInParenthesesAndAfterLabel() {
        #expect(summary("(jane@example.com)") == ["email_address: jane@example.com"])
        #expect(summary("mailto:ops@example.org,") == ["email_address: ops@example.org"])
    }

    @Test(arguments: [
        ("Go to https://example.com/a?b=1, now", "https://example.com/a?b=1"),
        ("Visit www.example.org.", "www.example.org"),
        ("Docs at example.io/docs/start;", "example.io/docs/start"),
        ("(see shop.example.de/help)", "shop.example.de/help"),
        ("Wiki https://en.wikipedia.org/wiki/Foo_(bar).", "https://en.wikipedia.org/wiki/Foo_(bar)"),
        ("HTTP://EXAMPLE.COM:8080/x", "HTTP://EXAMPLE.COM:8080/x"),
        ("Dev server http://localhost:8080/x", "http://localhost:8080/x"),
        ("Menü: example.de/über»", "example.de/über"),
    ])
    func urls(_ text: String, _ url: String) {
        #expect(summary(text) == ["url: \(url)"])
    }

    @Test func emailIsNotAlsoAURL() {
        #expect(summary("Mail jane@example.com today") == ["email_address: jane@example.com"])
    }

    @Test(arguments: [
        "2024-03-05", "05/03/2024", "5.3.2024", "03/05/24", "3 March 2024", "March 3, 2024", "3 Mar 2024", "Mar 3",
        "3rd of March, 2024", "Sept. 30", "29.02.2024",
    ])
    func dates(_ date: String) {
        #expect(summary("Due \(date) latest") == ["date: \(date)"])
    }

    @Test func isoDateFollowedByItsTime() {
        #expect(summary("Start 2024-03-05T10:00") == ["date: 2024-03-05"])
    }

    @Test func dateSpansItsThreeElements() {
        #expect(
            found("Issued 3 March 2024 in Berlin")
                == [Entity(kind: .date, text: "3 March 2024", frames: frames(1...3))])
    }

    @Test(arguments: ["2024-13-05", "31.02.2024", "29.02.2023", "32 March", "March 0", "0/0/2024", "5.3.1850"])
    func impossibleDatesAreNotDates(_ text: String) {
        #expect(found("Due \(text) latest").filter { $0.kind == .date }.isEmpty)
    }

    @Test func cardSpansItsFourElements() {
        #expect(
            found("Card 4111 1111 1111 1111 exp")
                == [Entity(kind: .paymentCard, text: "4111 1111 1111 1111", frames: frames(1...4))])
    }

    @Test(arguments: ["4111-1111-1111-1111", "4111111111111111", "3782 822463 10005", "5555 5555 5555 4444"])
    func cardFormats(_ number: String) {
        #expect(summary("Pay \(number)") == ["payment_card: \(number)"])
    }

    @Test(arguments: ["4111 1111 1111 1112", "1234 5678 9012 3456", "4111111111111112", "4111-1111-1111-1112"])
    func nonLuhnNumberIsNeitherCardNorPhone(_ number: String) {
        #expect(found("Pay \(number)").isEmpty)
    }
}

@Suite("Entities: what is not an entity")
struct FalsePositiveTests {
    @Test(arguments: [
        "Order 58213 ships Monday morning",
        "Contact support at extension 4471",
        "Warehouse Delivery Schedule 2024",
        "Update to version 1.2.3 or 10.0.19041.1",
        "Total 12.50 incl. VAT",
        "Menu 12.50 14.99 9.99 3.14",
        "Population 1 234 567 and 1.234.567",
        "Pages 1200-1450 of the 2023-2024 season",
        "Server 192.168.1.1 port 8080",
        "Open 10:30-18:00 daily",
        "See report.pdf, e.g. the summary.",
        "Tracking 00340434161094042557",
        "Item 123456789012",
        "we march on, day 3 may be late",
        "Price: 1,299.99 or 12,345,678.90",
        "ISBN 978-3-16-148410-0",
        "ISBN 0-306-40615-2",
        "ISBN 978 3 16 148410 0",
        // Luhn-valid and grouped like a card, but the rest of an IBAN.
        "IBAN DE89 3704 0044 0532 0130 01",
    ])
    func ordinaryCameraText(_ text: String) {
        #expect(found(text) == [])
    }

    @Test func nonASCIILetterIsPartOfTheWord() {
        // Not "ller@example.de": a local part cut in the middle of a name is wrong, not partial.
        #expect(found("Müller@example.de") == [])
    }
}

@Suite("Entities: overlaps, order, filters, input shapes")
struct EntityBehaviourTests {
    @Test func urlKeepsTheDateInItsPath() {
        #expect(summary("example.com/2024-03-05/news") == ["url: example.com/2024-03-05/news"])
    }

    @Test func phoneNumberNextToADateSurvives() {
        #expect(summary("Call 030 1234567 on 05.03.2024") == ["phone_number: 030 1234567", "date: 05.03.2024"])
        #expect(summary("05.03.2024 030 1234567") == ["date: 05.03.2024", "phone_number: 030 1234567"])
        // Read on into the date, the run would be one 18-digit number that is neither.
        #expect(summary("030 1234567 05.03.2024") == ["phone_number: 030 1234567", "date: 05.03.2024"])
    }

    @Test func severalKindsOnOneLineInReadingOrder() {
        #expect(
            summary("Mail ops@example.com or call +1 212 555 0123 before March 3 www.example.com")
                == [
                    "email_address: ops@example.com", "phone_number: +1 212 555 0123", "date: March 3",
                    "url: www.example.com",
                ])
    }

    @Test func matchInsideAnElementReportsThatElement() {
        #expect(
            found("Tel:+49 30 1234 5678")
                == [Entity(kind: .phoneNumber, text: "+49 30 1234 5678", frames: frames(0...3))])
    }

    @Test func kindsFilterWhatIsReported() {
        let text = "ops@example.com 030 1234567"
        #expect(found(text, kinds: [.phoneNumber]).map(\.text) == ["030 1234567"])
        #expect(found(text, kinds: [.emailAddress]).map(\.text) == ["ops@example.com"])
        #expect(found(text, kinds: []) == [])
    }

    @Test func cardIsNotAPhoneNumberWhenOnlyPhonesAreAskedFor() {
        #expect(found("4111 1111 1111 1111", kinds: [.phoneNumber]) == [])
    }

    @Test func emptyInputFindsNothing() {
        #expect(EntityDetector.entities(in: RecognizedText()) == [])
        #expect(EntityDetector.entities(inElements: []) == [])
        let blank = TextElement(text: "", frame: frame(0), confidence: 0, recognizedLanguages: [])
        #expect(EntityDetector.entities(inElements: [blank, blank]) == [])
    }

    @Test func textModeReadsEveryLineAndNeverJoinsThem() {
        let first = TextLine(
            text: "", frame: frame(0), confidence: 90, recognizedLanguages: [], elements: line("Tel +49 30"))
        let second = TextLine(
            text: "", frame: frame(0), confidence: 90, recognizedLanguages: [], elements: line("1234 5678 3 Mar"))
        let text = RecognizedText(blocks: [
            TextBlock(text: "", frame: frame(0), confidence: 90, recognizedLanguages: [], lines: [first]),
            TextBlock(text: "", frame: frame(0), confidence: 90, recognizedLanguages: [], lines: [second]),
        ])
        // "+49 30 1234 5678" would be a phone number if the lines ran together.
        #expect(EntityDetector.entities(in: text) == [Entity(kind: .date, text: "3 Mar", frames: frames(2...3))])
    }

    @Test func documentModeCutsParagraphWordsIntoLinesAtBreaks() {
        func word(_ text: String, _ index: Int, _ kind: RecognizedBreak.Kind? = nil) -> TextElement {
            TextElement(
                text: text, frame: frame(index), confidence: 90, recognizedLanguages: [],
                recognizedBreak: kind.map { RecognizedBreak(kind: $0) })
        }
        func paragraph(_ words: [TextElement]) -> TextParagraph {
            TextParagraph(text: "", frame: frame(0), confidence: 90, recognizedLanguages: [], words: words)
        }
        let block = TextBlock(
            text: "", frame: frame(0), confidence: 90, recognizedLanguages: [], lines: [],
            paragraphs: [
                paragraph([
                    word("Issued", 0, .space), word("3", 1, .space), word("March", 2, .space),
                    word("2024", 3, .eolSureSpace),
                    word("Tel", 0, .space), word("+49", 1, .space), word("30", 2, .eolSureSpace),
                    word("1234", 0, .space), word("5678", 1, .space), word("www.example.com", 2, .lineBreak),
                ]),
                // No breaks at all: the paragraph's end still ends the line, so no "Mar 3 2024".
                paragraph([word("Mar", 0), word("3", 1)]),
                paragraph([word("2024", 0)]),
            ])
        // Read as one line, the first paragraph would also hold the phone number "+49 30 1234 5678".
        #expect(
            EntityDetector.entities(in: RecognizedText(blocks: [block]))
                == [
                    Entity(kind: .date, text: "3 March 2024", frames: frames(1...3)),
                    Entity(kind: .url, text: "www.example.com", frames: [frame(2)]),
                    Entity(kind: .date, text: "Mar 3", frames: frames(0...1)),
                ])
    }
}
