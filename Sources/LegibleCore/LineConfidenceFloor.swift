/// The mean word confidence under which a detected line is not answered (no invented text),
/// by the script of the model that read it. Models do not share one scale: Tesseract's
/// Devanagari models read the corpus's sign photographs right with words at confidences from
/// 0.1 to 0.6, where the other scripts' floor of 0.5 left those lines out (tune part, Devanagari
/// CER 0.476 at 0.5; with edge marks trimmed (`LineReader.trimmingEdgeMarks`) 0.113 at every
/// floor from 0.05 to 0.15, 0.309 from 0.2, 0.133 at 0, which lets a smudge through), while no
/// text-free frame read as Devanagari answered any line even at 0
/// (`bench/probes/clutter_by_script.py`): the detector's own score keeps clutter out.
public struct LineConfidenceFloor: Sendable, Equatable, CustomStringConvertible {
    /// The floor of scripts not in `byScript`.
    public var standard: Float
    public var byScript: [Script: Float]

    /// 0.5, and 0.1 for the scripts whose models read right at low confidences
    /// (`Script.readsRightAtLowConfidence`).
    public static let `default` = LineConfidenceFloor(
        standard: 0.5,
        byScript: Dictionary(
            uniqueKeysWithValues: Script.allCases.filter(\.readsRightAtLowConfidence).map { ($0, 0.1) }))

    public init(standard: Float, byScript: [Script: Float] = [:]) {
        self.standard = standard
        self.byScript = byScript
    }

    /// `0.5` (every script), or a list such as `0.5,devanagari=0.1` (the scripts named get
    /// theirs, the others the bare number, 0.5 when there is none); as `description` writes it.
    public init(parsing text: String) throws(LegibleError) {
        func fraction(_ text: some StringProtocol) throws(LegibleError) -> Float {
            guard let value = Float(text), (0...1).contains(value) else {
                throw LegibleError(
                    .invalidArgument,
                    "--min-line-confidence takes a number from 0 to 1, or a list such as 0.5,devanagari=0.1")
            }
            return value
        }
        var floor = LineConfidenceFloor(standard: Self.default.standard)
        for item in text.split(separator: ",", omittingEmptySubsequences: false) {
            let parts = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard parts.count == 2 else {
                floor.standard = try fraction(item)
                continue
            }
            guard let script = Script(name: String(parts[0])) else {
                throw LegibleError(
                    .invalidArgument,
                    "--min-line-confidence: \(parts[0]) is not a script (\(Script.allCases.map(\.description).joined(separator: ", ")))"
                )
            }
            floor.byScript[script] = try fraction(parts[1])
        }
        self = floor
    }

    public var description: String {
        ([standard.description] + byScript.sorted { $0.key.rawValue < $1.key.rawValue }.map { "\($0.key)=\($0.value)" })
            .joined(separator: ",")
    }

    /// The floor of `line`: its model's script's, or the standard one.
    public func floor(for line: TextLine) -> Float {
        guard let script = line.script ?? line.model.flatMap(ModelCatalog.script(ofModel:)) else { return standard }
        return byScript[script] ?? standard
    }
}
