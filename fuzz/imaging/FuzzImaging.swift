// libFuzzer entry point for fuzz target (c), image decoding, orientation and region of
// interest: see ImagingHarness. Built only by fuzz/build.sh (LEGIBLE_FUZZ=1,
// --sanitize=fuzzer,address).
import LegibleFuzzHarness

/// One imager for the whole run, as one engine thread keeps one. libFuzzer calls the entry
/// point from one thread only, so the unchecked global is never shared.
nonisolated(unsafe) let harness = ImagingHarness()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    harness.run(Array(UnsafeBufferPointer(start: data, count: size)))
    return 0
}
