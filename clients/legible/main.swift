import Foundation
import LegibleClient
import LegibleCommandLine
import LegibleCore
import LegibleWire

let recognize = Command(
    name: "recognize", abstract: "Print the text a Legible server reads in images.",
    discussion: """
        Sends each FILE (a JPEG) as one frame of one session and prints what was read. \
        Exit codes: 0 every file read, 1 some file failed, 2 cannot reach the server, 64 usage.
        """,
    options: [
        .value("server", valueName: "address", help: "unix:PATH or tcp:HOST:PORT.", default: "unix:legible.sock, then tcp:127.0.0.1:7480"),
        .value("script", valueName: "script", help: "latin (more scripts arrive with the recognition issue).", default: "latin"),
        .value("mode", valueName: "mode", help: "text or document.", default: "text"),
        .value("format", valueName: "format", help: "text or json (the result tree, protocol field names).", default: "text"),
    ],
    arguments: [Argument("file", help: "JPEG files to read.", variadic: true)])
let root = Command(
    name: "legible", abstract: "The thin client of the Legible text-recognition server.", subcommands: [recognize])

let parsed = root.parseOrExit()
let format = (try? parsed.choice("format", from: ["text", "json"])) ?? nil
guard let format else { fail("--format takes text or json", code: .usage) }
guard let modeName = (try? parsed.choice("mode", from: ["text", "document"])) ?? nil else {
    fail("--mode takes text or document", code: .usage)
}
guard let script = Script(name: parsed.value("script")!) else { fail("unknown script '\(parsed.value("script")!)'", code: .usage) }

let addresses: [ServerAddress]
if parsed.isSet("server") {
    do { addresses = [try ServerAddress(parsing: parsed.value("server")!)] } catch { fail(error.message, code: .usage) }
} else {
    addresses = ServerAddress.defaults
}

func json(_ text: RecognizedText) -> [String: Any] {
    func rect(_ r: Rect) -> [String: Any] { ["x": r.x, "y": r.y, "width": r.width, "height": r.height] }
    func corners(_ r: Rect) -> [[String: Any]] { r.cornerPoints.map { ["x": $0.x, "y": $0.y] } }
    func languages(_ l: [String]) -> [[String: Any]] { l.map { ["language_code": $0] } }
    func element(_ e: TextElement) -> [String: Any] {
        [
            "text": e.text, "frame": rect(e.frame), "corner_points": corners(e.frame), "confidence": Double(e.confidence),
            "recognized_languages": languages(e.recognizedLanguages),
            "symbols": e.symbols.map { ["text": $0.text, "frame": rect($0.frame), "confidence": Double($0.confidence)] },
        ]
    }
    return [
        "text": text.text, "image_width": text.imageWidth, "image_height": text.imageHeight,
        "blocks": text.blocks.map { block in
            [
                "text": block.text, "frame": rect(block.frame), "corner_points": corners(block.frame),
                "confidence": Double(block.confidence), "recognized_languages": languages(block.recognizedLanguages),
                "lines": block.lines.map { line in
                    [
                        "text": line.text, "frame": rect(line.frame), "corner_points": corners(line.frame),
                        "confidence": Double(line.confidence), "recognized_languages": languages(line.recognizedLanguages),
                        "elements": line.elements.map(element), "track_id": line.trackID, "stable_frames": line.stableFrames,
                    ] as [String: Any]
                },
                "paragraphs": block.paragraphs.map { p in
                    ["text": p.text, "frame": rect(p.frame), "confidence": Double(p.confidence), "words": p.words.map(element)]
                        as [String: Any]
                },
            ] as [String: Any]
        },
    ]
}

let connection: ClientConnection
do {
    connection = try ClientConnection(addresses: addresses)
    var options = RecognitionOptions(scripts: [.known(script)], mode: modeName == "document" ? .document : .text)
    options.includeSymbols = format == "json"
    _ = try connection.startSession(StartSession(clientName: "legible-cli/\(0.1)", options: options))
} catch {
    fail(error.message, code: .unavailable)
}

var failures = 0
for (index, path) in parsed.positionals.enumerated() {
    guard let data = FileManager.default.contents(atPath: path) else {
        StandardStream.error.write("legible: \(path): cannot read the file\n")
        failures += 1
        continue
    }
    let frameID = UInt64(index + 1)
    do {
        try connection.send(.frame(Frame(frameID: frameID, image: EncodedImage(encoding: .jpeg, data: Array(data)))))
        // One frame at a time: each is answered before the next is sent, so none is dropped.
        var answered = false
        while !answered {
            guard let message = try connection.receive() else { fail("the server closed the stream", code: .unavailable) }
            guard case .result(let result) = message, result.frameID == frameID else {
                if case .error(let error) = message, error.fatal { fail(error.message, code: .failure) }
                continue
            }
            answered = true
            switch result.status {
            case .recognized:
                let text = result.text ?? RecognizedText()
                if format == "json" {
                    var object = json(text)
                    object["file"] = path
                    let bytes = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
                    StandardStream.output.write(String(decoding: bytes, as: UTF8.self) + "\n")
                } else {
                    if parsed.positionals.count > 1 { StandardStream.output.write("==> \(path) <==\n") }
                    StandardStream.output.write(text.text.isEmpty ? "" : text.text + "\n")
                }
            default:
                failures += 1
                StandardStream.error.write("legible: \(path): \(result.error?.description ?? "\(result.status)")\n")
            }
        }
    } catch let error as LegibleError {
        fail(error.message, code: .unavailable)
    } catch {
        fail("\(error)", code: .failure)
    }
}
try? connection.send(.end)
while let message = try? connection.receive() {
    if case .summary = message { break }
}
exit(failures == 0 ? 0 : 1)
