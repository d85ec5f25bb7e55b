#ifndef CRUD_BENCH_HEAP_H
#define CRUD_BENCH_HEAP_H
#include <stddef.h>

/// Bytes the C heap has handed out and not had back (glibc's mallinfo2), or 0 where there is no
/// glibc: what a leak grows, unlike resident memory, which also counts freed memory kept.
size_t crud_bench_heap_in_use(void);

#endif
