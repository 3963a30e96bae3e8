/// When a frame is noise, not text, for Tesseract's page layout (`--max-noise`).
///
/// Tesseract's page layout analysis cannot be stopped (its monitor is only asked between
/// words) and takes time superlinear in the size of a noisy image: a 2000×2000 frame of random
/// black and white pixels held an engine 6 s, 3000×3000 43 s. So an image of `fromPixels` or
/// more has its noise measured first — the share of horizontally neighbouring pixels that
/// differ in Tesseract's own thresholded image — and is refused above `maximumShare`.
///
/// Measured in document mode (`python3 bench/noise_share.py`): random black and white pixels
/// 0.49–0.50 at every size; the corpus's 18 images of 1 MP or more (pages, receipts, signs,
/// screenshots) 0.00–0.06; 4000×3000 pages of 22 and 14 px print 0.10 and 0.16. Coarser noise
/// (runs of two pixels or more, ≤ 0.25) is not caught; only a worker process that can be
/// killed bounds every image.
public enum NoiseGate {
    /// Smaller images are analysed within about a second at worst (1000×1000 noise: 0.7 s).
    public static let fromPixels = 1_000_000
    /// The default of `--max-noise`.
    public static let defaultMaximumShare = 0.3
}
