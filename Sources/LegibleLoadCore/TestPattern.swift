internal import LegibleCore

/// Gray test frames with real text in them, made in-process so that a load run needs no image
/// files: lines of upper-case words and numbers drawn with a 5×7 dot font (scaled up), on a
/// lit gradient with sensor noise. Tesseract reads them as text, so the server does real work;
/// each frame of a set has different words, so consecutive frames differ as a moving camera's
/// do. Deterministic: `(width, height, seed, index)` fixes every pixel.
public enum TestPattern {
    /// An 8-bit gray image, rows of `width` bytes, and the text drawn in it (lines joined by "\n").
    public struct Image: Sendable, Hashable {
        public var width: Int
        public var height: Int
        public var pixels: [UInt8]
        public var text: String
    }

    static let words = [
        "LEGIBLE", "CAMERA", "STREAM", "FRAME", "TEXT", "LOAD", "TEST", "SERVER", "READ", "LINE", "WORD", "EXIT",
        "OPEN", "DOOR", "PLATFORM", "TRAIN", "MILK", "BREAD", "PRICE", "TOTAL", "NORTH", "SOUTH", "EAST", "WEST",
    ]

    public static func render(width: Int, height: Int, seed: UInt64, index: Int) -> Image {
        precondition(width >= 16 && height >= 16, "a test frame is at least 16x16")
        var random = SplitMix64(seed: seed &* 0x1000_0001 &+ UInt64(index))
        // Dot size: about 10 text lines of 10 dots fit the height.
        let dot = max(1, height / 100)
        let columns = max(1, (width - 4 * dot) / (6 * dot))
        let lineCount = max(1, min(4, (height - 4 * dot) / (14 * dot)))
        var lines: [String] = []
        for _ in 0..<lineCount {
            var line = ""
            while true {
                let word =
                    Bool.random(using: &random)
                    ? words.randomElement(using: &random)! : String(Int.random(in: 10...9999, using: &random))
                let candidate = line.isEmpty ? word : line + " " + word
                if candidate.count > columns { break }
                line = candidate
            }
            if line.isEmpty { line = String(words[0].prefix(columns)) }
            lines.append(line)
        }

        // Background: a light diagonal gradient (lighting) plus noise of ±6 levels.
        var pixels = [UInt8](repeating: 0, count: width * height)
        let base = Int.random(in: 175...215, using: &random)
        for y in 0..<height {
            for x in 0..<width {
                let shade = base + 30 * (x + y) / (width + height) - 15
                let noise = Int(random.next() % 13) - 6
                pixels[y * width + x] = UInt8(clamping: shade + noise)
            }
        }
        // Text: dark dots, the block of lines centered vertically.
        let ink = UInt8(Int.random(in: 20...60, using: &random))
        let lineHeight = 14 * dot
        var top = max(2 * dot, (height - lineCount * lineHeight) / 2)
        for line in lines {
            var left = max(2 * dot, (width - line.count * 6 * dot) / 2)
            for character in line {
                if let rows = font[character] {
                    for (row, bits) in rows.enumerated() {
                        for column in 0..<5 where bits & (0b10000 >> column) != 0 {
                            fill(
                                &pixels, width: width, height: height, x: left + column * dot, y: top + row * dot,
                                size: dot, ink)
                        }
                    }
                }
                left += 6 * dot
            }
            top += lineHeight
        }
        return Image(width: width, height: height, pixels: pixels, text: lines.joined(separator: "\n"))
    }

    private static func fill(
        _ pixels: inout [UInt8], width: Int, height: Int, x: Int, y: Int, size: Int, _ value: UInt8
    ) {
        for row in y..<min(y + size, height) where row >= 0 {
            for column in x..<min(x + size, width) where column >= 0 {
                pixels[row * width + column] = value
            }
        }
    }

