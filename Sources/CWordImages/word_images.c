// Tesseract 5.3 keeps each word image it is about to recognize as a PNG in memory
// (tesseract::ImageData::SetPixInternal calls pixWriteMem(…, IFF_PNG)) and decodes it again
// at once (ImageData::PreScale → pixReadMem): zlib deflate at its default level on every word
// or line, then inflate. Measured with perf on a saturated legibled: 10–12 % of a frame's CPU
// (docs/library-facts.md, "Word images"). The image never leaves the process, so the compression buys
// nothing.
//
// This definition of Leptonica's pixWriteMem, linked into the program, interposes the shared
// library's (the dynamic linker binds libtesseract's call to the first definition in the
// program's lookup scope): a PNG asked for is written as Leptonica's own serialization ("spix":
// a header, then the raster copied as it is) instead — lossless as well, and read back by
// pixReadMem's format detection, so Tesseract sees the same pixels. (PNM, used before, goes
// through stdio a byte at a time: 4 % of a whole-frame read; docs/library-facts.md.) Every
// other format goes to Leptonica's own pixWriteMem. Legible itself never writes PNG.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <leptonica/allheaders.h>

#include "legible_word_images.h"

typedef l_ok (*WriteMem)(l_uint8 **, size_t *, PIX *, l_int32);

l_ok pixWriteMem(l_uint8 **pdata, size_t *psize, PIX *pix, l_int32 format) {
    if (format == IFF_PNG) {
        return pixWriteMemSpix(pdata, psize, pix);
    }
    static WriteMem leptonica = NULL;
    WriteMem next = __atomic_load_n(&leptonica, __ATOMIC_ACQUIRE);
    if (next == NULL) {
        next = (WriteMem)dlsym(RTLD_NEXT, "pixWriteMem");
        if (next == NULL) {
            return 1;  // Leptonica's error value: nothing written.
        }
        __atomic_store_n(&leptonica, next, __ATOMIC_RELEASE);
    }
    return next(pdata, psize, pix, format);
}

int legible_word_images_uncompressed(void) {
    PIX *pix = pixCreate(2, 2, 8);
    if (pix == NULL) {
        return 0;
    }
    l_uint8 *data = NULL;
    size_t size = 0;
    // Through the dynamic symbol, as libtesseract calls it.
    WriteMem resolved = (WriteMem)dlsym(RTLD_DEFAULT, "pixWriteMem");
    int uncompressed = resolved != NULL && resolved(&data, &size, pix, IFF_PNG) == 0 && size >= 2 &&
                       data[0] == 's' && data[1] == 'p';
    if (data != NULL) {
        lept_free(data);
    }
    pixDestroy(&pix);
    return uncompressed;
}
