internal import Glibc

/// Where Tesseract's models are on this machine.
public enum TesseractModels {
    /// The folder holding the `.traineddata` files: `TESSDATA_PREFIX` when set (Tesseract 5
    /// reads it as that folder itself), else Debian's path.
    public static var defaultTessdata: String {
        if let prefix = getenv("TESSDATA_PREFIX").map({ String(cString: $0) }), !prefix.isEmpty { return prefix }
        return "/usr/share/tesseract-ocr/5/tessdata"
    }

    /// The `.traineddata` file of `model` in `tessdata`.
    public static func path(of model: String, in tessdata: String) -> String {
        tessdata.hasSuffix("/") ? "\(tessdata)\(model).traineddata" : "\(tessdata)/\(model).traineddata"
    }

    /// Whether `model` can be read from `tessdata`.
    public static func isInstalled(_ model: String, in tessdata: String) -> Bool {
        access(path(of: model, in: tessdata), R_OK) == 0
    }

    /// The models of `candidates` that are installed in `tessdata`.
    public static func installed(_ candidates: [String], in tessdata: String) -> Set<String> {
        Set(candidates.filter { isInstalled($0, in: tessdata) })
    }
}
