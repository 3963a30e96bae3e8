#ifndef LEGIBLE_OPENMP_REGIONS_H
#define LEGIBLE_OPENMP_REGIONS_H

/// True when this process's OpenMP entry points (`GOMP_parallel`, `GOMP_parallel_sections` and
/// the sections calls) are Legible's — openmp_regions.c interposes libgomp's — and run parallel
/// regions on the calling thread, as they do when OpenMP may use one thread
/// (`OMP_THREAD_LIMIT=1`, which legibled sets) and `LEGIBLE_OPENMP_REGIONS=libgomp` is not in
/// the environment. LegibleTesseract calls it once
/// per engine, which also keeps the object file in every program that reads with Tesseract.
int legible_openmp_regions_inline(void);

#endif
