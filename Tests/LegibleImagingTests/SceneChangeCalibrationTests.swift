import Foundation
import LegibleCore
import LegibleImaging
import LegibleSessions
import LegibleWire
import Testing

// The thresholds of `SkipPolicy.Thresholds.calibrated`, measured: camera sequences generated
// from Tests/Fixtures/camera-720p.jpg, each frame's `LumaThumbnail` differenced against the
// sequence's reference frame (the "last recognized" one: `scene`) and against the frame before
// (`motion`). The test prints one row per sequence and checks that the thresholds separate them.

/// SplitMix64: a seeded generator, so every run draws the same noise.

/// Builds camera frames from a still: translation (edges repeated, as a pan brings in more of
/// the same background), gain, motion blur and fresh Gaussian sensor noise.
private struct FrameMaker {
    var rng: SplitMix64
    /// 4096 draws of N(0, σ), rounded: indexed by 12 random bits per pixel.
    let noise: [Int]

    init(seed: UInt64, sigma: Double) {
        rng = SplitMix64(seed: seed)
        var table: [Int] = []
        while table.count < 4096 {
            let u1 = Double.random(in: Double.ulpOfOne..<1, using: &rng)
            let u2 = Double.random(in: 0..<1, using: &rng)
            let radius = (-2 * Foundation.log(u1)).squareRoot() * sigma
            table.append(Int((radius * Foundation.cos(2 * .pi * u2)).rounded()))
            table.append(Int((radius * Foundation.sin(2 * .pi * u2)).rounded()))
        }
        noise = table
    }

    /// `image` moved right by `dx` and down by `dy`.
    func translated(_ image: GrayImage, dx: Int, dy: Int) -> GrayImage {
        let (w, h) = (image.width, image.height)
        var out = [UInt8](repeating: 0, count: w * h)
        image.pixels.withUnsafeBufferPointer { src in
            out.withUnsafeMutableBufferPointer { dst in
                for y in 0..<h {
                    let sy = min(max(y - dy, 0), h - 1)
                    let from = src.baseAddress! + sy * image.bytesPerRow
                    let to = dst.baseAddress! + y * w
                    for x in 0..<w { to[x] = from[min(max(x - dx, 0), w - 1)] }
                }
            }
        }
        return GrayImage(width: w, height: h, bytesPerRow: w, pixels: out)
    }

    /// Every level multiplied by `gain` (exposure), clipped.
    func exposed(_ image: GrayImage, gain: Double) -> GrayImage {
        let lut = (0..<256).map { UInt8(min(255, (Double($0) * gain).rounded())) }
        return GrayImage(
            width: image.width, height: image.height, bytesPerRow: image.bytesPerRow,
            pixels: image.pixels.map { lut[Int($0)] })
    }

    /// A box blur `length` pixels long along x (`horizontal`) or y: the smear of a camera moving
    /// that far while the shutter is open.
    func blurred(_ image: GrayImage, length: Int, horizontal: Bool) -> GrayImage {
        let (w, h) = (image.width, image.height)
        var out = [UInt8](repeating: 0, count: w * h)
        let half = length / 2
        image.pixels.withUnsafeBufferPointer { src in
            out.withUnsafeMutableBufferPointer { dst in
                let (lines, count, step, lineStep) =
                    horizontal ? (h, w, 1, image.bytesPerRow) : (w, h, image.bytesPerRow, 1)
                let (outStep, outLineStep) = horizontal ? (1, w) : (w, 1)
                for line in 0..<lines {
                    let base = src.baseAddress! + line * lineStep
                    func at(_ i: Int) -> Int { Int(base[min(max(i, 0), count - 1) * step]) }
                    var sum = 0
                    for i in -half...(length - 1 - half) { sum += at(i) }
                    for i in 0..<count {
                        dst[line * outLineStep + i * outStep] = UInt8(sum / length)
                        sum += at(i + length - half) - at(i - half)
                    }
                }
            }
        }
        return GrayImage(width: w, height: h, bytesPerRow: w, pixels: out)
    }

