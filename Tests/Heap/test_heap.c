#include "test_heap.h"
#include <malloc.h>

size_t gpick_test_heap_in_use(void) {
    struct mallinfo2 m = mallinfo2();
    return m.uordblks + m.hblkhd;
}
