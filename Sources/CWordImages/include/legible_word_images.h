#ifndef LEGIBLE_WORD_IMAGES_H
#define LEGIBLE_WORD_IMAGES_H

/// True when this process's `pixWriteMem` is Legible's (the definition in word_images.c
/// interposes Leptonica's): a PNG asked for in memory is written as Leptonica's uncompressed
/// serialization (spix). LegibleTesseract calls it once per engine, which also keeps the
/// object file in every program that reads with Tesseract.
int legible_word_images_uncompressed(void);

#endif