    /// `image` with fresh sensor noise.
    mutating func noisy(_ image: GrayImage) -> GrayImage {
        let (w, h) = (image.width, image.height)
        var out = [UInt8](repeating: 0, count: w * h)
        image.pixels.withUnsafeBufferPointer { src in
            noise.withUnsafeBufferPointer { noise in
                out.withUnsafeMutableBufferPointer { dst in
                    var bits: UInt64 = 0
                    var left = 0
                    for y in 0..<h {
                        for x in 0..<w {
                            if left == 0 {
                                bits = rng.next()
                                left = 5
                            }
                            let value = Int(src[y * image.bytesPerRow + x]) + noise[Int(bits & 0xFFF)]
                            bits >>= 12
                            left -= 1
                            dst[y * w + x] = UInt8(min(255, max(0, value)))
                        }
                    }
                }
            }
        }
        return GrayImage(width: w, height: h, bytesPerRow: w, pixels: out)
    }
}

private func fixture(_ name: String) throws -> EncodedImage {
    let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures").appendingPathComponent(name)
    return EncodedImage(encoding: .jpeg, data: [UInt8](try Data(contentsOf: url)))
}

/// `label` scaled ×1.5 (nearest) to 960×720 and centred on a 1280×720 frame of its corner level.
private func letterboxed(_ label: GrayImage) -> GrayImage {
    var out = [UInt8](repeating: label[0, 0], count: 1280 * 720)
    for y in 0..<720 {
        for x in 0..<960 { out[y * 1280 + 160 + x] = label[x * 2 / 3, y * 2 / 3] }
    }
    return GrayImage(width: 1280, height: 720, bytesPerRow: 1280, pixels: out)
}

/// Min, median and max of some differences.
private struct Spread: CustomStringConvertible {
    var values: [Float]
    var min: Float { values.min() ?? .nan }
    var max: Float { values.max() ?? .nan }
    var median: Float {
        let sorted = values.sorted()
        return sorted.isEmpty
            ? .nan
            : sorted.count % 2 == 1
                ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
    }
    var description: String {
        values.isEmpty ? "           -      " : String(format: "%6.2f %6.2f %6.2f", min, median, max)
    }
}

/// One generated sequence: frame 0 is the reference (the last recognized frame).
private final class Sequence {
    init(name: String, frames: [LumaThumbnail]) {
        self.name = name
        self.frames = frames
    }
    let name: String
    let frames: [LumaThumbnail]
    /// Difference of frames 1… from frame 0.
    var scene: Spread { Spread(values: frames.dropFirst().map { $0.difference(frames[0]) }) }
    /// Difference of frames 1… from the frame before.
    var motion: Spread { Spread(values: zip(frames.dropFirst(), frames).map { $0.difference($1) }) }
}

/// Mean absolute difference after subtracting each thumbnail's mean: an alternative to
/// `LumaThumbnail.difference`'s exposure matching, measured for comparison.
private func meanSubtractedDifference(_ a: LumaThumbnail, _ b: LumaThumbnail) -> Float {
    zip(a.cells, b.cells).map { abs(($0 - a.mean) - ($1 - b.mean)) }.reduce(0, +) / Float(a.cells.count)
}

/// Mean absolute difference after scaling both thumbnails to their common mean: the other
/// alternative, which a clipped white page throws off.
private func meanMatchedDifference(_ a: LumaThumbnail, _ b: LumaThumbnail) -> Float {
    let common = (a.mean + b.mean) / 2
    return zip(a.cells, b.cells).map { abs($0 * common / a.mean - $1 * common / b.mean) }.reduce(0, +)
        / Float(a.cells.count)
}

@Suite("Scene-change calibration")
struct SceneChangeCalibrationTests {
    let thresholds = SkipPolicy.Thresholds.calibrated

    /// The generated sequences of one scene.
    private struct Sequences {
        var steady, jittered, flicker: Sequence
        var pans: [Sequence]
        var fast: [Sequence]
        var all: [Sequence] { [steady, jittered, flicker] + pans + fast }
    }

