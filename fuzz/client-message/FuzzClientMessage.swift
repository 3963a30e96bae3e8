// libFuzzer entry point for fuzz target (b), ClientMessage decoding and session validation:
// see ClientMessageHarness. Built only by fuzz/build.sh (LEGIBLE_FUZZ=1, --sanitize=fuzzer,address).
import LegibleFuzzHarness

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    ClientMessageHarness.run(Array(UnsafeBufferPointer(start: data, count: size)))
    return 0
}
