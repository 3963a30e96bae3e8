internal import CExif
public import LegibleCore

/// Reads a JPEG's EXIF orientation tag (0x0112) with libexif.
///
/// Phones store pixels as the sensor saw them and write the turn into this tag; a client that
/// forwards such a JPEG with ORIENTATION_UNSPECIFIED gets the tag's orientation applied.
public enum ExifOrientation {
    /// The tag's value when the JPEG carries an Exif APP1 segment with it and the value is
    /// one of the 8 orientations; nil otherwise (no EXIF, no tag, a bad value, garbage).
    public static func read(fromJPEG data: [UInt8]) -> Orientation? {
        // libexif walks the JPEG's markers itself, but only after allocating its context;
        // most camera frames carry no EXIF at all, so look for the segment first.
        guard hasExifSegment(data) else { return nil }
        return data.withUnsafeBufferPointer { bytes -> Orientation? in
            guard let exif = exif_data_new_from_data(bytes.baseAddress, UInt32(clamping: bytes.count)) else {
                return nil
            }
            defer { exif_data_unref(exif) }
            guard let entry = legible_exif_orientation_entry(exif), entry.pointee.format == EXIF_FORMAT_SHORT,
                entry.pointee.components >= 1, entry.pointee.size >= 2, let value = entry.pointee.data
            else { return nil }
            let raw = exif_get_short(value, exif_data_get_byte_order(exif))
            return Orientation(rawValue: Int(raw))
        }
    }

    /// Whether an APP1 segment starting "Exif\0\0" comes before the frame header: EXIF
    /// always sits among the first APPn segments after SOI.
    static func hasExifSegment(_ data: [UInt8]) -> Bool {
        guard data.count >= 4, data[0] == 0xFF, data[1] == 0xD8 else { return false }
        var offset = 2
        while offset + 4 <= data.count, data[offset] == 0xFF {
            let marker = data[offset + 1]
            // Only APPn (E0–EF) and COM (FE) may come before the EXIF block we look for.
            guard (0xE0...0xEF).contains(marker) || marker == 0xFE else { return false }
            let length = Int(data[offset + 2]) << 8 | Int(data[offset + 3])
            if marker == 0xE1, length >= 8, offset + 10 <= data.count,
                data[(offset + 4)..<(offset + 10)].elementsEqual([0x45, 0x78, 0x69, 0x66, 0, 0])
            {
                return true
            }
            guard length >= 2 else { return false }
            offset += 2 + length
        }
        return false
    }
}
