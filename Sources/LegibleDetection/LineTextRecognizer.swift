internal import COpenVINO
internal import Foundation
public import LegibleCore

/// Reads one horizontal text line with PP-OCRv4's recognition model (an SVTR-LCNet network
/// trained with CTC on Chinese and Latin text) through OpenVINO's C API.
///
/// A line's trip: the gray strip (dark on light or not: the model reads both) is scaled to the
/// model's 48 px height, keeping its aspect, normalised as PaddleOCR does ((x / 255 − 0.5) /
/// 0.5, three equal channels) and padded on the right to at least `minimumInputWidth` with
/// zeros, as PaddleOCR pads; the model gives, per 8 px column step, a probability for each of
/// its classes (CTC's blank, 6,623 characters, a space); the most likely class per step, with
/// repeats merged and blanks dropped, is the text (greedy CTC decoding). Each character's
/// extent along the line is the run of steps it was read in.
///
/// Owns its `OpenVINOModel` and one compilation with a dynamic width (`CompiledShape`). Not
/// `Sendable`: made and used on one engine thread, inferring on `inferenceThreads` threads.
public final class LineTextRecognizer {
    /// One character read, in the strip's pixels.
    public struct Character: Sendable, Hashable {
        public var text: String
        /// The model's probability for it at the first step it was read in (PaddleOCR's score).
        public var confidence: Float
        /// Where it lies along the line: from the middle of the gap before it to the middle of
        /// the gap after it (or two steps beyond its run at the ends of the line).
        public var left: Double
        public var right: Double
        /// The most likely characters at that step, the best first.
        public var alternatives: [Alternative]
    }

    /// A character the model also considered, with its probability.
    public struct Alternative: Sendable, Hashable {
        public var text: String
        public var confidence: Float
    }

    /// Where scripts/install-openvino.sh puts the model and its character list.
    public static let defaultModelPath = "/usr/local/share/legible/models/ch_PP-OCRv4_rec_infer.onnx"
    /// PP-OCRv6's small recognition model (Chinese, Japanese kana and kanji, Latin with its
    /// accents; 18,708 characters), also installed by scripts/install-openvino.sh.
    public static let secondModelPath = "/usr/local/share/legible/models/PP-OCRv6_rec_small.onnx"
    public static func characterListPath(forModel path: String) -> String {
        (path.hasSuffix(".onnx") ? String(path.dropLast(5)) : path) + ".characters.txt"
    }

    /// The model's input height.
    public static let inputHeight = 48
    /// PaddleOCR's recognition width (48 × 320 / 48): shorter lines are padded to it.
    public let minimumInputWidth: Int
    /// Longer lines are squeezed to this width.
    public let maximumInputWidth: Int
    /// Milliseconds in the model for the last `read`.
    public private(set) var lastInferenceMilliseconds: Double = 0

    private let model: OpenVINOModel
    private let compiled: CompiledShape
    /// Class i ≥ 1 is `characters[i - 1]`; the last class is a space.
    private let characters: [String]
    /// The classes a reading may take (`keeping`); nil: every class.
    private let allowed: [Bool]?
    private var inputWidth = -1
    /// The model's file name without `.onnx` (`ch_PP-OCRv4_rec_infer`), as lines name it.
    public let name: String

    /// Reads the model at `modelPath` and its character list beside it.
    ///
    /// - Parameter keeping: the characters a reading may contain (the blank and the space are
    ///   always kept): at each step the likeliest kept class wins, so a Latin line read by a
    ///   model that also knows Han characters never comes back in Han. Nil keeps every one.
    /// - Throws: `.failedPrecondition` when either file is missing or unreadable, or the list
    ///   does not match the model's classes; `.internal` when OpenVINO cannot compile it.
    public init(
        modelPath: String = LineTextRecognizer.defaultModelPath, inferenceThreads: Int = 1,
        minimumInputWidth: Int = 320, maximumInputWidth: Int = 2400, keeping: ((String) -> Bool)? = nil
    ) throws(LegibleError) {
        let listPath = Self.characterListPath(forModel: modelPath)
        let file = modelPath.split(separator: "/").last.map(String.init) ?? modelPath
        name = file.hasSuffix(".onnx") ? String(file.dropLast(5)) : file
        guard let list = try? String(contentsOfFile: listPath, encoding: .utf8) else {
            throw LegibleError(
                .failedPrecondition,
                "the recognition model's character list \(listPath) is not installed: run make deps "
                    + "(scripts/install-openvino.sh)")
        }
        var characters = list.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if characters.last == "" { characters.removeLast() }
        self.characters = characters
        allowed = keeping.map { keep in [true] + characters.map(keep) + [true] }
        self.minimumInputWidth = max(8, minimumInputWidth)
        self.maximumInputWidth = max(self.minimumInputWidth, maximumInputWidth)
        model = try OpenVINOModel(path: modelPath, what: "the text recognition model")
        try model.reshape(to: [1, 3, Int64(Self.inputHeight), -1])
        compiled = try model.compile(threads: inferenceThreads)
    }

