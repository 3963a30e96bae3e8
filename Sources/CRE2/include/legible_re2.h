#ifndef LEGIBLE_RE2_H
#define LEGIBLE_RE2_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// A compiled RE2 pattern (RE2 runs in time linear in the text: no backtracking).
typedef struct legible_re2 legible_re2;

/// Compiles `pattern` (UTF-8, `length` bytes) with at most `max_memory` bytes for RE2's
/// automata. NULL when it does not compile or is too large: RE2's reason is written to `error`
/// (NUL-terminated, cut to `error_capacity`).
legible_re2 *legible_re2_compile(const char *pattern, size_t length, int64_t max_memory, char *error,
                                 size_t error_capacity);

void legible_re2_free(legible_re2 *re);

/// The first match in text[start, length): 1 with its byte range in *match_start, *match_end; 0
/// when there is none.
int legible_re2_find(const legible_re2 *re, const char *text, size_t length, size_t start,
                     size_t *match_start, size_t *match_end);

#ifdef __cplusplus
}
#endif

#endif