    /// A 5×7 dot font (the HD44780's shapes): seven rows of five bits, the high bit leftmost.
    static let font: [Character: [UInt8]] = [
        "A": [0b01110, 0b10001, 0b10001, 0b10001, 0b11111, 0b10001, 0b10001],
        "B": [0b11110, 0b10001, 0b10001, 0b11110, 0b10001, 0b10001, 0b11110],
        "C": [0b01110, 0b10001, 0b10000, 0b10000, 0b10000, 0b10001, 0b01110],
        "D": [0b11100, 0b10010, 0b10001, 0b10001, 0b10001, 0b10010, 0b11100],
        "E": [0b11111, 0b10000, 0b10000, 0b11110, 0b10000, 0b10000, 0b11111],
        "F": [0b11111, 0b10000, 0b10000, 0b11110, 0b10000, 0b10000, 0b10000],
        "G": [0b01110, 0b10001, 0b10000, 0b10111, 0b10001, 0b10001, 0b01111],
        "H": [0b10001, 0b10001, 0b10001, 0b11111, 0b10001, 0b10001, 0b10001],
        "I": [0b01110, 0b00100, 0b00100, 0b00100, 0b00100, 0b00100, 0b01110],
        "J": [0b00111, 0b00010, 0b00010, 0b00010, 0b00010, 0b10010, 0b01100],
        "K": [0b10001, 0b10010, 0b10100, 0b11000, 0b10100, 0b10010, 0b10001],
        "L": [0b10000, 0b10000, 0b10000, 0b10000, 0b10000, 0b10000, 0b11111],
        "M": [0b10001, 0b11011, 0b10101, 0b10101, 0b10001, 0b10001, 0b10001],
        "N": [0b10001, 0b10001, 0b11001, 0b10101, 0b10011, 0b10001, 0b10001],
        "O": [0b01110, 0b10001, 0b10001, 0b10001, 0b10001, 0b10001, 0b01110],
        "P": [0b11110, 0b10001, 0b10001, 0b11110, 0b10000, 0b10000, 0b10000],
        "Q": [0b01110, 0b10001, 0b10001, 0b10001, 0b10101, 0b10010, 0b01101],
        "R": [0b11110, 0b10001, 0b10001, 0b11110, 0b10100, 0b10010, 0b10001],
        "S": [0b01111, 0b10000, 0b10000, 0b01110, 0b00001, 0b00001, 0b11110],
        "T": [0b11111, 0b00100, 0b00100, 0b00100, 0b00100, 0b00100, 0b00100],
        "U": [0b10001, 0b10001, 0b10001, 0b10001, 0b10001, 0b10001, 0b01110],
        "V": [0b10001, 0b10001, 0b10001, 0b10001, 0b10001, 0b01010, 0b00100],
        "W": [0b10001, 0b10001, 0b10001, 0b10101, 0b10101, 0b10101, 0b01010],
        "X": [0b10001, 0b10001, 0b01010, 0b00100, 0b01010, 0b10001, 0b10001],
        "Y": [0b10001, 0b10001, 0b10001, 0b01010, 0b00100, 0b00100, 0b00100],
        "Z": [0b11111, 0b00001, 0b00010, 0b00100, 0b01000, 0b10000, 0b11111],
        "0": [0b01110, 0b10001, 0b10011, 0b10101, 0b11001, 0b10001, 0b01110],
        "1": [0b00100, 0b01100, 0b00100, 0b00100, 0b00100, 0b00100, 0b01110],
        "2": [0b01110, 0b10001, 0b00001, 0b00010, 0b00100, 0b01000, 0b11111],
        "3": [0b11111, 0b00010, 0b00100, 0b00010, 0b00001, 0b10001, 0b01110],
        "4": [0b00010, 0b00110, 0b01010, 0b10010, 0b11111, 0b00010, 0b00010],
        "5": [0b11111, 0b10000, 0b11110, 0b00001, 0b00001, 0b10001, 0b01110],
        "6": [0b00110, 0b01000, 0b10000, 0b11110, 0b10001, 0b10001, 0b01110],
        "7": [0b11111, 0b00001, 0b00010, 0b00100, 0b01000, 0b01000, 0b01000],
        "8": [0b01110, 0b10001, 0b10001, 0b01110, 0b10001, 0b10001, 0b01110],
        "9": [0b01110, 0b10001, 0b10001, 0b01111, 0b00001, 0b00010, 0b01100],
    ]
}
