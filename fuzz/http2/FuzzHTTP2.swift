// libFuzzer entry point for fuzz target (e), one HTTP/2 connection's server side (nghttp2 and
// gRPC's request headers): see HTTP2Harness. Built only by fuzz/build.sh (LEGIBLE_FUZZ=1,
// --sanitize=fuzzer,address).
import LegibleFuzzHarness

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    HTTP2Harness.run(Array(UnsafeBufferPointer(start: data, count: size)))
    return 0
}