    /// The text of `strip`, a horizontal line; empty when nothing was read.
    ///
    /// - Parameter alternatives: how many of the likeliest classes to keep per character.
    /// - Throws: `.internal` when OpenVINO fails.
    public func read(_ strip: GrayImage, alternatives: Int = 0) throws(LegibleError) -> [Character] {
        guard strip.width > 0, strip.height > 0 else { return [] }
        let scale = Double(Self.inputHeight) / Double(strip.height)
        let scaledWidth = min(maximumInputWidth, max(1, Int((Double(strip.width) * scale).rounded(.up))))
        let width = max(minimumInputWidth, (scaledWidth + 7) / 8 * 8)
        let shape = InputShape(width: width, height: Self.inputHeight)
        let input = try compiled.inputTensor(for: shape, dimensions: [1, 3, Int64(Self.inputHeight), Int64(width)])
        Self.write(strip, scaledWidth: scaledWidth, inputWidth: width, into: input)

        let start = ContinuousClock.now
        try check(ov_infer_request_infer(compiled.request), "ov_infer_request_infer")
        lastInferenceMilliseconds = TextDetector.milliseconds(ContinuousClock.now - start)

        var output: OpaquePointer?
        try check(ov_infer_request_get_output_tensor_by_index(compiled.request, 0, &output), "output tensor")
        defer { ov_tensor_free(output) }
        var dims = ov_shape_t()
        try check(ov_tensor_get_shape(output, &dims), "output shape")
        defer { ov_shape_free(&dims) }
        guard dims.rank == 3, dims.dims[0] == 1, Int(dims.dims[2]) == characters.count + 2 else {
            throw LegibleError(.internal, "the recognition model's output is not 1xTx\(characters.count + 2)")
        }
        let steps = Int(dims.dims[1])
        var data: UnsafeMutableRawPointer?
        try check(ov_tensor_data(output, &data), "output data")
        guard let data, steps > 0 else { return [] }
        let probabilities = UnsafeBufferPointer(
            start: data.assumingMemoryBound(to: Float.self), count: steps * (characters.count + 2))
        // Input pixels per step, and strip pixels per input pixel.
        let stepWidth = Double(width) / Double(steps)
        let toStrip = Double(strip.width) / Double(scaledWidth)
        return decode(
            probabilities, steps: steps, alternatives: alternatives,
            place: { min(Double(strip.width), max(0, $0 * stepWidth * toStrip)) })
    }

    /// Greedy CTC decoding; `place` turns a position in steps into strip pixels.
    private func decode(
        _ probabilities: UnsafeBufferPointer<Float>, steps: Int, alternatives: Int, place: (Double) -> Double
    ) -> [Character] {
        let classes = characters.count + 2
        var runs: [(label: Int, first: Int, last: Int, confidence: Float)] = []
        var previous = 0
        for step in 0..<steps {
            let row = probabilities[(step * classes)..<((step + 1) * classes)]
            var best = row.startIndex
            if let allowed {
                for index in row.indices where allowed[index - row.startIndex] && row[index] > row[best] {
                    best = index
                }
            } else {
                for index in row.indices where row[index] > row[best] { best = index }
            }
            let label = best - row.startIndex
            if label != 0 {
                if label == previous, var run = runs.popLast() {
                    run.last = step
                    runs.append(run)
                } else {
                    runs.append((label, step, step, row[best]))
                }
            }
            previous = label
        }
        return runs.indices.map { index in
            let run = runs[index]
            // CTC reads a character at a step or two near its middle: the ends of the line get
            // two steps of room (a wide Han character's edge lies ~2 steps out).
            let left = index == 0 ? Double(run.first) - 2 : Double(runs[index - 1].last + 1 + run.first) / 2
            let right =
                index == runs.count - 1 ? Double(run.last) + 3 : Double(run.last + 1 + runs[index + 1].first) / 2
            var others: [Alternative] = []
            if alternatives > 0 {
                let row = Array(probabilities[(run.first * classes)..<((run.first + 1) * classes)])
                others = row.indices.filter { $0 != 0 && allowed?[$0] != false }.sorted { row[$0] > row[$1] }.prefix(
                    alternatives
                ).map {
                    Alternative(text: text(ofClass: $0), confidence: row[$0])
                }
            }
            return Character(
                text: text(ofClass: run.label), confidence: run.confidence, left: place(left), right: place(right),
                alternatives: others)
        }
    }

    private func text(ofClass label: Int) -> String {
        label >= 1 && label <= characters.count ? characters[label - 1] : " "
    }

    /// Scales `strip` bilinearly (OpenCV's INTER_LINEAR sampling) to `scaledWidth` × 48 in the
    /// left of the 1×3×48×`inputWidth` input, normalised to −1…1, and zeros the rest.
    static func write(_ strip: GrayImage, scaledWidth: Int, inputWidth: Int, into planes: UnsafeMutablePointer<Float>) {
        let height = inputHeight
        let columns = Resampler.table(source: strip.width, destination: scaledWidth)
        let rows = Resampler.table(source: strip.height, destination: height)
        let planeSize = inputWidth * height
        planes.update(repeating: 0, count: 3 * planeSize)
        strip.pixels.withUnsafeBufferPointer { pixels in
            for y in 0..<height {
                let (top, bottom, wy) = rows[y]
                let upper = pixels.baseAddress! + Int(top) * strip.bytesPerRow
                let lower = pixels.baseAddress! + Int(bottom) * strip.bytesPerRow
                let row = planes + y * inputWidth
                for x in 0..<scaledWidth {
                    let (left, right, wx) = columns[x]
                    let upperValue = Float(upper[Int(left)]) + (Float(upper[Int(right)]) - Float(upper[Int(left)])) * wx
                    let lowerValue = Float(lower[Int(left)]) + (Float(lower[Int(right)]) - Float(lower[Int(left)])) * wx
                    let value = (upperValue + (lowerValue - upperValue) * wy) / 127.5 - 1
                    row[x] = value
                    row[planeSize + x] = value
                    row[2 * planeSize + x] = value
                }
            }
        }
    }
}
