internal import Glibc

/// Names around Tesseract's models: where Debian keeps them, which package ships one, and
/// which BCP-47 tag a model's name stands for.
public enum TesseractModels {
    /// The folder holding the `.traineddata` files: `TESSDATA_PREFIX` when set (Tesseract 5
    /// reads it as that folder itself), else Debian's path.
    public static var defaultTessdata: String {
        if let prefix = environment("TESSDATA_PREFIX"), !prefix.isEmpty { return prefix }
        return "/usr/share/tesseract-ocr/5/tessdata"
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

    /// The BCP-47 tag for a model name as `WordRecognitionLanguage` returns it.
    ///
    /// A script model knows a script, not a language: `Latin` → `und-Latn`. NOTES: the name is
    /// the model that won, not the true language of the word.
    public static func languageTag(for model: String) -> String {
        if let tag = languageTags[model] { return tag }
        if let code = scriptCodes[model] { return "und-\(code)" }
        // ISO 639-2 codes without a two-letter form are valid BCP-47 as they are.
        if model.count == 3, model.allSatisfy({ $0.isASCII && $0.isLowercase }) { return model }
        return "und"
    }

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

    private static func environment(_ name: String) -> String? {
        guard let value = getenv(name) else { return nil }
        return String(cString: value)
    }
}

extension String {
    fileprivate func replacingUnderscores() -> String {
        String(map { $0 == "_" ? "-" : $0 })
    }
}
