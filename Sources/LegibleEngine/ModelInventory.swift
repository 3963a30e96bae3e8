public import LegibleCore
internal import LegibleTesseract

/// The Tesseract models a server can load, looked up once at start: which of every script's
/// candidates are installed, and so which scripts it serves.
public struct ModelInventory: Sendable {
    /// Installed models among every script's language and script models, the configured ones
    /// and Traditional Chinese.
    public let installed: Set<String>
    /// Scripts whose configured model is installed, in `Script.allCases` order.
    public let availableScripts: [Script]

    /// - Throws: FAILED_PRECONDITION naming the Debian package when the default script's
    ///   model is missing: a server that cannot read its default script does not start.
    public init(tessdata: String, models: ModelSelection) throws(LegibleError) {
        var candidates = Script.allCases.flatMap { script in
            let (language, scriptModel) = ModelCatalog.models(of: script)
            return [language, scriptModel, models.model(for: script)]
        }
        candidates += ["chi_tra", "HanT"]
        installed = TesseractModels.installed(candidates, in: tessdata)
        availableScripts = Script.allCases.filter { [installed] in installed.contains(models.model(for: $0)) }
        let defaultModel = models.model(for: .default)
        guard installed.contains(defaultModel) else {
            throw LegibleError(
                .failedPrecondition,
                "the default script's model '\(defaultModel)' is not in \(tessdata): install the Debian "
                    + "package \(ModelCatalog.debianPackage(for: defaultModel)) or pass --tessdata")
        }
    }
}
