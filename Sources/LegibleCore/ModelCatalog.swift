/// Tesseract's models as Debian ships them, per script, and what a session's scripts and
/// language hints resolve to.
///
/// Each script has two kinds of model: a *language* model (`eng`, `chi_sim`, `hin`, `jpn`,
/// `kor`; packages `tesseract-ocr-eng`, …) trained on one language, and a *script* model
/// (`Latin`, `HanS`, `Devanagari`, `Japanese`, `Hangul`; packages `tesseract-ocr-script-latn`,
/// …) trained on every language written in it. Which one a script reads by default was
/// measured (CER, time, memory) with `make bench-models`; see `ModelSelection.measured`.
public enum ModelCatalog {
    /// The language model and the script model of `script`.
    public static func models(of script: Script) -> (language: String, script: String) {
        switch script {
        case .latin: ("eng", "Latin")
        case .chinese: ("chi_sim", "HanS")
        case .devanagari: ("hin", "Devanagari")
        case .japanese: ("jpn", "Japanese")
        case .korean: ("kor", "Hangul")
        }
    }

    /// The Debian package that installs `model` (one name of a `+`-joined list).
    ///
    /// Language models are lower case (`eng`, `chi_sim` → `tesseract-ocr-chi-sim`); script
    /// models are capitalised and packaged under their ISO 15924 code (`Latin` →
    /// `tesseract-ocr-script-latn`).
    public static func debianPackage(for model: String) -> String {
        if let code = scriptCodes[model] { return "tesseract-ocr-script-\(code.lowercased())" }
        if let first = model.first, first.isUppercase {
            return "tesseract-ocr-script-\(model.lowercased().replacingUnderscores())"
        }
        return "tesseract-ocr-\(model.lowercased().replacingUnderscores())"
    }

    /// The BCP-47 tag for a model name as Tesseract's `WordRecognitionLanguage` returns it.
    ///
    /// A script model knows a script, not a language: `Latin` → `und-Latn`. As docs/library-facts.md ("languages") records, the name is
    /// the model that won, not the true language of the word.
    public static func languageTag(for model: String) -> String {
        // A vertical model (`jpn_vert`) reads its horizontal model's language.
        if model.hasSuffix("_vert") { return languageTag(for: String(model.dropLast(5))) }
        if let tag = languageTags[model] { return tag }
        if let code = scriptCodes[model] { return "und-\(code)" }
        // ISO 639-2 codes without a two-letter form are valid BCP-47 as they are.
        if model.count == 3, model.allSatisfy({ $0.isASCII && $0.isLowercase }) { return model }
        return "und"
    }

    /// The script a model reads, when it is one of Legible's.
    public static func script(ofModel model: String) -> Script? {
        Script.allCases.first { models(of: $0).language == model || models(of: $0).script == model }
            ?? (model == "chi_tra" || model == "HanT" ? .chinese : nil)
    }

    /// Resident memory of one engine reading `model`, in MB, for the engine pool's memory
    /// bound: VmRSS growth after loading it and reading one 720p frame (`make bench-models`;
    /// unmeasured models count as the largest measured).
    public static func residentMegabytes(_ model: String) -> Int {
        residentMegabytesMeasured[model] ?? 110
    }

    /// What an engine of the line path holds beyond its models, in MB: its line reader's
    /// buffers and, for a Latin, Chinese or Japanese engine, ACCURATE's second reader
    /// (PP-OCRv6's recognizer, compiled per engine). Measured: a custom `eng` engine grows
    /// VmRSS by 62-67 MB after one 720p frame (`python3 bench/custom_engine_memory.py --engines
    /// 8 -- --max-custom-engines 24`: +512 MB for 8), against `eng`'s 21 alone.
    public static let linePathEngineMegabytes = 43

