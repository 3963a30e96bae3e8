internal import COpenVINO
public import LegibleCore

/// Finds the text lines of a gray image with PP-OCRv4's detection model (DB) through OpenVINO's
/// C API: one `TextDetector` per engine thread.
///
/// Owns the read model (`OpenVINOModel`) and, per input shape, a compiled model with its infer
/// request (`CompiledShape`). Not `Sendable`: like a Tesseract handle, it is created
/// and used on one thread, and it infers on `Options.inferenceThreads` threads of its own
/// (OpenVINO's `INFERENCE_NUM_THREADS`, 1 by default), so that N engines use N cores.
///
/// A frame's trip: the gray image is scaled (bilinear) so that its long side is at most
/// `maxSide`, each side rounded to a multiple of 32, and written as 3 equal channels normalised
/// as PaddleOCR does ((x / 255 − mean) / std, ImageNet's mean and std) straight into the
/// request's input tensor; the model infers a probability map of the same size; DB's
/// post-processing (`DBPostprocessor`) turns it into rotated boxes, mapped back to the image.
public final class TextDetector {
    /// How input shapes are compiled.
    public enum ShapePolicy: Sendable, Hashable {
        /// One model compiled with dynamic height and width, for every input.
        case dynamic
        /// The model reshaped to each input size and compiled for it, keeping the
        /// `maximumCached` most recently used (a camera keeps its frame size).
        case perInputSize(maximumCached: Int)
        /// A size seen for the first time goes through the dynamic model (compiled once, when
        /// the detector is made); a size asked for again is compiled for itself, keeping the
        /// `maximumCached` most recently used. A camera's stream pays one compilation (~0.4 s)
        /// on its second frame and then runs static (957x544: 57 against 84 ms); a folder of
        /// photos of every size never waits for a compilation.
        case adaptive(maximumCached: Int)
    }

    public struct Options: Sendable, Hashable {
        /// The longest side of the model's input, in pixels (a multiple of 32). Larger images
        /// are scaled down to it.
        public var maxSide: Int
        /// The same for ACCURATE (`LineDetecting.detectLines(in:level:)`): the same 960 (1280 read
        /// the corpus's pages and Devanagari signs worse, and ACCURATE worse than FAST; see
        /// the README's "Detector input").
        public var accurateMaxSide: Int
        /// Images whose long side is shorter are scaled up to it (then rounded to multiples of
        /// 32); others keep their size. 640 chosen on the corpus's tune part, where half the
        /// images are under 640 px (word crops, small signs, screenshots): FAST's CER 0.193
        /// without it; 0.165 at 512 and at 640, 0.167 at 736, 0.160 at 832, 0.163 at 960 (which
        /// also found text on a text-free photo).
        public var minimumLongSide: Int
        /// OpenVINO's `INFERENCE_NUM_THREADS`.
        public var inferenceThreads: Int
        public var shapes: ShapePolicy
        public var postprocessing: DBParameters

        /// The defaults, chosen by measurement (bench/legible-detect on the detector fixtures,
        /// camera-720p and 28 camera-like 1280x720 frames, one thread, Tesseract in the process):
        ///
        /// - `maxSide`: line recall/precision (IoU ≥ 0.5) 0.81/0.89 at 960 and 61-69 ms per 720p
        ///   frame; 864: 0.74/0.82 at 45-58 ms; 736: 0.66/0.80 at 42 ms; 640: 0.60/0.79 at 31 ms;
        ///   1280: 0.83/0.89 at 132-135 ms but boxes on text-free frames (5 on 5). 832 read a
        ///   720p frame 18 % faster and the corpus's tune part as well, but a generated
        ///   Vietnamese line worse than the tesseract CLI (README, "Detector input").
        /// - A static shape per input size: inference at 640x352 29 ms against 67 ms for the
        ///   dynamic-shape model, 960x544 57-64 against 84, 1280x736 123-126 against 154; a
        ///   new size costs one compilation (~0.3-0.5 s) on its first frame, and a camera keeps
        ///   its frame size.
        public init(
            maxSide: Int = 960, accurateMaxSide: Int = 960, minimumLongSide: Int = 640, inferenceThreads: Int = 1,
            shapes: ShapePolicy = .adaptive(maximumCached: 4), postprocessing: DBParameters = DBParameters()
        ) {
            self.maxSide = maxSide
            self.accurateMaxSide = accurateMaxSide
            self.minimumLongSide = minimumLongSide
            self.inferenceThreads = inferenceThreads
            self.shapes = shapes
            self.postprocessing = postprocessing
        }
    }

