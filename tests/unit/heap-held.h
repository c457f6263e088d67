/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the heap holds, for the tests of memory bounds: glibc's count of
 * chunks in use and mapped blocks, or under AddressSanitizer (whose
 * allocator glibc's mallinfo2() does not see: it counts nothing there)
 * the sanitizer's count of bytes allocated and not freed.
 */
#ifndef VMALYZE_TEST_HEAP_HELD_H
#define VMALYZE_TEST_HEAP_HELD_H

#include <malloc.h>
#include <stddef.h>

#if defined(__SANITIZE_ADDRESS__)
#define HEAP_HELD_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define HEAP_HELD_ASAN 1
#endif
#endif

#ifdef HEAP_HELD_ASAN
/* The sanitizers' common interface (sanitizer/allocator_interface.h, not in every toolchain). */
size_t __sanitizer_get_current_allocated_bytes(void);
#endif

static inline size_t heap_held(void)
{
#ifdef HEAP_HELD_ASAN
	return __sanitizer_get_current_allocated_bytes();
#else
	struct mallinfo2 mi = mallinfo2();

	return mi.uordblks + mi.hblkhd;
#endif
}

#endif /* VMALYZE_TEST_HEAP_HELD_H */
