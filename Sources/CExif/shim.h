#include <libexif/exif-data.h>
#include <libexif/exif-utils.h>

/// The orientation tag (0x0112) of IFD0, or NULL. `exif_data_get_entry` is a macro, which
/// Swift cannot call; the tag belongs to IFD0 (the main image), so only that IFD is asked.
static inline ExifEntry *legible_exif_orientation_entry(ExifData *data) {
    return exif_content_get_entry(data->ifd[EXIF_IFD_0], EXIF_TAG_ORIENTATION);
}