    /// Milliseconds spent in each step of the last `detect`.
    public struct Timings: Sendable, Hashable {
        /// Finding or compiling the model for the input's shape (0 once compiled).
        public var compile: Double = 0
        /// Scaling and normalising into the input tensor.
        public var preprocess: Double = 0
        public var inference: Double = 0
        /// DB post-processing and mapping back to the image.
        public var postprocess: Double = 0
        public var total: Double { compile + preprocess + inference + postprocess }
    }

    /// Where scripts/install-openvino.sh puts the model.
    public static let defaultModelPath = "/usr/local/share/legible/models/ch_PP-OCRv4_det_infer.onnx"
    /// The same model quantized to int8 (scripts/quantize-detector.py, checked in under models/):
    /// half the inference time, but it read real and generated frames worse (README, "Detector").
    public static let int8ModelPath = "/usr/local/share/legible/models/ch_PP-OCRv4_det_int8.xml"

    public let options: Options
    public private(set) var lastTimings = Timings()
    /// The model input's size for the last `detect`.
    public private(set) var lastInputSize = (width: 0, height: 0)

    private let model: OpenVINOModel
    /// Compiled models by input shape, and the shapes from least to most recently used.
    private var compiled: [InputShape: CompiledShape] = [:]
    private var recency: [InputShape] = []
    /// `.adaptive`: sizes read once (through the dynamic model), bounded.
    private var seenOnce: Set<InputShape> = []
    private var postprocessor: DBPostprocessor
    private var resampler = Resampler()

    /// Reads the model at `modelPath`.
    ///
    /// - Throws: `.failedPrecondition` when the model file is missing (it comes with make deps)
    ///   or OpenVINO cannot read it; `.invalidArgument` for options out of range.
    public init(modelPath: String = TextDetector.defaultModelPath, options: Options = Options()) throws(LegibleError) {
        guard options.maxSide >= 32, options.maxSide % 32 == 0, options.accurateMaxSide >= 32,
            options.accurateMaxSide % 32 == 0
        else {
            throw LegibleError(
                .invalidArgument,
                "maxSide \(options.maxSide) or accurateMaxSide \(options.accurateMaxSide) is not a positive multiple of 32"
            )
        }
        guard options.inferenceThreads >= 1 else {
            throw LegibleError(.invalidArgument, "inferenceThreads must be at least 1")
        }
        switch options.shapes {
        case .perInputSize(let cached), .adaptive(let cached):
            guard cached >= 1 else {
                throw LegibleError(.invalidArgument, "at least one compiled shape must be cached")
            }
        case .dynamic: break
        }
        self.model = try OpenVINOModel(path: modelPath, what: "the text detection model")
        self.options = options
        self.postprocessor = DBPostprocessor(parameters: options.postprocessing)
        if case .adaptive = options.shapes {
            // Before any reshape: the model read from the file has dynamic height and width.
            compiled[.dynamic] = try model.compile(threads: options.inferenceThreads)
        }
    }

    deinit {
        compiled.removeAll()  // each CompiledShape frees its request and compiled model, then the model goes
    }

    /// Small images are scaled up at most this much: a 160 px word crop still reaches 640.
    public static let maximumUpscale = 4.0
    /// Images whose long side is shorter are never scaled up: a thumbnail or a probe, not a
    /// photo of text (the corpus's smallest word crop is 136×50). A flood of 16×16 frames
    /// (padded to 160 px for the detector, then scaled up) cost 108 ms each instead of 8 and
    /// slowed a polite session 1.6-1.7× (`test_a_flooding_session_does_not_slow_a_polite_one_much`).
    public static let minimumUpscaledSide = 96

