// Counting sort of 16-bit keys alone (issue #30; host side in radix_counting16.cpp). Joined after
// sort_key_order.cl; needs K and its macros with K_BITS == 16, SORT_DESCENDING for the
// descending order, C16_SCAN_WG (count16_scan's work-group, a power of two dividing 65536).
//
// The idea (radix_counting.cl's for 8-bit keys, one digit wider): with no values, equal integer
// keys are the same bits, so the sorted range is known from how many times each of the 65536
// keys occurs: the run of the first key in the requested order, then the next one's, ... The
// counts come from the histogram primitive (clprim::histogram over the key range's value
// offsets: bin v counts the key lower + v; the primitive's bound is exclusive, so the last key,
// v = 65535, is not counted and is known as n minus the others). Then one work-group scans them
// into run starts in output order (count16_scan) and every work-item writes 16 consecutive
// outputs after one binary search over the starts (count16_fill). Reads the keys once (the
// histogram) and writes them once: no ranking, no scatter, no second buffer.
#ifndef K_BITS
#error "radix_counting16.cl needs K (the key type's macros; sort_key_order.cl joined before)"
#endif
#if K_BITS != 16
#error "radix_counting16.cl is for 16-bit keys"
#endif
#ifndef C16_SCAN_WG
#error "radix_counting16.cl needs C16_SCAN_WG"
#endif

#define C16_KEYS 65536u
#define C16_ITEMS 16u

// The histogram's bin of sortable rank s (the output order): ascending, the value offset is the
// ordered key itself (unsigned keys: the key; signed: the key + 32768); descending, its inverse.
inline uint c16_bin_of_rank(uint s)
{
#ifdef SORT_DESCENDING
    return C16_KEYS - 1u - s;
#else
    return s;
#endif
}

// starts[s]: the first output of rank s (s = 0..65535), starts[65536] = n. One work-group: each
// work-item sums C16_KEYS / C16_SCAN_WG consecutive ranks, the work-group scans the sums, then
// each work-item writes its ranks' starts.
__kernel __attribute__((reqd_work_group_size(C16_SCAN_WG, 1, 1)))
void count16_scan(__global const uint* counts, uint n, __global uint* starts)
{
    __local uint part[C16_SCAN_WG];
    const uint lid = get_local_id(0);
    const uint per = C16_KEYS / C16_SCAN_WG;
    const uint first = lid * per;
    uint sum = 0;
    for (uint j = 0; j < per; ++j) {
        const uint v = c16_bin_of_rank(first + j);
        sum += v < C16_KEYS - 1u ? counts[v] : 0u;
    }
    part[lid] = sum;
    barrier(CLK_LOCAL_MEM_FENCE);
    // Inclusive scan of the sums (Hillis-Steele; barriers between reading and writing).
    for (uint off = 1; off < C16_SCAN_WG; off <<= 1) {
        const uint add = lid >= off ? part[lid - off] : 0u;
        barrier(CLK_LOCAL_MEM_FENCE);
        part[lid] += add;
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    const uint counted = part[C16_SCAN_WG - 1]; // every key but the uncounted last one
    uint at = lid > 0 ? part[lid - 1] : 0u;
#ifdef SORT_DESCENDING
    if (lid > 0) at += n - counted; // the uncounted key has rank 0: its run comes first
#endif
    for (uint j = 0; j < per; ++j) {
        const uint v = c16_bin_of_rank(first + j);
        starts[first + j] = at;
        at += v < C16_KEYS - 1u ? counts[v] : n - counted;
    }
    if (lid == 0) starts[C16_KEYS] = n;
}

// Outputs [16 g, 16 g + 16): the rank of the first by binary search over the starts (a warp's
// searches take the same path, so its loads are mostly one address), then a walk.
__kernel void count16_fill(__global K_UNSIGNED* dst, ulong dst_off, uint n, __global const uint* starts)
{
    const ulong first = (ulong)get_global_id(0) * C16_ITEMS;
    if (first >= n) return;
    uint lo = 0, hi = C16_KEYS; // starts[lo] <= first < starts[hi]
    while (hi - lo > 1) {
        const uint mid = (lo + hi) >> 1;
        if (starts[mid] <= first) lo = mid;
        else hi = mid;
    }
    const uint m = (uint)min((ulong)C16_ITEMS, n - first);
    K_UNSIGNED v[C16_ITEMS];
    uint next = starts[lo + 1];
    for (uint j = 0; j < C16_ITEMS; ++j) {
        while (next <= first + j && lo + 1 < C16_KEYS) { // empty ranks have no outputs
            ++lo;
            next = starts[lo + 1];
        }
        v[j] = K_AS_UNSIGNED(sortable_to_key((K_UNSIGNED)lo));
    }
    if (m == C16_ITEMS && ((dst_off + first) & 7) == 0) { // 16-byte aligned: two 16-byte stores
        vstore16(vload16(0, v), 0, dst + dst_off + first);
    } else {
        for (uint j = 0; j < m; ++j) dst[dst_off + first + j] = v[j];
    }
}
