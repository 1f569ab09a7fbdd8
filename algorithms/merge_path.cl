// The merge rounds' split search (merge_split, which merge_sort.cl's merge_partition calls: where
// each output tile of merge_global starts in its left run), issue #30. Joined after
// sort_key_order.cl and merge_sort.cl (SK, LOAD_SK, SK_LESS, co_rank) in every program built from
// merge_sort.cl. A sample spacing S = 2^shift > 1 (a launch argument) takes the sampled search
// below; shift 0 merge_sort.cl's binary co_rank.
//
// Why sampled: a binary co-rank search over runs of 2^25 keys makes 25 dependent reads of memory
// (0.036 ms at 2^26 on the H100, a sixth of the merge), and spreading them over more reads per
// round (k-ary probes) made it slower: the cost is the scattered reads themselves. With every
// S-th key of each run copied into small arrays first (merge_samples: 1/S of the keys, which the
// L2 cache then holds), the search runs over the samples, then over the S keys between two of
// them: log2(S) reads of memory in one small window instead of 25 spread over the whole run.
// The samples line up with the search because every split's diagonal d is a multiple of S (S
// divides the tile): at x = iS the co-rank test compares a[iS] with b[d - 1 - iS] =
// b[(d/S - i - 1) S + S - 1], so the first run is sampled at iS and the second at kS + S - 1.
// sa[i] = in[iS] for iS < na, sb[k] = in2[kS + S - 1] for kS + S <= nb (sortable bits). The
// sort's rounds sample their one buffer both ways (in2 = in, na = nb = n).
__kernel void merge_samples(__global const SK* in, ulong in_off, ulong na, __global const SK* in2, ulong in2_off,
                            ulong nb, __global SK* sa, __global SK* sb, uint shift)
{
    in += in_off;
    in2 += in2_off;
    const ulong S = (ulong)1 << shift, ca = (na + S - 1) >> shift, cb = nb >> shift;
    for (ulong i = get_global_id(0); i < max(ca, cb); i += get_global_size(0)) {
        if (i < ca) sa[i] = LOAD_SK(in[i << shift]);
        if (i < cb) sb[i] = LOAD_SK(in2[(i << shift) + S - 1]);
    }
}

// The first x in [lo, hi) where b[d-1-x] goes strictly before a[x] (hi if none): a binary search
// with a fixed step count per interval length (the predicate is monotone in x).
inline ulong co_rank_between(__global const SK* a, __global const SK* b, ulong d, ulong lo, ulong hi)
{
    ulong first = lo, len = hi - lo;
    while (len > 0) {
        const ulong step = len >> 1, x = first + step;
        const bool before = SK_LESS(LOAD_SK(b[d - 1 - x]), LOAD_SK(a[x]));
        first = before ? first : x + 1;
        len = before ? step : len - step - 1;
    }
    return first;
}

// How many of the first d outputs of the stable merge of a[0, la) and b[0, lb) come from a (the
// pair of runs at `base`, see pair_of; sa / sb: merge_samples' arrays of the spacing 2^shift,
// read only when shift > 0).
ulong merge_split(__global const SK* a, ulong la, __global const SK* b, ulong lb, ulong d, ulong base,
                  __global const SK* sa, __global const SK* sb, uint shift)
{
    if (shift == 0) return co_rank(a, la, b, lb, d);
#ifdef MERGE_TWO_RANGES
    (void)base;
#else
    sa += base >> shift;      // this pair's first run starts at base
    sb += (base + la) >> shift; // its second at base + la (= base + L when lb > 0)
#endif
    const ulong S = (ulong)1 << shift;
    ulong lo = d > lb ? d - lb : 0, hi = d < la ? d : la;
    // Over the samples: the first i with iS in [lo, hi) where the test holds (i1 if none).
    const ulong i0 = (lo + S - 1) >> shift, i1 = (hi + S - 1) >> shift, dk = d >> shift;
    ulong ib = i0, len = i1 - i0;
    while (len > 0) {
        const ulong step = len >> 1, i = ib + step;
        const bool before = SK_LESS(sb[dk - i - 1], sa[i]);
        ib = before ? ib : i + 1;
        len = before ? step : len - step - 1;
    }
    // The answer lies after sample ib - 1 (where the test fails) and at or before sample ib.
    if (ib > i0) lo = ((ib - 1) << shift) + 1;
    if (ib < i1) hi = ib << shift;
    return co_rank_between(a, b, d, lo, hi);
}
