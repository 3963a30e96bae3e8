// RE2 behind a small C API, so that Swift reaches it without C++ interop. RE2 guarantees
// matching in time linear in the text, which is why client patterns run through it.
#include "legible_re2.h"

#include <re2/re2.h>

#include <cstdio>
#include <cstring>
#include <new>
#include <string>

struct legible_re2 {
    RE2 re;
    legible_re2(const re2::StringPiece &pattern, const RE2::Options &options) : re(pattern, options) {}
};

extern "C" legible_re2 *legible_re2_compile(const char *pattern, size_t length, int64_t max_memory, char *error,
                                            size_t error_capacity) {
    RE2::Options options;
    options.set_encoding(RE2::Options::EncodingUTF8);
    options.set_log_errors(false);
    options.set_max_mem(max_memory);
    legible_re2 *compiled = new (std::nothrow) legible_re2(re2::StringPiece(pattern, length), options);
    if (compiled == nullptr) {
        if (error_capacity > 0) std::snprintf(error, error_capacity, "out of memory");
        return nullptr;
    }
    if (!compiled->re.ok()) {
        if (error_capacity > 0) std::snprintf(error, error_capacity, "%s", compiled->re.error().c_str());
        delete compiled;
        return nullptr;
    }
    return compiled;
}

extern "C" void legible_re2_free(legible_re2 *re) { delete re; }

extern "C" int legible_re2_find(const legible_re2 *re, const char *text, size_t length, size_t start,
                                size_t *match_start, size_t *match_end) {
    if (start > length) return 0;
    re2::StringPiece whole(text, length);
    re2::StringPiece match;
    if (!re->re.Match(whole, start, length, RE2::UNANCHORED, &match, 1)) return 0;
    *match_start = static_cast<size_t>(match.data() - text);
    *match_end = *match_start + match.size();
    return 1;
}
