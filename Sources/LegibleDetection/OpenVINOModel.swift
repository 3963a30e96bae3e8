internal import COpenVINO
internal import Glibc
internal import LegibleCore

/// A model read by OpenVINO: owns the `ov_core_t` and the `ov_model_t`, freed in `deinit` only
/// (Swift runs `deinit` when an init throws after every stored property is set, so freeing them
/// in the init as well would free them twice). Compiled models (`CompiledShape`) keep it alive.
final class OpenVINOModel {
    private let core: OpaquePointer
    private let model: OpaquePointer

    /// Reads the model at `path`.
    ///
    /// - Throws: `.failedPrecondition` when the file is missing (it comes with make deps) or
    ///   OpenVINO cannot read it; `what` names the model in the message.
    init(path: String, what: String) throws(LegibleError) {
        guard access(path, R_OK) == 0 else {
            throw LegibleError(
                .failedPrecondition, "\(what) \(path) is not installed: run make deps (scripts/install-openvino.sh)")
        }
        var core: OpaquePointer?
        try check(ov_core_create(&core), "ov_core_create")
        guard let core else { throw LegibleError(.internal, "ov_core_create returned no core") }
        var model: OpaquePointer?
        let read = ov_core_read_model(core, path, nil, &model)
        guard read == OK, let model else {
            let message = lastErrorMessage(read)
            ov_core_free(core)  // no stored property is set yet, so deinit will not run
            throw LegibleError(.failedPrecondition, "OpenVINO cannot read \(path): \(message)")
        }
        self.core = core
        self.model = model
    }

    deinit {
        ov_model_free(model)
        ov_core_free(core)
    }

    /// Reshapes the model's (single) input to `dimensions`, each -1 for a dynamic one.
    func reshape(to dimensions: [Int64]) throws(LegibleError) {
        var partial = ov_partial_shape_t()
        if dimensions.contains(-1) {
            let bounds = dimensions.map { $0 < 0 ? ov_dimension_t(min: -1, max: -1) : ov_dimension_t(min: $0, max: $0) }
            try bounds.withUnsafeBufferPointer { (buffer) throws(LegibleError) in
                try check(
                    ov_partial_shape_create(Int64(buffer.count), buffer.baseAddress, &partial), "partial shape")
            }
        } else {
            try dimensions.withUnsafeBufferPointer { (buffer) throws(LegibleError) in
                try check(
                    ov_partial_shape_create_static(Int64(buffer.count), buffer.baseAddress, &partial), "partial shape")
            }
        }
        defer { ov_partial_shape_free(&partial) }
        try check(ov_model_reshape_single_input(model, partial), "reshape to \(dimensions)")
    }

    /// Entries of the CPU plugin's cache of kernels per input shape of a dynamic-shape model
    /// (OpenVINO's default: 5000). With the default one client sending frames of 400 distinct
    /// sizes grew legibled from 314 to 1228 MB; with 16 (or 0) it stays near 600 MB, the
    /// static-shape compilations and buffers of `TextDetector`'s bounded cache
    /// (docs/library-facts.md, "OpenVINO: the runtime cache").
    static let runtimeCacheCapacity = 16

    /// Compiles the model as it is now shaped for the CPU, on `threads` inference threads
    /// (`INFERENCE_NUM_THREADS`) and one stream, its threads not pinned to cores: every
    /// detector pins to the same first core otherwise, so two engines detecting at once share
    /// one core while the other idles (docs/library-facts.md, "OpenVINO: CPU pinning").
    func compile(threads: Int) throws(LegibleError) -> CompiledShape {
        let properties: [(String, String)] = [
            ("INFERENCE_NUM_THREADS", String(threads)), ("NUM_STREAMS", "1"), ("ENABLE_CPU_PINNING", "NO"),
            ("CPU_RUNTIME_CACHE_CAPACITY", String(Self.runtimeCacheCapacity)),
        ]
        let strings = properties.flatMap { [strdup($0.0)!, strdup($0.1)!] }
        defer { for string in strings { free(string) } }
        let list = (0..<properties.count).map {
            ov_property_t(key: strings[2 * $0], value: UnsafeRawPointer(strings[2 * $0 + 1]))
        }
        var compiledModel: OpaquePointer?
        try list.withUnsafeBufferPointer { (buffer) throws(LegibleError) in
            try check(
                ov_core_compile_model_props(core, model, "CPU", buffer.count, buffer.baseAddress, &compiledModel),
                "compile for CPU")
        }
        guard let compiledModel else { throw LegibleError(.internal, "ov_core_compile_model returned no model") }
        var request: OpaquePointer?
        let status = ov_compiled_model_create_infer_request(compiledModel, &request)
        guard status == OK, let request else {
            let message = lastErrorMessage(status)
            ov_compiled_model_free(compiledModel)
            throw LegibleError(.internal, "ov_compiled_model_create_infer_request: \(message)")
        }
        return CompiledShape(compiledModel: compiledModel, request: request, source: self)
    }
}

