// libpng reports a damaged PNG through its error function, and its default one writes
// "libpng error: …" straight to stderr, a raw line in the server's log (JSON included).
// Leptonica, which reads PNGs for Legible, makes its read structs without an error function.
//
// This definition of libpng's png_create_read_struct, linked into the program, interposes the
// library's (as Sources/CWordImages does for pixWriteMem): a read struct made without error or
// warning functions gets ours. The error function keeps the message for the thread (PNGReader
// puts it in the error the client gets) and leaves by png_longjmp, as libpng's default does;
// warnings are dropped, as Leptonica's own messages are. A caller that brings its own
// functions keeps them.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <png.h>
#include <stdio.h>
#include <string.h>

#include "legible_png_messages.h"

static _Thread_local char last_error[256];

static void keep_error(png_structp png, png_const_charp message) {
    snprintf(last_error, sizeof last_error, "%s", message != NULL ? message : "unknown error");
    png_longjmp(png, 1);
}

static void drop_warning(png_structp png, png_const_charp message) {
    (void)png;
    (void)message;
}

typedef png_structp (*CreateReadStruct)(png_const_charp, png_voidp, png_error_ptr, png_error_ptr);

png_structp png_create_read_struct(png_const_charp version, png_voidp error_pointer, png_error_ptr error_function,
                                   png_error_ptr warning_function) {
    static CreateReadStruct libpng = NULL;
    CreateReadStruct next = __atomic_load_n(&libpng, __ATOMIC_ACQUIRE);
    if (next == NULL) {
        next = (CreateReadStruct)dlsym(RTLD_NEXT, "png_create_read_struct");
        if (next == NULL) {
            return NULL;  // as libpng does when it cannot make the struct
        }
        __atomic_store_n(&libpng, next, __ATOMIC_RELEASE);
    }
    return next(version, error_pointer, error_function != NULL ? error_function : keep_error,
                warning_function != NULL ? warning_function : drop_warning);
}

int legible_png_take_error(char *buffer, size_t size) {
    if (last_error[0] == '\0' || size == 0) {
        return 0;
    }
    snprintf(buffer, size, "%s", last_error);
    last_error[0] = '\0';
    return 1;
}
