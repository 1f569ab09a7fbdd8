// The public merge's one-launch GPU kernel (merge.cpp, issue #30): merge_global's tile merge
// (merge_sort.cl's merge_tile), with each work-group finding its own tile's ends in the first
// range instead of reading them from merge_partition's launch. Joined after sort_key_order.cl and
// merge_sort.cl (SK, V, LOAD_SK, SK_LESS, merge_tile); needs MERGE_TWO_RANGES and MERGE_ELEMS.
#ifndef MERGE_TWO_RANGES
#error "merge_path.cl needs MERGE_TWO_RANGES"
#endif
#ifndef MERGE_ELEMS
#error "merge_path.cl needs MERGE_ELEMS"
#endif

// Co-rank by a (W+1)-ary search shared by the work-group: how many of the first d outputs of the
// stable merge of a[0, la) and b[0, lb) come from a, for two output positions d[0] and d[1] at
// once. The answer for d is the first x in [max(0, d - lb), min(d, la)) where b[d-1-x] goes
// strictly before a[x] (the end of that interval if none): that predicate is monotone in x, so
// each round the W work-items each probe one of W evenly spaced positions of the interval left,
// and the interval shrinks to the gap between the last probe that does not hold it and the first
// that does: log_(W+1) of the length rounds (4 at 2^25 keys and 256 work-items) instead of
// log_2 dependent reads. Every work-item calls it; the answers land in lo[0] and lo[1].
inline void co_rank_group(__global const SK* a, ulong la, __global const SK* b, ulong lb, const ulong* d,
                          __local ulong* lo, __local ulong* hi, __local uchar* took)
{
    const uint w = get_local_id(0), W = get_local_size(0);
    if (w == 0)
        for (uint s = 0; s < 2; ++s) {
            lo[s] = d[s] > lb ? d[s] - lb : 0;
            hi[s] = d[s] < la ? d[s] : la;
        }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (;;) {
        const ulong l0 = lo[0], h0 = hi[0], l1 = lo[1], h1 = hi[1];
        if (l0 >= h0 && l1 >= h1) break; // uniform: every work-item read the same values
        ulong p[2];
        for (uint s = 0; s < 2; ++s) {
            const ulong l = s ? l1 : l0, h = s ? h1 : h0, len = h - l;
            // Probe w of the interval: every position when it is short, else evenly spaced.
            p[s] = len <= W ? l + w : l + (ulong)(w + 1) * len / (W + 1);
            // 1: b[d-1-p] does not go before a[p]: the answer lies above p. Past the end: 0.
            took[s * W + w] = p[s] < h && !SK_LESS(LOAD_SK(b[d[s] - 1 - p[s]]), LOAD_SK(a[p[s]]));
            if (p[s] >= h) p[s] = h;
        }
        barrier(CLK_LOCAL_MEM_FENCE); // every probe before the boundary is read, and lo / hi read
        for (uint s = 0; s < 2; ++s) {
            const uchar t = took[s * W + w];
            if (t && (w + 1 == W || !took[s * W + w + 1])) lo[s] = p[s] + 1;
            if (!t && (w == 0 || took[s * W + w - 1])) hi[s] = p[s];
        }
        barrier(CLK_LOCAL_MEM_FENCE); // new bounds before the next round reads them
    }
}

// One launch for the whole merge: work-group g merges outputs [g * tile, min((g + 1) * tile, n))
// after finding where they start and end in the first range (co_rank_group), then merge_tile
// as in merge_global. lmem: merge_tile's local memory.
__kernel void merge_fused(__global const SK* in, ulong in_off, __global const V* vin, ulong vin_off,
                          __global const SK* in2, ulong in2_off, __global const V* vin2, ulong vin2_off,
                          __global SK* out, ulong out_off, __global V* vout, ulong vout_off, ulong n, ulong L,
                          __local ulong* lmem, __local uchar* took)
{
    (void)vin_off; (void)vout_off; (void)vin2; (void)vin2_off;
    __local ulong lo[2], hi[2];
    in += in_off;
    in2 += in2_off;
    out += out_off;
#ifdef SORT_HAS_VALUES
    vin += vin_off;
    vin2 += vin2_off;
    vout += vout_off;
#endif
    const uint tile = get_local_size(0) * MERGE_ELEMS;
    const ulong o0 = get_group_id(0) * (ulong)tile;
    const ulong o1 = min(o0 + tile, n);
    const ulong d[2] = {o0, o1};
    co_rank_group(in, L, in2, n - L, d, lo, hi, took);
    const ulong a0 = lo[0], a1 = lo[1];
    const uint total = (uint)(o1 - o0);
    // merge_tile's first barrier comes after its loads into lmem, which no one else reads here.
    if (total == tile) merge_tile(in, vin, in2, vin2, out, vout, a0, o0 - a0, o0, (uint)(a1 - a0), tile, 1, lmem, true);
    else merge_tile(in, vin, in2, vin2, out, vout, a0, o0 - a0, o0, (uint)(a1 - a0), total, 1, lmem, false);
}

// The two-launch variant's first launch with the shared search: work-group g finds where output
// tile g starts in the first range (splits[g], as merge_partition computes it with one
// work-item's binary search), in log_(W+1) rounds of parallel probes.
__kernel void merge_partition_group(__global const SK* in, ulong in_off, __global const SK* in2, ulong in2_off,
                                    ulong n, ulong L, ulong tile, __global ulong* splits, __local uchar* took)
{
    __local ulong lo[2], hi[2];
    in += in_off;
    in2 += in2_off;
    const ulong o0 = get_group_id(0) * tile;
    const ulong d[2] = {o0, o0};
    co_rank_group(in, L, in2, n - L, d, lo, hi, took);
    if (get_local_id(0) == 0) splits[get_group_id(0)] = lo[0];
}