    private func sequences(of scene: GrayImage, name: String, seed: UInt64) -> Sequences {
        var maker = FrameMaker(seed: seed, sigma: 4)
        var rng = SplitMix64(seed: seed ^ 0xC0FFEE)
        let frames = 8
        func sequence(_ title: String, _ frame: (inout FrameMaker, Int) -> GrayImage) -> Sequence {
            Sequence(name: "\(name) \(title)", frames: (0...frames).map { LumaThumbnail(frame(&maker, $0)) })
        }
        func jitter() -> Int { Int.random(in: 1...3, using: &rng) * (Bool.random(using: &rng) ? 1 : -1) }
        // Hand jitter: every frame 1–3 px off the reference on each axis (so up to 6 px from
        // the frame before); the first four are the worst corners.
        let corners = [(0, 0), (3, 3), (-3, -3), (3, -3), (-3, 3)]
        let offsets = corners + (corners.count...frames).map { _ in (jitter(), jitter()) }
        let gains = [1.0, 0.9, 1.1, 0.9, 1.1] + (5...frames).map { _ in Double.random(in: 0.9...1.1, using: &rng) }
        // Shake: the camera jumps between ±(13…30) px, 26–60 px a frame, smeared over half of it.
        let shake = (0...frames).map { k in (k % 2 == 0 ? 1 : -1) * Int.random(in: 13...30, using: &rng) }
        return Sequences(
            steady: sequence("a static, noise σ=4") { maker, _ in maker.noisy(scene) },
            jittered: sequence("b jitter 1-3 px") { maker, k in
                maker.noisy(maker.translated(scene, dx: offsets[k].0, dy: offsets[k].1))
            },
            flicker: sequence("c exposure ±10 %") { maker, k in maker.noisy(maker.exposed(scene, gain: gains[k])) },
            pans: [
                sequence("d pan x 5 px/frame") { maker, k in maker.noisy(maker.translated(scene, dx: 5 * k, dy: 0)) },
                sequence("d pan y 5 px/frame") { maker, k in maker.noisy(maker.translated(scene, dx: 0, dy: 5 * k)) },
            ],
            fast: [
                sequence("e pan x 40 px/f, blur") { maker, k in
                    maker.noisy(maker.blurred(maker.translated(scene, dx: 40 * k, dy: 0), length: 20, horizontal: true))
                },
                sequence("e pan y 25 px/f, blur") { maker, k in
                    maker.noisy(
                        maker.blurred(maker.translated(scene, dx: 0, dy: 25 * k), length: 12, horizontal: false))
                },
                sequence("e shake y 26-60 px, blur") { maker, k in
                    let moved = maker.translated(scene, dx: 0, dy: shake[k])
                    let step = k == 0 ? 0 : abs(shake[k] - shake[k - 1])
                    return maker.noisy(step > 1 ? maker.blurred(moved, length: step / 2, horizontal: false) : moved)
                },
            ])
    }

