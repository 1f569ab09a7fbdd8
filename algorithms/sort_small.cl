// One-launch sort of a range that fits one work-group's local memory: the radix sort's path for
// small inputs (CUB's single-tile policy), where launch cost, not memory, is the time: the
// one-sweep path takes five launches (a histogram and four passes) for 1024 uint keys.
//
// Idea: a bitonic sorting network over (sortable key, original index) pairs in local memory.
// The index breaks ties, so equal keys keep their input order (stable, as the radix sort
// promises) although a bitonic network by itself is not stable. The range is padded to the
// power of two P with pairs (all-ones key, index >= n) that sort after every real key.
//
// Required macros: K... and V... (sort_key_order.cl's key type, the values' type, SORT_HAS_VALUES),
// SMALL_P (the padded size, a power of two), SMALL_WG (work-group size, a power of two <= SMALL_P).
// Needs sort_key_order.cl joined before it.
#ifndef SMALL_P
#error "sort_small.cl needs SMALL_P (the padded size, a power of two)"
#endif
#ifndef SMALL_WG
#error "sort_small.cl needs SMALL_WG (the work-group size)"
#endif
#ifndef K_UNSIGNED
#error "sort_small.cl needs the key type's macros (type_options(key, \"K\"))"
#endif

#define SMALL_PER_ITEM (SMALL_P / SMALL_WG)

// (a, ia) before (b, ib) in the sorted order: by key, then by input position.
inline bool small_before(K_UNSIGNED a, uint ia, K_UNSIGNED b, uint ib) { return a < b || (a == b && ia < ib); }

// The whole range [0, n) of keys (and values) is sorted in place by one work-group.
__kernel __attribute__((reqd_work_group_size(SMALL_WG, 1, 1)))
void sort_small(__global K* keys, ulong key_off, __global V* values, ulong value_off, uint n)
{
    __local K_UNSIGNED lk[SMALL_P];
    __local uint li[SMALL_P];
    const uint lid = get_local_id(0);
    keys += key_off;
    values += value_off;
    for (uint i = lid; i < SMALL_P; i += SMALL_WG) {
        lk[i] = i < n ? key_to_sortable(keys[i]) : ~(K_UNSIGNED)0;
        li[i] = i;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    // Bitonic network: for each block size 2^s, merges with distances 2^(s-1) .. 1; every
    // work-item takes SMALL_PER_ITEM / 2 compare-exchanges per step, one barrier per step.
    for (uint size = 2; size <= SMALL_P; size <<= 1) {
        for (uint dist = size >> 1; dist > 0; dist >>= 1) {
            for (uint c = lid; c < SMALL_P / 2; c += SMALL_WG) {
                const uint lo = ((c & ~(dist - 1)) << 1) | (c & (dist - 1)); // lower index of the pair
                const uint hi = lo + dist;
                const bool up = (lo & size) == 0; // this block ascends
                const K_UNSIGNED a = lk[lo], b = lk[hi];
                const uint ia = li[lo], ib = li[hi];
                if (small_before(b, ib, a, ia) == up) {
                    lk[lo] = b;
                    lk[hi] = a;
                    li[lo] = ib;
                    li[hi] = ia;
                }
            }
            barrier(CLK_LOCAL_MEM_FENCE);
        }
    }
#ifdef SORT_HAS_VALUES
    // Every value is read before any is written (one work-group: the global barrier orders them).
    V v[SMALL_PER_ITEM];
    for (uint q = 0; q < SMALL_PER_ITEM; ++q) {
        const uint i = lid + q * SMALL_WG;
        if (i < n) v[q] = values[li[i]];
    }
    barrier(CLK_GLOBAL_MEM_FENCE);
    for (uint q = 0; q < SMALL_PER_ITEM; ++q) {
        const uint i = lid + q * SMALL_WG;
        if (i < n) values[i] = v[q];
    }
#endif
    for (uint i = lid; i < n; i += SMALL_WG) keys[i] = sortable_to_key(lk[i]);
}
