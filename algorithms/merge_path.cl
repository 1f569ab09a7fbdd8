// The public merge's split search (merge.cpp, issue #30): where each output tile of merge_global
// starts in the first range, one work-group per tile sharing the search. Joined after
// sort_key_order.cl and merge_sort.cl (SK, LOAD_SK, SK_LESS); needs MERGE_TWO_RANGES.
#ifndef MERGE_TWO_RANGES
#error "merge_path.cl needs MERGE_TWO_RANGES"
#endif

// Co-rank by a (W+1)-ary search shared by the work-group: how many of the first d outputs of the
// stable merge of a[0, la) and b[0, lb) come from a (into *lo). The answer is the first x in
// [max(0, d - lb), min(d, la)) where b[d-1-x] goes strictly before a[x] (the end of that interval
// if none): that predicate is monotone in x, so each round the W work-items each probe one of W
// evenly spaced positions of the interval left, and the interval shrinks to the gap between the
// last probe where the predicate does not hold and the first where it does: log_(W+1) of the
// length rounds of parallel reads (5 at 2^25 keys and 32 work-items) instead of log_2 dependent
// ones. Every work-item calls it.
inline void co_rank_group(__global const SK* a, ulong la, __global const SK* b, ulong lb, ulong d, __local ulong* lo,
                          __local ulong* hi, __local uchar* took)
{
    const uint w = get_local_id(0), W = get_local_size(0);
    if (w == 0) {
        *lo = d > lb ? d - lb : 0;
        *hi = d < la ? d : la;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (;;) {
        const ulong l = *lo, h = *hi, len = h - l;
        if (l >= h) break; // uniform: every work-item read the same values
        // Probe w of the interval: every position when it is short, else evenly spaced.
        ulong p = len <= W ? l + w : l + (ulong)(w + 1) * len / (W + 1);
        // 1: b[d-1-p] does not go before a[p], so the answer lies above p. Past the end: 0.
        took[w] = p < h && !SK_LESS(LOAD_SK(b[d - 1 - p]), LOAD_SK(a[p]));
        if (p >= h) p = h;
        barrier(CLK_LOCAL_MEM_FENCE); // every probe before the boundary is read, and lo / hi read
        const uchar t = took[w];
        if (t && (w + 1 == W || !took[w + 1])) *lo = p + 1;
        if (!t && (w == 0 || took[w - 1])) *hi = p;
        barrier(CLK_LOCAL_MEM_FENCE); // new bounds before the next round reads them
    }
}

// Work-group g finds where output tile g (g * tile outputs before it) starts in the first range:
// splits[g], as merge_partition computes it with one work-item's binary search.
__kernel void merge_partition_group(__global const SK* in, ulong in_off, __global const SK* in2, ulong in2_off,
                                    ulong n, ulong L, ulong tile, __global ulong* splits, __local uchar* took)
{
    __local ulong lo, hi;
    in += in_off;
    in2 += in2_off;
    co_rank_group(in, L, in2, n - L, get_group_id(0) * tile, &lo, &hi, took);
    if (get_local_id(0) == 0) splits[get_group_id(0)] = lo;
}
