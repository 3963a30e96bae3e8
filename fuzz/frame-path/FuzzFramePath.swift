// libFuzzer entry point for fuzz target (d), one frame's whole recognition path with real
// Tesseract and the PP-OCRv4 detector: see FramePathHarness. Built only by fuzz/build.sh
// (LEGIBLE_FUZZ=1, --sanitize=fuzzer,address).
import LegibleFuzzHarness

/// One pipeline for the whole run, as one engine thread keeps one (loading Tesseract and the
/// models takes a second or so). libFuzzer calls the entry points from one thread only, so the
/// unchecked global is never shared.
nonisolated(unsafe) let harness = FramePathHarness()

/// Makes the pipeline before the first input: what Tesseract and OpenVINO allocate once and
/// keep would otherwise count against that input, and libFuzzer's leak check would flag it.
@_cdecl("LLVMFuzzerInitialize")
public func fuzzInitialize(
    _ argc: UnsafeMutablePointer<CInt>?,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>?
) -> CInt {
    _ = harness
    return 0
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    harness.run(Array(UnsafeBufferPointer(start: data, count: size)))
    return 0
}