    /// The model input's size for an image of `width` × `height`: scaled down so that the long
    /// side is at most `maxSide`, or up (by at most `maximumUpscale`) toward `minimumLongSide`
    /// (PaddleOCR scales small images up too), each side rounded to the nearest multiple of 32
    /// (at least 32) and kept within `maxSide`.
    public static func inputSize(width: Int, height: Int, maxSide: Int, minimumLongSide: Int = 0)
        -> (width: Int, height: Int)
    {
        let long = max(width, height)
        let scale =
            if long > maxSide {
                Double(maxSide) / Double(long)
            } else if long < minimumLongSide, long >= minimumUpscaledSide {
                min(Self.maximumUpscale, Double(min(minimumLongSide, maxSide)) / Double(long))
            } else {
                1.0
            }
        func side(_ value: Int) -> Int {
            let rounded = Int((Double(value) * scale / 32).rounded()) * 32
            return min(maxSide, max(32, rounded))
        }
        return (side(width), side(height))
    }

    /// Compiles the model for frames of these sizes now (~0.3-0.5 s each), so that the first
    /// session sending such frames does not wait for it (nor spend its frame deadline on it).
    public func warmUp(sizes: [(width: Int, height: Int)] = [(1280, 720), (640, 480)]) throws(LegibleError) {
        for (width, height) in sizes {
            let blank = GrayImage(
                width: width, height: height, bytesPerRow: width, pixels: [UInt8](repeating: 255, count: width * height)
            )
            // Twice: under `.adaptive` a size is compiled for itself when it comes again.
            _ = try detect(blank)
            _ = try detect(blank)
        }
    }

    /// The text lines of `image`, corners in its pixels (see `DetectedLine` for their order).
    ///
    /// - Throws: `.internal` when OpenVINO fails to compile or infer.
    /// - Parameter maxSide: the input's long side for this image instead of `options.maxSide`
    ///   (a multiple of 32).
    /// - Parameter scalesUp: false keeps a small image at its size (`Options.minimumLongSide` unused).
    public func detect(_ image: GrayImage, maxSide: Int? = nil, scalesUp: Bool = true) throws(LegibleError)
        -> [DetectedLine]
    {
        try detect(
            width: image.width, height: image.height, maxSide: maxSide ?? options.maxSide,
            minimumLongSide: scalesUp ? options.minimumLongSide : 0
        ) {
            resampler, shape, input in
            resampler.write(image, to: shape, into: input)
        }
    }

    /// The text lines of a BGR image (3 bytes per pixel), each channel fed as PaddleOCR feeds a
    /// colour image. For measuring what decoding to gray costs; the pipeline uses `detect(_:)`.
    @_spi(Measurement)
    public func detect(bgr pixels: [UInt8], width: Int, height: Int, bytesPerRow: Int) throws(LegibleError)
        -> [DetectedLine]
    {
        precondition(bytesPerRow >= 3 * width && pixels.count >= bytesPerRow * height)
        return try detect(
            width: width, height: height, maxSide: options.maxSide, minimumLongSide: options.minimumLongSide
        ) { resampler, shape, input in
            resampler.write(bgr: pixels, width: width, height: height, bytesPerRow: bytesPerRow, to: shape, into: input)
        }
    }

