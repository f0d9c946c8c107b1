#ifndef PERIPHERY_ALLOCATION_COUNTER_H
#define PERIPHERY_ALLOCATION_COUNTER_H

#include <stdbool.h>
#include <stdint.h>

/// Whether this build replaces the C allocator with the counting one (not under a sanitizer,
/// whose runtime owns malloc).
bool periphery_allocation_counter_available(void);

/// Starts or stops counting heap allocations made by any thread of the process.
void periphery_allocation_counting(bool enabled);

/// Allocations (malloc, calloc, realloc, posix_memalign, aligned_alloc, memalign, valloc)
/// counted since the process began counting.
uint64_t periphery_allocation_count(void);

#endif
