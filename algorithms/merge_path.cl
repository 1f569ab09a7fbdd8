// The public merge's split search (merge.cpp, issue #30): where each output tile of merge_global
// starts in the first range. Joined after sort_key_order.cl and merge_sort.cl (SK, LOAD_SK,
// SK_LESS); needs MERGE_TWO_RANGES.
#ifndef MERGE_TWO_RANGES
#error "merge_path.cl needs MERGE_TWO_RANGES"
#endif

#define MERGE_PROBES 8

// Co-rank by a 9-ary search in one work-item: how many of the first d outputs of the stable
// merge of a[0, la) and b[0, lb) come from a. The answer is the first x in [max(0, d - lb),
// min(d, la)) where b[d-1-x] goes strictly before a[x] (the end of that interval if none): that
// predicate is monotone in x, so each round probes MERGE_PROBES evenly spaced positions of the
// interval left at once (independent reads, all in flight) and keeps the gap between the last
// probe where it does not hold and the first where it does: log_9 of the length rounds of
// memory latency (8 at 2^25 keys) instead of log_2 (25).
inline ulong co_rank_probes(__global const SK* a, ulong la, __global const SK* b, ulong lb, ulong d)
{
    ulong lo = d > lb ? d - lb : 0, hi = d < la ? d : la;
    while (lo < hi) {
        const ulong len = hi - lo;
        ulong p[MERGE_PROBES];
        bool took[MERGE_PROBES];
        for (uint j = 0; j < MERGE_PROBES; ++j) {
            p[j] = len <= MERGE_PROBES ? lo + j : lo + (ulong)(j + 1) * len / (MERGE_PROBES + 1);
            const ulong q = min(p[j], hi - 1); // past the end: read a valid place, count as not taken
            took[j] = p[j] < hi && !SK_LESS(LOAD_SK(b[d - 1 - q]), LOAD_SK(a[q]));
        }
        ulong nlo = lo, nhi = hi;
        for (uint j = 0; j < MERGE_PROBES; ++j) {
            if (took[j]) nlo = p[j] + 1;
            else if (p[j] < nhi) nhi = p[j];
        }
        lo = nlo;
        hi = nhi;
    }
    return lo;
}

// splits[g] = where output tile g (g * tile outputs before it) starts in the first range, as
// merge_partition computes it with a binary search: one work-item per split.
__kernel void merge_partition_probes(__global const SK* in, ulong in_off, __global const SK* in2, ulong in2_off,
                                     ulong n, ulong L, ulong tile, __global ulong* splits, ulong groups)
{
    const ulong g = get_global_id(0);
    if (g >= groups) return;
    splits[g] = co_rank_probes(in + in_off, L, in2 + in2_off, n - L, g * tile);
}
