// swift-tools-version:6.0
// Legible: a text-recognition server for live camera streams.
//
// Dependencies point one way, toward the pure core; C libraries stay at the
// leaves (system library targets) and are imported `internal` only.
import PackageDescription

let strict: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

/// Where scripts/install-openvino.sh puts OpenVINO's libraries (the version is pinned there).
let openVINOLibraries = "/usr/local/lib/legible/openvino-2026.4.1/lib"

let package = Package(
    name: "Legible",
    products: [
        .executable(name: "legibled", targets: ["legibled"]),
        .executable(name: "legible", targets: ["legible"]),
        .executable(name: "legible-load", targets: ["legible-load"]),
    ],
    targets: [
        // C libraries from Debian.
        .systemLibrary(
            name: "CTesseract", pkgConfig: "tesseract", providers: [.apt(["libtesseract-dev"])]),
        .systemLibrary(
            name: "CLeptonica", pkgConfig: "lept", providers: [.apt(["libleptonica-dev"])]),
        .systemLibrary(
            name: "CTurboJPEG", pkgConfig: "libturbojpeg", providers: [.apt(["libturbojpeg0-dev"])]),
        .systemLibrary(
            name: "CExif", pkgConfig: "libexif", providers: [.apt(["libexif-dev"])]),
        .systemLibrary(
            name: "CProtobufC", pkgConfig: "libprotobuf-c", providers: [.apt(["libprotobuf-c-dev"])]),
        .systemLibrary(
            name: "CNGHTTP2", pkgConfig: "libnghttp2", providers: [.apt(["libnghttp2-dev"])]),
        .systemLibrary(name: "COpenSSL", pkgConfig: "openssl", providers: [.apt(["libssl-dev"])]),
        // Leptonica's pixWriteMem interposed: Tesseract's in-memory word images as Leptonica's
        // spix, not PNG (no zlib per word); see Sources/CWordImages/word_images.c.
        .target(name: "CWordImages", linkerSettings: [.linkedLibrary("lept"), .linkedLibrary("dl")]),
        // libgomp's GOMP_parallel and GOMP_parallel_sections interposed: with one OpenMP thread,
        // Tesseract's ~10,000 parallel regions per frame run inline, without a futex call each;
        // see Sources/COpenMPRegions/openmp_regions.c. libtesseract asks for the symbols at
        // version GOMP_4.0, so the linker exports the program's own definitions only when told.
        .target(
            name: "COpenMPRegions",
            linkerSettings: [
                .linkedLibrary("dl"),
                .unsafeFlags(
                    ["GOMP_parallel", "GOMP_parallel_sections", "GOMP_sections_next", "GOMP_sections_end_nowait"]
                        .flatMap { ["-Xlinker", "--export-dynamic-symbol=\($0)"] }),
            ]),
        // libpng's png_create_read_struct interposed: a damaged PNG's message goes to the client's
        // error, not as a raw line to stderr; see Sources/CPNGMessages/png_messages.c.
        .target(name: "CPNGMessages", linkerSettings: [.linkedLibrary("png16"), .linkedLibrary("dl")]),
        // RE2 (linear-time regular expressions for clients' capture patterns) behind a C API.
        .target(name: "CRE2", linkerSettings: [.linkedLibrary("re2")]),
        // libmicrohttpd behind one non-variadic C function (MHD_start_daemon is variadic).
        .target(name: "CMicroHTTPD", linkerSettings: [.linkedLibrary("microhttpd")]),
        // epoll, eventfd, signalfd: Linux headers the Glibc module leaves out.
        .systemLibrary(name: "CLinux"),
        // OpenVINO's C runtime from its pinned PyPI wheel (scripts/install-openvino.sh, run by
        // make deps), which also writes legible-openvino.pc. No Debian package carries it.
        .systemLibrary(name: "COpenVINO", pkgConfig: "legible-openvino"),
        // Checked-in protoc-c output (scripts/generate-protos.sh); never edited by hand.
        .target(
            name: "LegibleProtoC", dependencies: ["CProtobufC"],
            linkerSettings: [.linkedLibrary("protobuf-c")]),

        // Pure Swift.
        .target(name: "LegibleCore", swiftSettings: strict),
        .target(name: "LegibleWire", dependencies: ["LegibleCore"], swiftSettings: strict),
        .target(name: "LegibleCommandLine", swiftSettings: strict),
        .target(name: "LegibleMetrics", dependencies: ["LegibleCore"], swiftSettings: strict),
        .target(name: "LegibleSockets", dependencies: ["LegibleCore", "LegibleWire", "CLinux"], swiftSettings: strict),
        .target(name: "LegibleSessions", dependencies: ["LegibleCore", "LegibleWire"], swiftSettings: strict),
        .target(name: "LegibleEntities", dependencies: ["LegibleCore", "CRE2"], swiftSettings: strict),
        // legible-load's schedule, ledger and statistics: no sockets, no clock.
        .target(name: "LegibleLoadCore", dependencies: ["LegibleCore"], swiftSettings: strict),

        // C interop.
        .target(
            name: "LegibleWireProtobuf", dependencies: ["LegibleWire", "LegibleProtoC", "CProtobufC"],
            swiftSettings: strict),
        .target(
            name: "LegibleImaging", dependencies: ["LegibleCore", "CTurboJPEG", "CLeptonica", "CExif", "CPNGMessages"],
            swiftSettings: strict),
        .target(
            name: "LegibleTesseract", dependencies: ["LegibleCore", "CTesseract", "CLeptonica", "CWordImages", "COpenMPRegions"],
            swiftSettings: strict),
        // The text-line detector (PP-OCRv4 through OpenVINO). The wheel's libraries are not on
        // the loader's path: the rpath goes into every program that links this target, because
        // SwiftPM rejects the -Wl flags a .pc file would carry.
        .target(
            name: "LegibleDetection", dependencies: ["LegibleCore", "COpenVINO"], swiftSettings: strict,
            linkerSettings: [.unsafeFlags(["-Xlinker", "-rpath", "-Xlinker", openVINOLibraries])]),

        // Reading the lines a detector found: rectify, recognize each line, reading order.
        .target(
            name: "LegibleReading", dependencies: ["LegibleCore", "LegibleImaging", "LegibleDetection"],
            swiftSettings: strict),

        // The engine side: one frame's pipeline (decode, orient, skip check, detect, read,
        // quality) and the factory that builds it per engine.
        .target(
            name: "LegibleEngine",
            dependencies: [
                "LegibleCore", "LegibleWire", "LegibleSessions", "LegibleImaging", "LegibleTesseract",
                "LegibleDetection", "LegibleReading", "LegibleEntities", "LegibleSockets", "CLinux",
            ],
            swiftSettings: strict),

        // Transport and wiring.
        .target(
            name: "LegibleServer",
            dependencies: [
                "LegibleCore", "LegibleWire", "LegibleWireProtobuf", "LegibleSessions", "LegibleEngine",
                "LegibleTesseract", "LegibleDetection", "LegibleReading", "LegibleSockets", "LegibleMetrics",
                "LegibleHTTP2", "LegibleTLS", "LegibleEntities", "CMicroHTTPD", "CLinux",
            ],
            swiftSettings: strict),
        // HTTP/2 (libnghttp2) as bytes in, events out: the second transport's protocol layer.
        .target(
            name: "LegibleHTTP2", dependencies: ["LegibleCore", "LegibleWire", "LegibleSockets", "CNGHTTP2"],
            swiftSettings: strict),
        // TLS (OpenSSL) as a filter of the server's sockets: both protocols on TLS listeners.
        .target(name: "LegibleTLS", dependencies: ["LegibleCore", "LegibleSockets", "COpenSSL"], swiftSettings: strict),
        .target(
            name: "LegibleClient",
            dependencies: [
                "LegibleCore", "LegibleWire", "LegibleWireProtobuf", "LegibleSockets", "LegibleHTTP2", "LegibleTLS",
            ],
            swiftSettings: strict),

        // Programs.
        .executableTarget(
            name: "legibled", dependencies: ["LegibleServer", "LegibleEngine", "LegibleCommandLine", "LegibleCore", "LegibleSockets", "LegibleTesting"],
            swiftSettings: strict),
        .executableTarget(
            name: "legible",
            dependencies: [
                "LegibleClient", "LegibleCommandLine", "LegibleCore", "LegibleWire", "LegibleImaging", "LegibleSockets",
                "LegibleTLS", "CLeptonica", "CLinux",
            ],
            path: "clients/legible", swiftSettings: strict),
        .executableTarget(
            name: "legible-load",
            dependencies: [
                "LegibleLoadCore", "LegibleSockets", "LegibleWire", "LegibleWireProtobuf", "LegibleCommandLine",
                "LegibleCore", "LegibleClient", "LegibleTLS", "CTurboJPEG", "CLinux",
            ],
            path: "clients/legible-load", swiftSettings: strict),
        .executableTarget(
            name: "legible-floor",
            dependencies: [
                "LegibleImaging", "LegibleTesseract", "LegibleDetection", "LegibleReading", "LegibleEngine",
                "LegibleServer", "LegibleCommandLine", "LegibleCore", "LegibleEntities",
                "CLeptonica",
            ],
            path: "bench/legible-floor", swiftSettings: strict),
        // The text detector per input size: ms per step, RSS, recall and precision.
        .executableTarget(
            name: "legible-detect",
            dependencies: [
                "LegibleDetection", "LegibleImaging", "LegibleTesseract", "LegibleCommandLine", "LegibleCore",
                "CTurboJPEG",
            ],
            path: "bench/legible-detect", swiftSettings: strict),

        // The fakes tests share: manual clocks, the calibration recognizer, a simulated pool, and
        // the in-memory transport the server core's tests drive sessions through.
        .target(
            name: "LegibleTesting",
            dependencies: ["LegibleCore", "LegibleSessions", "LegibleServer", "LegibleWire", "LegibleHTTP2", "CNGHTTP2"],
            swiftSettings: strict),
        // What each fuzz target does with its input; the fuzz executables and the regression
        // tests of what they found share it, so a crash input replays through the same path.
        .target(
            name: "LegibleFuzzHarness",
            dependencies: [
                "LegibleCore", "LegibleWire", "LegibleWireProtobuf", "LegibleSessions", "LegibleImaging",
                // frame-path: one engine's FramePipeline with Tesseract, the detector and PP-OCR.
                "LegibleEngine", "LegibleTesseract", "LegibleDetection", "LegibleReading",
                // http2: one HTTP/2 connection's server side.
                "LegibleHTTP2",
            ],
            path: "fuzz/Harness", swiftSettings: strict),

        // Tests.
        .testTarget(name: "LegibleCoreTests", dependencies: ["LegibleCore"], swiftSettings: strict),
        .testTarget(
            name: "LegibleWireTests", dependencies: ["LegibleWire", "LegibleWireProtobuf"], swiftSettings: strict),
        .testTarget(name: "LegibleLoadTests", dependencies: ["LegibleLoadCore"], swiftSettings: strict),
        .testTarget(name: "LegibleMetricsTests", dependencies: ["LegibleMetrics"], swiftSettings: strict),
        .testTarget(
            name: "LegibleEngineTests",
            dependencies: ["LegibleEngine", "LegibleCore", "LegibleReading", "LegibleSessions", "LegibleWire"],
            swiftSettings: strict),
        .testTarget(
            name: "LegibleClientTests",
            dependencies: ["LegibleClient", "LegibleSockets", "LegibleWire", "LegibleWireProtobuf", "LegibleCore"],
            swiftSettings: strict),
        .testTarget(
            name: "LegibleSocketsTests", dependencies: ["LegibleSockets", "LegibleCore", "LegibleWire"], swiftSettings: strict),
        .testTarget(name: "LegibleCommandLineTests", dependencies: ["LegibleCommandLine"], swiftSettings: strict),
        .testTarget(
            name: "LegibleEntitiesTests", dependencies: ["LegibleEntities", "LegibleCore"], swiftSettings: strict),
        .testTarget(
            name: "LegibleServerTests",
            dependencies: [
                "LegibleServer", "LegibleClient", "LegibleTesting", "LegibleWire", "LegibleCore", "LegibleEngine",
                "LegibleReading", "LegibleTesseract", "LegibleHTTP2", "LegibleSockets", "LegibleWireProtobuf",
            ],
            swiftSettings: strict),
        .testTarget(
            name: "LegibleSessionsTests",
            dependencies: ["LegibleSessions", "LegibleWire", "LegibleCore", "LegibleTesting"],
            swiftSettings: strict),
        .testTarget(
            name: "LegibleImagingTests",
            // LegibleSessions: the calibration test checks SkipPolicy's thresholds on real frames.
            dependencies: ["LegibleImaging", "LegibleCore", "LegibleSessions", "LegibleWire"],
            swiftSettings: strict),
        .testTarget(
            name: "LegibleTesseractTests", dependencies: ["LegibleTesseract", "LegibleImaging", "LegibleCore"],
            swiftSettings: strict),
        .testTarget(
            name: "LegibleReadingTests",
            dependencies: ["LegibleReading", "LegibleDetection", "LegibleImaging", "LegibleTesseract", "LegibleCore"],
            swiftSettings: strict
        ),
        .testTarget(
            name: "LegibleDetectionTests", dependencies: ["LegibleDetection", "LegibleImaging", "LegibleCore"],
            swiftSettings: strict),
        .testTarget(
            name: "LegibleHTTP2Tests", dependencies: ["LegibleHTTP2", "LegibleCore", "LegibleTesting", "CNGHTTP2"],
            swiftSettings: strict),
        .testTarget(
            name: "LegibleFuzzRegressionTests", dependencies: ["LegibleFuzzHarness"], swiftSettings: strict),
    ],
    swiftLanguageModes: [.v6]
)

// libFuzzer executables, declared only for fuzz/build.sh (LEGIBLE_FUZZ=1): they have no `main`
// of their own (libFuzzer's is linked in by --sanitize=fuzzer), so an ordinary `swift build`
// must not see them.
if Context.environment["LEGIBLE_FUZZ"] != nil {
    for (name, folder) in [
        ("fuzz-framing", "framing"), ("fuzz-client-message", "client-message"), ("fuzz-imaging", "imaging"),
        ("fuzz-frame-path", "frame-path"), ("fuzz-http2", "http2"),
    ] {
        package.targets.append(
            .executableTarget(
                name: name, dependencies: ["LegibleFuzzHarness"], path: "fuzz/\(folder)", exclude: ["corpus"],
                swiftSettings: strict + [.unsafeFlags(["-parse-as-library"])]))
        package.products.append(.executable(name: name, targets: [name]))
    }
}