    /// What an engine in a worker process holds beyond what it would in the server's: the
    /// process itself and, on the line path, a line detector of its own (OpenVINO's CPU plugin
    /// and the model compiled for two frame sizes), in MB. Measured as PSS (shared library pages
    /// divided among the processes that map them; `python3 bench/probes/isolation_memory.py`,
    /// release): a worker of `eng` 257 MB with the detector against 21 + 43 counted above; 25 MB
    /// with `--detector tesseract`.
    public static func workerProcessMegabytes(readsLines: Bool) -> Int { readsLines ? 190 : 10 }

    /// The memory one engine of `key` is counted for in the pool's bound (`--custom-engine-mb`).
    public static func engineMegabytes(_ key: EngineKey, readsLines: Bool, inWorkerProcess: Bool = false) -> Int {
        key.models.reduce(0) { $0 + residentMegabytes($1) } + (readsLines ? linePathEngineMegabytes : 0)
            + (inWorkerProcess ? workerProcessMegabytes(readsLines: readsLines) : 0)
    }

    static let residentMegabytesMeasured: [String: Int] = [
        "eng": 21, "Latin": 105, "chi_sim": 55, "HanS": 55, "hin": 36, "Devanagari": 36, "jpn": 41, "Japanese": 41,
        "kor": 32, "Hangul": 32,
    ]

    /// Tesseract script model → ISO 15924 code.
    static let scriptCodes: [String: String] = [
        "Latin": "Latn", "HanS": "Hans", "HanT": "Hant", "Japanese": "Jpan", "Hangul": "Hang",
        "Devanagari": "Deva", "Cyrillic": "Cyrl", "Arabic": "Arab", "Greek": "Grek",
        "Hebrew": "Hebr", "Thai": "Thai",
    ]

    /// Tesseract language model → BCP-47 (the ones whose tag is not the model's name).
    static let languageTags: [String: String] = [
        "eng": "en", "deu": "de", "fra": "fr", "spa": "es", "ita": "it", "por": "pt", "nld": "nl",
        "pol": "pl", "swe": "sv", "dan": "da", "nor": "no", "fin": "fi", "ces": "cs", "tur": "tr",
        "rus": "ru", "ukr": "uk", "ell": "el", "ara": "ar", "heb": "he", "hin": "hi", "tha": "th",
        "vie": "vi", "jpn": "ja", "kor": "ko", "chi_sim": "zh-Hans", "chi_tra": "zh-Hant",
    ]
}

/// What a BCP-47 language hint means for recognition: the script it is written in, and a
/// model it needs beyond the script's default, if any.
public struct LanguageHint: Sendable, Hashable {
    public var tag: String
    public var script: Script
    /// A model this language needs instead of the script's default, e.g. `HanT` for
    /// Traditional Chinese, or the `Latin` script model for a Latin-script language other
    /// than English (the `eng` model has no ä, ß, é or ệ).
    public var model: Model

    public enum Model: Sendable, Hashable {
        /// The script's default model.
        case scriptDefault
        /// The script model (`Latin`) unless the default already reads the language.
        case scriptModel
        /// This model, whatever the default.
        case named(String)
    }

    /// Parses a tag such as `en`, `de-CH`, `zh-Hant`, `zh-TW`, `sr-Latn`.
    ///
    /// - Throws: `.invalidArgument` naming the tag when Legible has no model for it: an
    ///   unknown hint is an error, never a silent fallback to another script.
    public init(_ tag: String) throws(LegibleError) {
        // Before the tag's characters are walked (a 15 MB "tag" would hold the caller for
        // seconds) or echoed in an error.
        guard tag.utf8.count <= Self.maxTagBytes else {
            throw LegibleError(
                .invalidArgument,
                "language hint '\(tag.prefix(16))…' has \(tag.utf8.count) bytes: a BCP-47 tag such as en or zh-Hant has at most \(Self.maxTagBytes)"
            )
        }
        let parts = tag.split(whereSeparator: { $0 == "-" || $0 == "_" }).map { $0.lowercased() }
        guard let language = parts.first, !language.isEmpty else {
            throw LegibleError(.invalidArgument, "empty language hint")
        }
        self.tag = tag
        let subtags = Set(parts.dropFirst())
        switch language {
        case "en":
            (script, model) = (.latin, .scriptDefault)
        case _ where Self.latinLanguages.contains(language):
            (script, model) = (.latin, .scriptModel)
        case "hi", "mr", "ne", "sa", "mai", "kok", "bho":
            (script, model) = (.devanagari, .scriptDefault)
        case "zh":
            let traditional =
                subtags.contains("hant") || subtags.contains("tw") || subtags.contains("hk")
                || subtags.contains("mo")
            (script, model) = (.chinese, traditional ? .named("HanT") : .scriptDefault)
        case "ja":
            (script, model) = (.japanese, .scriptDefault)
        case "ko":
            (script, model) = (.korean, .scriptDefault)
        default:
            throw LegibleError(
                .invalidArgument,
                "unknown language hint '\(tag)': Legible reads Latin-script languages (en, de, fr, es, vi, …), "
                    + "Devanagari (hi, mr, ne), Chinese (zh, zh-Hant), Japanese (ja) and Korean (ko)")
        }
    }

