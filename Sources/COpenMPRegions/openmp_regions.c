// Tesseract's LSTM opens an OpenMP parallel region on every time step (`LSTM::Forward` calls
// GOMP_parallel_sections; other loops call GOMP_parallel): about 10,000 regions for one 1280x720
// frame. Legible gives each engine one OpenMP thread (OMP_THREAD_LIMIT=1), so each region is a
// team of one, yet libgomp still ends every region at a barrier whose last thread wakes the
// others with a futex system call: ~10,700 futex(FUTEX_WAKE) calls per frame with nobody to
// wake, 3.3 % of an engine's CPU in the kernel and 1.6 % in libgomp (docs/library-facts.md,
// "Tesseract: OpenMP regions").
//
// These definitions of libgomp's entry points, linked into the program, interpose the shared
// library's (the dynamic linker binds libtesseract's calls to the first definition in the
// program's lookup scope, as for Sources/CWordImages). When OpenMP may use only one thread, a
// region is what libgomp makes of it, a team of one running the region's body once on the
// calling thread, without the team and its barrier: omp_get_num_threads() is 1 and
// omp_get_thread_num() 0 inside (no team, as libgomp answers outside any region), so a
// `parallel for` runs every iteration and `parallel sections` every section, in order. With
// more threads allowed, or LEGIBLE_OPENMP_REGIONS=libgomp in the environment (to measure the
// difference), every call goes to libgomp.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

#include "legible_openmp_regions.h"

typedef void (*RegionBody)(void *);
typedef void (*Parallel)(RegionBody, void *, unsigned, unsigned);

/// 1 inline, 0 libgomp's; decided once (the thread limit is read by libgomp as it loads).
static int decide(void) {
    static int decided = -1;
    int value = __atomic_load_n(&decided, __ATOMIC_ACQUIRE);
    if (value < 0) {
        const char *choice = getenv("LEGIBLE_OPENMP_REGIONS");
        // libgomp comes with libtesseract; looked up rather than linked, so that only the
        // programs that load it have it.
        int (*thread_limit)(void) = (int (*)(void))dlsym(RTLD_DEFAULT, "omp_get_thread_limit");
        value = thread_limit != NULL && thread_limit() == 1 && !(choice != NULL && strcmp(choice, "libgomp") == 0);
        __atomic_store_n(&decided, value, __ATOMIC_RELEASE);
    }
    return value;
}

/// The next function of that name after this program's (libgomp's), looked up once; NULL when
/// no library defines it.
static void *libgomp_function(void **cache, const char *name) {
    void *function = __atomic_load_n(cache, __ATOMIC_ACQUIRE);
    if (function == NULL) {
        function = dlsym(RTLD_NEXT, name);
        __atomic_store_n(cache, function, __ATOMIC_RELEASE);
    }
    return function;
}

void GOMP_parallel(RegionBody body, void *data, unsigned num_threads, unsigned flags) {
    static void *libgomp = NULL;
    Parallel next = decide() ? NULL : (Parallel)libgomp_function(&libgomp, "GOMP_parallel");
    if (next == NULL) {
        body(data);
        return;
    }
    next(body, data, num_threads, flags);
}

typedef void (*ParallelSections)(RegionBody, void *, unsigned, unsigned, unsigned);
typedef unsigned (*SectionsNext)(void);
typedef void (*SectionsEnd)(void);

/// The sections of the `parallel sections` region this thread runs inline: handed out by
/// GOMP_sections_next from 1 to `count`, then 0. Nested regions save and restore it.
static __thread struct {
    int active;
    unsigned next;
    unsigned count;
} inline_sections;

// `#pragma omp parallel sections` (LSTM::Forward's gates, one region per time step): the
// region's body asks GOMP_sections_next for section numbers until it answers 0.
void GOMP_parallel_sections(RegionBody body, void *data, unsigned num_threads, unsigned count, unsigned flags) {
    static void *libgomp = NULL;
    ParallelSections next =
        decide() ? NULL : (ParallelSections)libgomp_function(&libgomp, "GOMP_parallel_sections");
    if (next == NULL) {
        __typeof__(inline_sections) outer = inline_sections;
        inline_sections.active = 1;
        inline_sections.next = 1;
        inline_sections.count = count;
        body(data);
        inline_sections = outer;
        return;
    }
    next(body, data, num_threads, count, flags);
}

unsigned GOMP_sections_next(void) {
    if (inline_sections.active) {
        return inline_sections.next <= inline_sections.count ? inline_sections.next++ : 0;
    }
    static void *libgomp = NULL;
    return ((SectionsNext)libgomp_function(&libgomp, "GOMP_sections_next"))();
}

void GOMP_sections_end_nowait(void) {
    if (inline_sections.active) {
        return;
    }
    static void *libgomp = NULL;
    ((SectionsEnd)libgomp_function(&libgomp, "GOMP_sections_end_nowait"))();
}

int legible_openmp_regions_inline(void) {
    // Through the dynamic symbol, as libtesseract calls it.
    return dlsym(RTLD_DEFAULT, "GOMP_parallel") == (void *)GOMP_parallel &&
           dlsym(RTLD_DEFAULT, "GOMP_parallel_sections") == (void *)GOMP_parallel_sections &&
           dlsym(RTLD_DEFAULT, "GOMP_sections_next") == (void *)GOMP_sections_next &&
           dlsym(RTLD_DEFAULT, "GOMP_sections_end_nowait") == (void *)GOMP_sections_end_nowait && decide();
}
