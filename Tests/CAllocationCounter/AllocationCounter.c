// A counting C allocator for the allocation-free tests of the hot path (issue 8).
//
// The test executable defines malloc and its relatives, so every allocation of the process —
// Swift's runtime, Foundation, OpenBLAS — comes through here (ELF interposition: a definition in
// the executable wins over libc's) and is forwarded to glibc's own entry points. Counting is off
// until a test turns it on, and costs one relaxed atomic load per call otherwise.
//
// Under AddressSanitizer or ThreadSanitizer the sanitizer runtime owns malloc; defining it here
// as well would bypass the sanitizer, so the counter is compiled out and reports unavailable.

#include "AllocationCounter.h"

#if defined(__has_feature)
#  if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#    define PERIPHERY_SANITIZED 1
#  endif
#endif

#ifndef PERIPHERY_SANITIZED

#include <errno.h>
#include <stdatomic.h>
#include <stddef.h>
#include <unistd.h>

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void __libc_free(void *);
extern void *__libc_memalign(size_t, size_t);

static atomic_bool counting = false;
static atomic_uint_fast64_t allocations = 0;

static inline void count(void) {
    if (atomic_load_explicit(&counting, memory_order_relaxed)) {
        atomic_fetch_add_explicit(&allocations, 1, memory_order_relaxed);
    }
}

bool periphery_allocation_counter_available(void) { return true; }

void periphery_allocation_counting(bool enabled) {
    atomic_store_explicit(&counting, enabled, memory_order_seq_cst);
}

uint64_t periphery_allocation_count(void) {
    return atomic_load_explicit(&allocations, memory_order_seq_cst);
}

void *malloc(size_t size) { count(); return __libc_malloc(size); }
void *calloc(size_t n, size_t size) { count(); return __libc_calloc(n, size); }
void *realloc(void *p, size_t size) { count(); return __libc_realloc(p, size); }
void free(void *p) { __libc_free(p); }
void *memalign(size_t alignment, size_t size) { count(); return __libc_memalign(alignment, size); }
void *aligned_alloc(size_t alignment, size_t size) { count(); return __libc_memalign(alignment, size); }
void *valloc(size_t size) { count(); return __libc_memalign((size_t)sysconf(_SC_PAGESIZE), size); }

int posix_memalign(void **out, size_t alignment, size_t size) {
    if (alignment < sizeof(void *) || (alignment & (alignment - 1)) != 0) return EINVAL;
    count();
    void *p = __libc_memalign(alignment, size);
    if (p == NULL && size != 0) return ENOMEM;
    *out = p;
    return 0;
}

#else

bool periphery_allocation_counter_available(void) { return false; }
void periphery_allocation_counting(bool enabled) { (void)enabled; }
uint64_t periphery_allocation_count(void) { return 0; }

#endif