    /// The longest tag read (BCP-47's longest in practice, with extensions, stay under it).
    public static let maxTagBytes = 64

    /// Latin-script languages other than English that the `Latin` script model reads.
    static let latinLanguages: Set<String> = [
        "de", "fr", "es", "it", "pt", "nl", "vi", "pl", "sv", "da", "no", "nb", "nn", "fi", "cs", "sk", "sl",
        "hr", "bs", "sr", "ro", "hu", "tr", "id", "ms", "tl", "fil", "sw", "ca", "eu", "gl", "ga", "cy", "is",
        "et", "lv", "lt", "sq", "mt", "af", "az", "uz", "la", "eo",
    ]
}

/// The models each script reads on a server, and how a session's options resolve to the
/// models of its engine.
public struct ModelSelection: Sendable, Hashable {
    /// The model each script reads by default (`legibled --model SCRIPT=NAME` changes one).
    public var defaults: [Script: String]

    public init(defaults: [Script: String] = ModelSelection.measured) {
        var all = ModelSelection.measured
        for (script, model) in defaults { all[script] = model }
        self.defaults = all
    }

    /// The default per script, chosen on `make bench-models`' numbers (the table is in the
    /// README): the smaller, faster model where both read the generated frames equally well.
    public static let measured: [Script: String] = [
        .latin: "eng", .chinese: "HanS", .devanagari: "Devanagari", .japanese: "jpn", .korean: "kor",
    ]

    public func model(for script: Script) -> String { defaults[script] ?? ModelSelection.measured[script]! }

    /// The models a session reads, one per script in the order first named, from its scripts
    /// and language hints; the default script's model when neither names one.
    ///
    /// - Throws: `.invalidArgument` for an unknown language hint.
    public func models(scripts: [Script], languageHints: [String]) throws(LegibleError) -> [String] {
        var models: [String] = []
        for (_, model) in try modelsByScript(scripts: scripts, languageHints: languageHints)
        where !models.contains(model) {
            models.append(model)
        }
        return models
    }

    /// Each script a session reads, in the order first named, with the model that reads it.
    ///
    /// - Throws: `.invalidArgument` for an unknown language hint.
    public func modelsByScript(scripts: [Script], languageHints: [String]) throws(LegibleError) -> [(
        script: Script, model: String
    )] {
        var order: [Script] = []
        var chosen: [Script: String] = [:]
        for script in scripts where !order.contains(script) { order.append(script) }
        for tag in languageHints {
            let hint = try LanguageHint(tag)
            if !order.contains(hint.script) { order.append(hint.script) }
            switch hint.model {
            case .scriptDefault:
                break
            case .scriptModel:
                chosen[hint.script] = ModelCatalog.models(of: hint.script).script
            case .named(let name):
                chosen[hint.script] = name
            }
        }
        if order.isEmpty { order = [.default] }
        return order.map { ($0, chosen[$0] ?? model(for: $0)) }
    }
}

extension String {
    fileprivate func replacingUnderscores() -> String {
        String(map { $0 == "_" ? "-" : $0 })
    }
}
