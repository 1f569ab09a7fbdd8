// The k smallest sortable keys (top_k, issue #30): a radix select on the device, no host round
// trip. Joined after sort_key_order.cl; needs K (key type macros; SORT_DESCENDING for the k
// largest: their sortable bits are the k smallest), V (value type) and TOPK_WG (the work-group
// size of every kernel but topk_select, which runs 256 work-items).
//
// The order selected in is the composite (s, i): s = key_to_sortable(key), i = the element's
// index. It has no ties, so "the k smallest (s, i)" is exactly the k elements top_k wants (ties
// to the earlier element). Digits of 8 bits are taken from the top: K_BITS / 8 digits of s, then
// 4 digits of i (n < 2^32). The device keeps the state of the search in `st`:
//   st[ST_KREM]  the rank (1-based) of the k-th element among the elements still matching the
//                prefix, st[ST_DEPTH] the digits fixed so far, st[ST_DONE] 1 once a whole bucket is
//                taken (every later pass returns at once), st[ST_OUT] / st[ST_CAND] counters of the
//                output and candidate lists, and the prefix itself: st[ST_KP_LO/HI] (the fixed top
//                digits of s, in place) and st[ST_IP] (of i).
// The pipeline (top_k.cpp): topk_init; topk_histogram over the whole input (first digit);
// topk_select (one work-group: a scan of the 256 counts finds the bucket holding rank k);
// topk_compact (elements below that bucket are certainly taken: to the output list; those in it
// become candidates); then per further digit topk_histogram over the candidates and topk_select;
// finally topk_gather appends the candidates at or below the prefix. Exactly k (s, i) pairs land
// in the output list, in no particular order: the host sorts them (by i, then stably by s) and
// topk_write stores keys and values in that order.
#ifndef K
#error "top_k.cl needs K"
#endif
#ifndef V
#error "top_k.cl needs V"
#endif
#ifndef TOPK_WG
#error "top_k.cl needs TOPK_WG"
#endif

#define SK K_UNSIGNED
#define KD (K_BITS / 8)  // digits of s
#define TD (KD + 4)      // digits of (s, i)
#define ST_KREM 0
#define ST_DEPTH 1
#define ST_DONE 2
#define ST_OUT 3
#define ST_CAND 4
#define ST_IP 5
#define ST_KP_LO 6
#define ST_KP_HI 7

inline SK prefix_s(__global const uint* st)
{
#if K_BITS <= 32
    return st[ST_KP_LO];
#else
    return (SK)st[ST_KP_LO] | ((SK)st[ST_KP_HI] << 32);
#endif
}

// Digit d (0 = the top one) of the composite (s, i).
inline uint digit_of(SK s, uint i, uint d)
{
    return d < KD ? (uint)(s >> (K_BITS - 8 * (d + 1))) & 255u : (i >> (32 - 8 * (d - KD + 1))) & 255u;
}

// Compares the first `depth` digits of (s, i) with the prefix (kp, ip): -1, 0 or 1.
inline int cmp_prefix(SK s, uint i, uint depth, SK kp, uint ip)
{
    const uint kd = min(depth, (uint)KD);
    const SK km = kd == 0 ? (SK)0 : ((SK)~(SK)0) << (K_BITS - 8 * kd);
    if ((s & km) != kp) return (s & km) < kp ? -1 : 1;
    const uint id = depth > KD ? depth - KD : 0;
    const uint im = id == 0 ? 0u : 0xffffffffu << (32 - 8 * id);
    if ((i & im) != ip) return (i & im) < ip ? -1 : 1;
    return 0;
}

// Resets the state and the histogram for a search for the k smallest.
__kernel void topk_init(__global uint* st, __global uint* hist, uint k)
{
    const uint l = get_global_id(0);
    if (l < 256) hist[l] = 0;
    if (l == 0) {
        st[ST_KREM] = k;
        st[ST_DEPTH] = 0;
        st[ST_DONE] = 0;
        st[ST_OUT] = 0;
        st[ST_CAND] = 0;
        st[ST_IP] = 0;
        st[ST_KP_LO] = 0;
        st[ST_KP_HI] = 0;
    }
}

// Counts digit `depth` of the elements that match the prefix on the digits before it: the whole
// input (`first`: the keys, converted; i = position) or the candidate list (count in st). A local
// histogram per work-group, added to the global one with one atomic per bin.
__kernel __attribute__((reqd_work_group_size(TOPK_WG, 1, 1)))
void topk_histogram(__global const K* in, ulong in_off, uint n, __global const SK* cs, __global const uint* ci,
                    uint first, uint depth, __global const uint* st, __global uint* hist)
{
    __local uint lh[256];
    for (uint b = get_local_id(0); b < 256; b += TOPK_WG) lh[b] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    in += in_off;
    // Once done, nothing to count (no early return: PoCL mishandles barriers after one).
    const uint count = st[ST_DONE] ? 0 : first ? n : st[ST_CAND];
    const SK kp = prefix_s(st);
    const uint ip = st[ST_IP];
    for (uint j = get_global_id(0); j < count; j += get_global_size(0)) {
        const SK s = first ? key_to_sortable(in[j]) : cs[j];
        const uint i = first ? j : ci[j];
        if (first || cmp_prefix(s, i, depth, kp, ip) == 0) atomic_inc(&lh[digit_of(s, i, depth)]);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint b = get_local_id(0); b < 256; b += TOPK_WG)
        if (lh[b]) atomic_add(&hist[b], lh[b]);
}

