import Foundation
import LegibleCore
import LegibleEngine
import Testing

/// What a server finds it can read at start, from the models in its tessdata folder.
@Suite("Model inventory")
struct ModelInventoryTests {
    /// A fresh folder holding links to these models of the system's tessdata.
    static func folder(with models: [String]) throws -> String {
        let path = NSTemporaryDirectory() + "legible-tessdata-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        for model in models {
            try FileManager.default.createSymbolicLink(
                atPath: "\(path)/\(model).traineddata",
                withDestinationPath: "/usr/share/tesseract-ocr/5/tessdata/\(model).traineddata")
        }
        return path
    }

    @Test func scriptsAreThoseWhoseConfiguredModelIsThere() throws {
        let path = try Self.folder(with: ["eng", "Devanagari"])
        defer { try? FileManager.default.removeItem(atPath: path) }
        let inventory = try ModelInventory(tessdata: path, models: ModelSelection())
        #expect(inventory.installed == ["eng", "Devanagari"])
        #expect(inventory.availableScripts == [.latin, .devanagari])
    }

    @Test func aMissingDefaultModelStopsTheServerNamingItsPackage() throws {
        let path = try Self.folder(with: ["Devanagari"])
        defer { try? FileManager.default.removeItem(atPath: path) }
        do {
            _ = try ModelInventory(tessdata: path, models: ModelSelection())
            Issue.record("a server without its default model would start")
        } catch {
            #expect(error.code == .failedPrecondition)
            #expect(error.message.contains("tesseract-ocr-eng"), "\(error.message)")
        }
    }
}
