// libFuzzer entry point for fuzz target (a), the framing decoder: see FramingHarness.
// Built only by fuzz/build.sh (LEGIBLE_FUZZ=1, --sanitize=fuzzer,address).
import LegibleFuzzHarness

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    FramingHarness.run(Array(UnsafeBufferPointer(start: data, count: size)))
    return 0
}
