// Counting sort of 8-bit keys alone, the one-sweep radix sort's one-digit case (host side in
// radix_onesweep.cpp). Joined after radix_onesweep.cl, whose onesweep_histogram has already
// counted the keys and scanned the counts into digit starts (info[INFO_STARTS + d]).
//
// The idea: with one digit that is the whole key and no values, the sorted range is fully known
// from the counts: the run of digit 0, then the run of digit 1, ... Equal integer keys are the same
// bits, so writing each run's key count times is the sort; no scatter pass and no second buffer
// (a one-pass scatter could not work in place). Each work-item writes COUNT_ITEMS consecutive
// outputs: one binary search over the 256 starts in local memory for the first, then a walk.
//
// Needs (besides radix_onesweep.cl's): PASSES == 1 and no HAS_VALUES, else the kernel is left out.
#ifndef INFO_STARTS
#error "radix_counting.cl needs radix_onesweep.cl joined before it"
#endif

#if PASSES == 1 && !defined(HAS_VALUES)
#define COUNT_ITEMS 16u

__kernel void onesweep_counting_fill(__global bits_t* dst, ulong dst_off, uint n, __global const uint* info_all,
                                     ulong info_off)
{
    __local uint starts[RADIX + 1];
    __global const uint* info = info_all + info_off;
    for (uint i = get_local_id(0); i < RADIX; i += get_local_size(0)) starts[i] = info[INFO_STARTS + i];
    if (get_local_id(0) == 0) starts[RADIX] = n;
    barrier(CLK_LOCAL_MEM_FENCE);
    const ulong first = (ulong)get_global_id(0) * COUNT_ITEMS;
    if (first >= n) return;
    uint lo = 0, hi = RADIX; // the digit of position first: starts[lo] <= first < starts[hi]
    while (hi - lo > 1) {
        const uint mid = (lo + hi) / 2;
        if (starts[mid] <= first) lo = mid;
        else hi = mid;
    }
    const uint m = (uint)min((ulong)COUNT_ITEMS, n - first);
    bits_t v[COUNT_ITEMS];
    for (uint j = 0; j < COUNT_ITEMS; ++j) {
        while (starts[lo + 1] <= first + j && lo + 1 < RADIX) ++lo; // empty digits have no positions
        v[j] = K_AS_UNSIGNED(sortable_to_key((bits_t)lo));
    }
    if (m == COUNT_ITEMS) { // one 16-byte store: a warp writes 512 consecutive bytes
        vstore16(vload16(0, v), 0, dst + dst_off + first);
    } else {
        for (uint j = 0; j < m; ++j) dst[dst_off + first + j] = v[j];
    }
}
#endif