/// A model input's height and width; `.dynamic` names the one dynamic-shape compilation.
struct InputShape: Hashable {
    var width: Int
    var height: Int
    static let dynamic = InputShape(width: -1, height: -1)
}

/// One compiled model and its infer request, freed together. For a dynamic model it also owns
/// the input tensor of the current shape (a static model's request has its own). It keeps the
/// read model alive: OpenVINO's compiled model refers to it.
final class CompiledShape {
    let compiledModel: OpaquePointer
    let request: OpaquePointer
    private let source: OpenVINOModel
    private var input: (tensor: OpaquePointer, shape: InputShape, data: UnsafeMutablePointer<Float>)?

    fileprivate init(compiledModel: OpaquePointer, request: OpaquePointer, source: OpenVINOModel) {
        self.compiledModel = compiledModel
        self.request = request
        self.source = source
    }

    deinit {
        if let input { ov_tensor_free(input.tensor) }
        ov_infer_request_free(request)
        ov_compiled_model_free(compiledModel)
    }

    /// Where the float input of `shape` (`dimensions`, such as 1×3×H×W) goes: the request's own
    /// input tensor, asked for once per shape, set to the new shape when it changes.
    func inputTensor(for shape: InputShape, dimensions dims: [Int64]) throws(LegibleError)
        -> UnsafeMutablePointer<Float>
    {
        if let input, input.shape == shape { return input.data }
        if let input {
            ov_tensor_free(input.tensor)
            self.input = nil
        }
        var tensor: OpaquePointer?
        try check(ov_infer_request_get_input_tensor(request, &tensor), "input tensor")
        guard let tensor else { throw LegibleError(.internal, "no input tensor") }
        var ovShape = ov_shape_t()
        let made = dims.withUnsafeBufferPointer { ov_shape_create(Int64($0.count), $0.baseAddress, &ovShape) }
        defer { ov_shape_free(&ovShape) }
        var status = made
        if status == OK { status = ov_tensor_set_shape(tensor, ovShape) }
        var data: UnsafeMutableRawPointer?
        if status == OK { status = ov_tensor_data(tensor, &data) }
        guard status == OK, let data else {
            let message = lastErrorMessage(status)
            ov_tensor_free(tensor)
            throw LegibleError(.internal, "input tensor of \(shape.width)x\(shape.height): \(message)")
        }
        let floats = data.assumingMemoryBound(to: Float.self)
        input = (tensor, shape, floats)
        return floats
    }
}

/// OpenVINO's message for a failed call: its status name and the last error text.
func lastErrorMessage(_ status: ov_status_e) -> String {
    var message = ov_get_error_info(status).map { String(cString: $0) } ?? "status \(status.rawValue)"
    if let detail = ov_get_last_err_msg().map({ String(cString: $0) }), !detail.isEmpty {
        message += ": " + detail.trimmingCharacters()
    }
    return message
}

func check(_ status: ov_status_e, _ what: String) throws(LegibleError) {
    guard status == OK else { throw LegibleError(.internal, "OpenVINO \(what): \(lastErrorMessage(status))") }
}

extension String {
    fileprivate func trimmingCharacters() -> String {
        var scalars = Substring(self)
        while let last = scalars.last, last.isWhitespace { scalars.removeLast() }
        return String(scalars)
    }
}