// One work-group of 256: finds the bucket b of digit `depth` that holds the k-th (rank st[KREM])
// of the matching elements, by a scan of the counts (inclusive, Hillis & Steele in local memory).
// The ranks below b are certainly taken: KREM drops by them; b joins the prefix. A bucket whose
// count equals the remaining rank is taken whole: the search is done. Clears the histogram.
__kernel __attribute__((reqd_work_group_size(256, 1, 1)))
void topk_select(__global uint* st, __global uint* hist, uint depth)
{
    __local uint sc[256];
    __local uint pick;
    const uint l = get_local_id(0);
    const uint done = st[ST_DONE];
    const uint krem = st[ST_KREM];
    sc[l] = hist[l];
    hist[l] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint off = 1; off < 256; off <<= 1) {
        const uint add = l >= off ? sc[l - off] : 0;
        barrier(CLK_LOCAL_MEM_FENCE);
        sc[l] += add;
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    const uint below = l > 0 ? sc[l - 1] : 0;
    // Exactly one bucket has below < krem <= sc[l].
    if (!done && below < krem && krem <= sc[l]) pick = l;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (done || l != pick) return;
    const uint cnt = sc[l] - below;
    st[ST_KREM] = krem - below;
    st[ST_DEPTH] = depth + 1;
    if (krem - below == cnt) st[ST_DONE] = 1;
    if (depth < KD) {
        const SK kp = prefix_s(st) | ((SK)l << (K_BITS - 8 * (depth + 1)));
        st[ST_KP_LO] = (uint)kp;
#if K_BITS == 64
        st[ST_KP_HI] = (uint)(kp >> 32);
#endif
    } else {
        st[ST_IP] |= l << (32 - 8 * (depth - KD + 1));
    }
}

// After the first select: elements below the picked top digit go to the output list (certainly
// among the k), those with it to the candidate list; both appended with atomics (no order).
__kernel __attribute__((reqd_work_group_size(TOPK_WG, 1, 1)))
void topk_compact(__global const K* in, ulong in_off, uint n, __global uint* st, __global SK* os, __global uint* oi,
                  __global SK* cs, __global uint* ci)
{
    in += in_off;
    const uint b = (uint)(prefix_s(st) >> (K_BITS - 8)) & 255u;
    for (uint j = get_global_id(0); j < n; j += get_global_size(0)) {
        const SK s = key_to_sortable(in[j]);
        const uint d = (uint)(s >> (K_BITS - 8)) & 255u;
        if (d < b) {
            const uint o = atomic_inc(&st[ST_OUT]);
            os[o] = s;
            oi[o] = j;
        } else if (d == b) {
            const uint c = atomic_inc(&st[ST_CAND]);
            cs[c] = s;
            ci[c] = j;
        }
    }
}

// The last step: candidates at or below the prefix on its st[DEPTH] digits are the rest of the k.
__kernel __attribute__((reqd_work_group_size(TOPK_WG, 1, 1)))
void topk_gather(__global uint* st, __global const SK* cs, __global const uint* ci, __global SK* os, __global uint* oi)
{
    const uint count = st[ST_CAND];
    const uint depth = st[ST_DEPTH];
    const SK kp = prefix_s(st);
    const uint ip = st[ST_IP];
    for (uint j = get_global_id(0); j < count; j += get_global_size(0)) {
        if (cmp_prefix(cs[j], ci[j], depth, kp, ip) <= 0) {
            const uint o = atomic_inc(&st[ST_OUT]);
            os[o] = cs[j];
            oi[o] = ci[j];
        }
    }
}

// The sort path (and its first step): every element's sortable bits and its index.
__kernel void topk_sortable(__global const K* in, ulong in_off, ulong n, __global SK* s, __global uint* idx)
{
    in += in_off;
    const ulong j = get_global_id(0);
    if (j < n) {
        s[j] = key_to_sortable(in[j]);
        idx[j] = (uint)j;
    }
}

// The k results in order: keys from their sortable bits, values gathered by index.
__kernel void topk_write(__global const SK* s, __global const uint* idx, ulong k, __global K* keys, ulong keys_off,
                         __global const V* vin, ulong vin_off, __global V* vout, ulong vout_off, uint with_values)
{
    const ulong j = get_global_id(0);
    if (j >= k) return;
    keys[keys_off + j] = sortable_to_key(s[j]);
    if (with_values) vout[vout_off + j] = vin[vin_off + idx[j]];
}
