#ifndef GPICK_TEST_HEAP_H
#define GPICK_TEST_HEAP_H
#include <stddef.h>

// Bytes malloc has handed out and not had back, over every arena (mallinfo2's uordblks and
// hblkhd): what a leak grows, unlike RSS, which keeps what malloc holds free.
size_t gpick_test_heap_in_use(void);

#endif
