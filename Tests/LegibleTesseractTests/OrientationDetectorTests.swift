import Foundation
import LegibleCore
import LegibleImaging
import LegibleTesseract
import Testing

@Suite struct OrientationDetectorTests {
    /// camera-720p as it would be stored by a camera turned so that `orientation` is needed to
    /// bring it upright; built by rendering the upright image with the inverse turn.
    func turned(clockwise degrees: Int) throws -> GrayImage {
        let upright = try gray("camera-720p")
        let imager = try FrameImager()
        let loaded = try imager.load(
            EncodedImage(encoding: .gray8, data: upright.pixels, width: upright.width, height: upright.height))
        return try imager.render(loaded, orientation: Orientation(clockwiseDegrees: degrees, mirrored: false)).image
    }

    @Test(arguments: [0, 90, 180, 270])
    func findsTheTurnThatUndoesTheRotation(degrees: Int) throws {
        let detector = try OrientationDetector(tessdata: TesseractModels.defaultTessdata)
        let image = try turned(clockwise: degrees)
        let found = try #require(detector.detect(image))
        #expect(found.clockwiseCorrection == (360 - degrees) % 360)
        #expect(found.confidence >= 2, "confidence \(found.confidence)")
    }

    @Test func tooLittleTextIsNoAnswer() throws {
        let detector = try OrientationDetector(tessdata: TesseractModels.defaultTessdata)
        #expect(detector.detect(try gray("blank-320x240")) == nil)
        #expect(
            detector.detect(GrayImage(width: 4, height: 4, bytesPerRow: 4, pixels: [UInt8](repeating: 0, count: 16)))
                == nil)
    }

    @Test func missingModelNamesThePackage() throws {
        do {
            _ = try OrientationDetector(tessdata: "/nonexistent")
            Issue.record("expected a failure")
        } catch {
            #expect(error.code == .failedPrecondition)
            #expect(error.message.contains("tesseract-ocr-osd"))
        }
    }
}
