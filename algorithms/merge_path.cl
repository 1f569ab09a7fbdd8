// The merge rounds' split search with fewer rounds of memory latency (issue #30): where each
// output tile of merge_global starts in its left run, as merge_partition finds it, by a k-ary
// search instead of a binary one. Joined after sort_key_order.cl and merge_sort.cl (SK, LOAD_SK,
// SK_LESS, pair_of, RUN_B). MERGE_PROBES (probes per round: 1, 3, 7, 15 or 31) turns it on;
// without it the file holds nothing (the rounds take merge_partition).
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

// merge_partition with co_rank_probes: splits[g] for every output tile g, one work-item each.
__kernel void merge_partition_probes(__global const SK* in, ulong in_off, __global const SK* in2, ulong in2_off,
                                     ulong n, ulong L, ulong tile, __global ulong* splits, ulong groups)
{
    const ulong g = get_global_id(0);
    if (g >= groups) return;
    in += in_off;
    in2 += in2_off;
    const ulong o0 = g * tile;
    ulong la, lb;
    const ulong base = pair_of(o0, n, L, &la, &lb);
    splits[g] = co_rank_probes(in + base, la, RUN_B(in, in2, base, la), lb, o0 - base);
}

#undef MERGE_PROBE_SHIFT
#endif // MERGE_PROBES