    @Test func thresholdsSeparateTheCameraSequences() throws {
        let imager = try FrameImager()
        let camera = try imager.decode(try fixture("camera-720p.jpg"), maxPixels: 2_000_000)
        let label = letterboxed(try imager.decode(try fixture("label-640x480.jpg"), maxPixels: 2_000_000))
        #expect(camera.width == 1280 && camera.height == 720)
        let onCamera = sequences(of: camera, name: "camera", seed: 0x1E61_B1E)
        let onLabel = sequences(of: label, name: "label ", seed: 0x1A_BE1)

        var maker = FrameMaker(seed: 99, sigma: 4)
        let level = UInt8(LumaThumbnail(camera).mean.rounded())
        let blank = GrayImage(
            width: 1280, height: 720, bytesPerRow: 1280, pixels: [UInt8](repeating: level, count: 1280 * 720))
        let cut = Sequence(
            name: "camera f cut to label, to blank",
            frames: [onCamera.steady.frames[0], LumaThumbnail(maker.noisy(label)), LumaThumbnail(maker.noisy(blank))])

        print("sequence                        scene: min    med    max | motion: min    med    max")
        for sequence in onCamera.all + onLabel.all + [cut] {
            let motion = sequence === cut ? Spread(values: []) : sequence.motion
            print(sequence.name.padding(toLength: 32, withPad: " ", startingAt: 0) + "  \(sequence.scene) |  \(motion)")
        }
        var rawFlicker: [Float] = []
        for sequence in [onCamera.flicker, onLabel.flicker] {
            let frames = sequence.frames
            let raw = Spread(values: frames.dropFirst().map { $0.rawDifference(frames[0]) })
            let subtracted = Spread(values: frames.dropFirst().map { meanSubtractedDifference($0, frames[0]) })
            let matched = Spread(values: frames.dropFirst().map { meanMatchedDifference($0, frames[0]) })
            print("\(sequence.name), scene: raw \(raw); means subtracted \(subtracted); means matched \(matched)")
            rawFlicker.append(raw.max)
        }
        let cuts = cut.frames.dropFirst().map { String(format: "%.2f", $0.difference(cut.frames[0])) }
        print("camera f cut, scene: to the label \(cuts[0]), to blank \(cuts[1])")
        for pan in onCamera.pans + onLabel.pans {
            let growth = pan.frames.dropFirst().map { String(format: "%.2f", $0.difference(pan.frames[0])) }
            print("\(pan.name), scene by frame: " + growth.joined(separator: " "))
        }

        for scene in [onCamera, onLabel] {
            // (a)(b)(c): the same scene: unchanged, and steady enough to end a moving phase.
            for sequence in [scene.steady, scene.jittered, scene.flicker] {
                #expect(sequence.scene.max < thresholds.unchanged, "\(sequence.name): \(sequence.scene)")
                #expect(sequence.motion.max < thresholds.settled, "\(sequence.name): \(sequence.motion)")
            }
            // (d) a slow pan is re-read: within 5 frames (25 px) its difference from the last
            // read frame passes the threshold; and it is not "moving", so waiting for steady
            // still reads it.
            for pan in scene.pans {
                let over = pan.frames.dropFirst().firstIndex { $0.difference(pan.frames[0]) >= thresholds.unchanged }
                #expect(
                    over != nil && over! <= 5, "\(pan.name): first over the threshold at \(String(describing: over))")
                #expect(pan.motion.max < thresholds.settled, "\(pan.name): \(pan.motion)")
            }
        }
        // (e) fast motion is moving, except along the text lines of the camera scene: its lines
        // run across 10–23 cells, so a 40 px (one-cell) step changes little but their ends. That
        // blind spot of a 32×18 thumbnail is printed above, not hidden; it only costs a read.
        for sequence in onCamera.fast.dropFirst() + onLabel.fast {
            #expect(sequence.motion.min > thresholds.moving, "\(sequence.name): \(sequence.motion)")
        }
        #expect(onCamera.fast[0].motion.max < thresholds.moving)
        // Exposure matching is what keeps flicker below the threshold.
        #expect(rawFlicker.allSatisfy { $0 > 5 * thresholds.unchanged })
        // (f) a cut is far above unchanged, and above what moving means.
        #expect(cut.scene.min > 4 * thresholds.unchanged && cut.scene.min > thresholds.moving, "\(cut.scene)")
    }

    /// The policy over a slow pan (x, the slower direction for this scene): the reference
    /// moves with each read, so it re-reads every few frames, never every frame.
    @Test func slowPanIsReReadEveryFewFrames() throws {
        let camera = try FrameImager().decode(try fixture("camera-720p.jpg"), maxPixels: 2_000_000)
        var maker = FrameMaker(seed: 7, sigma: 4)
        let thumbnails = (0..<16).map { k in LumaThumbnail(maker.noisy(maker.translated(camera, dx: 5 * k, dy: 0))) }
        var policy = SkipPolicy()
        var reference: LumaThumbnail?
        var previous: LumaThumbnail?
        var read: [Int] = []
        for (k, thumbnail) in thumbnails.enumerated() {
            let decision = policy.decide(
                sceneDifference: reference.map(thumbnail.difference), motion: previous.map(thumbnail.difference),
                recognizeUnchanged: false, waitForSteady: true, now: .milliseconds(33 * k))
            if decision == .recognize {
                read.append(k)
                reference = thumbnail
            }
            previous = thumbnail
        }
        print("slow pan 5 px/frame: read frames \(read)")
        #expect(read.first == 0)
        let gaps = zip(read.dropFirst(), read).map { $0 - $1 }
        // Along the camera scene's text lines the difference grows slowest: 25-30 px a read.
        #expect(read.count >= 3 && gaps.allSatisfy { (2...6).contains($0) }, "read \(read)")
    }

    /// Prints the cost of one 1280×720 thumbnail in this build (the release figure is in `LumaThumbnail.init`).
    @Test func thumbnailCost() throws {
        let camera = try FrameImager().decode(try fixture("camera-720p.jpg"), maxPixels: 2_000_000)
        let clock = ContinuousClock()
        var mean: Float = 0
        let rounds = 20
        let elapsed = clock.measure {
            for _ in 0..<rounds { mean += LumaThumbnail(camera).mean }
        }
        print("LumaThumbnail 1280×720: \(elapsed / rounds) per thumbnail in this build")
        #expect(mean > 0)
    }
}
