internal import CTurboJPEG
internal import Foundation
internal import LegibleCore
internal import LegibleLoadCore

/// One image a run cycles through.
struct LoadFrame {
    var name: String
    var image: EncodedImage
}

/// Where a run's frames come from: a folder of JPEG/PNG files, or frames made in-process.
enum FrameSource {
    /// Frames `--generate WxH` makes; each session cycles through them.
    static let generatedCount = 8
    /// Files read from a folder at most (they are all held in memory).
    static let maxFolderFiles = 1000

    /// The JPEG and PNG files of `path` (by content, not by name), sorted by file name.
    static func folder(_ path: String) throws(LegibleError) -> [LoadFrame] {
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: path).sorted()
        } catch {
            throw LegibleError(.invalidArgument, "--frames \(path): cannot list the folder")
        }
        var frames: [LoadFrame] = []
        for name in names where !name.hasPrefix(".") {
            guard frames.count < maxFolderFiles else { break }
            let file = (path as NSString).appendingPathComponent(name)
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: file, isDirectory: &isDirectory), !isDirectory.boolValue,
                let data = FileManager.default.contents(atPath: file)
            else { continue }
            let bytes = [UInt8](data)
            if bytes.starts(with: [0xFF, 0xD8, 0xFF]) {
                frames.append(LoadFrame(name: name, image: EncodedImage(encoding: .jpeg, data: bytes)))
            } else if bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) {
                frames.append(LoadFrame(name: name, image: EncodedImage(encoding: .png, data: bytes)))
            }
        }
        guard !frames.isEmpty else {
            throw LegibleError(.invalidArgument, "--frames \(path): no JPEG or PNG files in it")
        }
        return frames
    }

    /// `generatedCount` JPEGs of `TestPattern` frames, deterministic for a seed.
    static func generated(width: Int, height: Int, seed: UInt64) throws(LegibleError) -> [LoadFrame] {
        var frames: [LoadFrame] = []
        for index in 0..<generatedCount {
            let pattern = TestPattern.render(width: width, height: height, seed: seed, index: index)
            let jpeg = try JPEGEncoder.grayJPEG(pattern.pixels, width: width, height: height, quality: 85)
            frames.append(LoadFrame(name: "generated-\(index)", image: EncodedImage(encoding: .jpeg, data: jpeg)))
        }
        return frames
    }
}

/// Gray JPEG encoding with libturbojpeg (the same library the server decodes with).
enum JPEGEncoder {
    static func grayJPEG(_ pixels: [UInt8], width: Int, height: Int, quality: Int32) throws(LegibleError) -> [UInt8] {
        guard let handle = tjInitCompress() else { throw LegibleError(.internal, "tjInitCompress failed") }
        defer { tjDestroy(handle) }
        var buffer: UnsafeMutablePointer<UInt8>?
        var size: UInt = 0
        let status = pixels.withUnsafeBufferPointer { source in
            tjCompress2(
                handle, source.baseAddress, Int32(width), 0, Int32(height), Int32(TJPF_GRAY.rawValue), &buffer, &size,
                Int32(TJSAMP_GRAY.rawValue), quality, 0)
        }
        // tjCompress2 allocates the output with tjAlloc: freed with tjFree, also on failure.
        defer { if let buffer { tjFree(buffer) } }
        guard status == 0, let buffer else {
            throw LegibleError(.internal, "JPEG encoding failed: \(String(cString: tjGetErrorStr2(handle)))")
        }
        return Array(UnsafeBufferPointer(start: buffer, count: Int(size)))
    }
}