    private func detect(
        width: Int, height: Int, maxSide: Int, minimumLongSide: Int,
        fill: (inout Resampler, InputShape, UnsafeMutablePointer<Float>) -> Void
    ) throws(LegibleError) -> [DetectedLine] {
        lastTimings = Timings()
        guard width > 0, height > 0 else { return [] }
        let clock = ContinuousClock()
        var mark = clock.now
        func lap() -> Double {
            let now = clock.now
            defer { mark = now }
            return Self.milliseconds(mark.duration(to: now))
        }

        let size = Self.inputSize(
            width: width, height: height, maxSide: maxSide, minimumLongSide: minimumLongSide)
        lastInputSize = size
        let shape = InputShape(width: size.width, height: size.height)
        let target = try compiledShape(for: shape)
        lastTimings.compile = lap()

        let input = try target.inputTensor(for: shape, dimensions: [1, 3, Int64(shape.height), Int64(shape.width)])
        fill(&resampler, shape, input)
        lastTimings.preprocess = lap()

        try check(ov_infer_request_infer(target.request), "ov_infer_request_infer")
        lastTimings.inference = lap()

        var output: OpaquePointer?
        try check(ov_infer_request_get_output_tensor_by_index(target.request, 0, &output), "output tensor")
        defer { ov_tensor_free(output) }
        var dims = ov_shape_t()
        try check(ov_tensor_get_shape(output, &dims), "output shape")
        defer { ov_shape_free(&dims) }
        guard dims.rank == 4, dims.dims[0] == 1, dims.dims[1] == 1 else {
            throw LegibleError(.internal, "the detection model's output is not 1x1xHxW")
        }
        let mapHeight = Int(dims.dims[2])
        let mapWidth = Int(dims.dims[3])
        var data: UnsafeMutableRawPointer?
        try check(ov_tensor_data(output, &data), "output data")
        guard let data else { throw LegibleError(.internal, "the output tensor has no data") }
        let map = UnsafeBufferPointer(
            start: data.assumingMemoryBound(to: Float.self), count: mapWidth * mapHeight)
        let boxes = postprocessor.boxes(in: map, width: mapWidth, height: mapHeight)
        let lines = DBPostprocessor.lines(
            boxes, mapWidth: mapWidth, mapHeight: mapHeight, imageWidth: width, imageHeight: height)
        lastTimings.postprocess = lap()
        return lines
    }

    /// A property of the most recently used compiled model as OpenVINO reports it (such as
    /// `INFERENCE_NUM_THREADS`); nil before the first `detect`.
    public func compiledProperty(_ key: String) throws(LegibleError) -> String? {
        guard let latest = recency.last, let target = compiled[latest] else { return nil }
        var value: UnsafeMutablePointer<CChar>?
        try check(ov_compiled_model_get_property(target.compiledModel, key, &value), "get property \(key)")
        guard let value else { return nil }
        defer { ov_free(value) }
        return String(cString: value)
    }

    /// How many compiled shapes are kept now.
    public var compiledShapeCount: Int { compiled.count }

    // MARK: Compiled shapes

    /// The compiled model for `shape`, compiling (and evicting the least recently used) when
    /// needed.
    private func compiledShape(for shape: InputShape) throws(LegibleError) -> CompiledShape {
        var key: InputShape
        var limit: Int
        switch options.shapes {
        case .dynamic:
            key = .dynamic
            limit = 1
        case .perInputSize(let maximumCached):
            key = shape
            limit = maximumCached
        case .adaptive(let maximumCached):
            key = shape
            limit = maximumCached + 1  // the dynamic model stays
            if compiled[shape] == nil, !seenOnce.contains(shape) {
                if seenOnce.count >= 64 { seenOnce.removeAll() }
                seenOnce.insert(shape)
                key = .dynamic
            }
        }
        if let found = compiled[key] {
            if recency.last != key {
                recency.removeAll { $0 == key }
                recency.append(key)
            }
            return found
        }
        if key != .dynamic {
            try model.reshape(to: [1, 3, Int64(key.height), Int64(key.width)])
        }
        let made = try model.compile(threads: options.inferenceThreads)
        while compiled.count >= limit, let oldest = recency.first(where: { $0 != .dynamic }) {
            recency.removeAll { $0 == oldest }
            compiled[oldest] = nil
        }
        compiled[key] = made
        recency.append(key)
        return made
    }

    static func milliseconds(_ duration: Duration) -> Double {
        let (seconds, attoseconds) = duration.components
        return Double(seconds) * 1000 + Double(attoseconds) / 1e15
    }
}
