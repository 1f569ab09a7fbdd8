// The merge rounds' split search (merge_split, which merge_sort.cl's merge_partition calls: where
// each output tile of merge_global starts in its left run): merge_sort.cl's binary co_rank, or
// with MERGE_PROBES (probes per round: 1, 3, 7, 15 or 31) a k-ary search with fewer rounds of
// memory latency (issue #30). Joined after sort_key_order.cl and merge_sort.cl (SK, LOAD_SK,
// SK_LESS, co_rank) in every program built from merge_sort.cl.
#ifdef MERGE_PROBES
#if MERGE_PROBES != 1 && MERGE_PROBES != 3 && MERGE_PROBES != 7 && MERGE_PROBES != 15 && MERGE_PROBES != 31
#error "merge_path.cl: MERGE_PROBES is 1, 3, 7, 15 or 31"
#endif
#define MERGE_PROBE_SHIFT (MERGE_PROBES == 1 ? 1 : MERGE_PROBES == 3 ? 2 : MERGE_PROBES == 7 ? 3 : MERGE_PROBES == 15 ? 4 : 5)

// How many of the first d outputs of the stable merge of a[0, la) and b[0, lb) come from a (as
// co_rank in merge_sort.cl): the first x in [max(0, d - lb), min(d, la)) where b[d-1-x] goes
// strictly before a[x], or the end of that interval. The predicate is monotone in x, so a round
// probes MERGE_PROBES evenly spaced places of the interval left, all reads issued before any is
// compared (one memory latency per round, not one per probe), and keeps the gap between the last
// probe where it does not hold and the first where it does: log_(P+1) of the length rounds
// (7 at 2^25 keys with 15 probes) instead of log_2 (25). The last round probes every place left.
inline ulong co_rank_probes(__global const SK* a, ulong la, __global const SK* b, ulong lb, ulong d)
{
    ulong lo = d > lb ? d - lb : 0, hi = d < la ? d : la;
    while (lo < hi) {
        const ulong len = hi - lo;
        const bool last = len <= MERGE_PROBES;
        SK av[MERGE_PROBES], bv[MERGE_PROBES];
#pragma unroll
        for (uint j = 0; j < MERGE_PROBES; ++j) {
            // place j: lo + j on the last round (past the end read at hi - 1, not counted), else
            // lo + (j + 1) * len / (P + 1), inside [lo, hi).
            const ulong x = last ? min(lo + j, hi - 1) : lo + (((ulong)(j + 1) * len) >> MERGE_PROBE_SHIFT);
            av[j] = LOAD_SK(a[x]);
            bv[j] = LOAD_SK(b[d - 1 - x]);
        }
        uint taken = 0; // probes where the predicate does not hold: a prefix of them
#pragma unroll
        for (uint j = 0; j < MERGE_PROBES; ++j)
            taken += (!SK_LESS(bv[j], av[j]) && (!last || j < len)) ? 1 : 0;
        if (last) return lo + taken;
        const ulong x_below = lo + (((ulong)taken * len) >> MERGE_PROBE_SHIFT); // probe taken - 1 (or lo)
        const ulong x_at = lo + (((ulong)(taken + 1) * len) >> MERGE_PROBE_SHIFT); // probe taken (or hi)
        hi = taken == MERGE_PROBES ? hi : x_at;
        lo = taken == 0 ? lo : x_below + 1;
    }
    return lo;
}

#endif // MERGE_PROBES

// merge_partition's split search (declared in merge_sort.cl).
ulong merge_split(__global const SK* a, ulong la, __global const SK* b, ulong lb, ulong d)
{
#ifdef MERGE_PROBES
    return co_rank_probes(a, la, b, lb, d);
#else
    return co_rank(a, la, b, lb, d);
#endif
}
