import LegibleCommandLine

/// A one-line progress bar on standard error while several files are read, redrawn in place
/// with a carriage return. Only when standard error is a terminal: a pipe or a log file never
/// gets control characters.
///
/// Output on standard output goes through `print(_:)`, which takes the bar off the line first
/// and puts it back after, so the two never share a line on a terminal.
struct ProgressBar {
    let total: Int
    let enabled: Bool
    private var done = 0
    private var current = ""
    private var shown = false

    init(total: Int, isTerminal: Bool = StandardStream.error.isTerminal) {
        self.total = total
        enabled = total > 1 && isTerminal
    }

    /// Now working on `name`, with `done` files finished.
    mutating func update(done: Int, current name: String) {
        self.done = done
        current = name
        draw()
    }

    /// Writes `text` to standard output around the bar.
    mutating func print(_ text: String) {
        guard !text.isEmpty else { return }
        clear()
        StandardStream.output.write(text)
        draw()
    }

    /// Writes `text` to standard error around the bar.
    mutating func printError(_ text: String) {
        clear()
        StandardStream.error.write(text)
        draw()
    }

    /// Removes the bar (at the end).
    mutating func finish() {
        clear()
    }

    private mutating func draw() {
        guard enabled else { return }
        let width = 30
        let filled = total > 0 ? width * done / total : width
        var name = current
        if name.count > 40 { name = "…" + name.suffix(39) }
        StandardStream.error.write(
            "\r[" + String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled)
                + "] \(done)/\(total) \(name)\u{1B}[K")
        shown = true
    }

    private mutating func clear() {
        guard enabled, shown else { return }
        StandardStream.error.write("\r\u{1B}[K")
        shown = false
    }
}
