#ifndef LEGIBLE_PNG_MESSAGES_H
#define LEGIBLE_PNG_MESSAGES_H

#include <stddef.h>

/// Copies into `buffer` (NUL-terminated, at most `size` bytes) the message of the last libpng
/// error on this thread and forgets it; returns 0 when there was none. See png_messages.c.
int legible_png_take_error(char *buffer, size_t size);

#endif
