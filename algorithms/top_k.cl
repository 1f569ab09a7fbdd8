// The k smallest sortable keys (top_k, issue #30): a sampled threshold, one filtering read of the
// input, then a radix select over the few candidates; no host round trip. Joined after
// sort_key_order.cl; needs K (key type macros; SORT_DESCENDING for the k largest: their sortable
// bits are the k smallest), V (value type), TOPK_WG (work-group size of the filter and candidate
// kernels), TOPK_ITEMS (elements per work-item of the filter) and TOPK_SMALL (the largest k that
// topk_sort_small sorts in local memory). topk_sample runs 256 work-items.
//
// The order selected in is the composite (s, i): s = key_to_sortable(key), i = the element's
// index. It has no ties, so "the k smallest (s, i)" is exactly the k elements top_k wants (ties
// to the earlier element). The pipeline (top_k.cpp):
//  1. topk_sample (one work-group): S evenly spaced elements; T = the sample of rank `need` - 1
//     (need: a little above k * S / n, chosen by the host). Resets the state.
//  2. topk_filter: every element with s <= T is a candidate (appended, no order). When the
//     samples are representative, the candidates are about need * n / S: few, yet at least k.
//  3. topk_refilter: only if fewer than k passed (unlucky samples), the rest of the elements are
//     appended too (every element is then a candidate); otherwise it does nothing.
//  4. topk_pass, once per 8-bit digit of (s, i) from the top: a histogram of that digit over the
//     candidates matching the prefix fixed so far; the last work-group to finish (a ticket
//     counter, nobody waits) scans it and fixes the digit of the k-th. Passes after the bucket of
//     the k-th is taken whole return at once.
//  5. topk_gather: the candidates at or below the prefix: exactly k, in no order. topk_sort_small
//     sorts them by (s, i) in local memory and stores keys and values (small k); else the host
//     radix-sorts them, as composites s << 32 | i (keys of up to 32 bits: one sort of ulongs,
//     then topk_write_composite) or by i and then stably by s (then topk_write).
// The state `st` (uints): ST_KREM the rank (1-based) of the k-th among the candidates matching
// the prefix, ST_DEPTH the digits fixed, ST_DONE 1 once a whole bucket is taken, ST_OUT / ST_CAND
// / ST_EXTRA append counters, ST_TICKET the passes' ticket, the prefix (ST_KP_LO/HI of s, ST_IP
// of i) and the threshold T (ST_T_LO/HI).
#ifndef K
#error "top_k.cl needs K"
#endif
#ifndef V
#error "top_k.cl needs V"
#endif
#ifndef TOPK_WG
#error "top_k.cl needs TOPK_WG"
#endif
#if !defined(TOPK_ITEMS) || TOPK_ITEMS % 4 != 0
#error "top_k.cl needs TOPK_ITEMS, a multiple of 4"
#endif
#ifndef TOPK_SMALL
#error "top_k.cl needs TOPK_SMALL"
#endif

#define SK K_UNSIGNED
#define KD (K_BITS / 8)  // digits of s
#define ST_KREM 0
#define ST_DEPTH 1
#define ST_DONE 2
#define ST_OUT 3
#define ST_CAND 4
#define ST_EXTRA 5
#define ST_TICKET 6
#define ST_IP 7
#define ST_KP_LO 8
#define ST_KP_HI 9
#define ST_T_LO 10
#define ST_T_HI 11

inline SK get_sk(__global const uint* st, uint lo)
{
#if K_BITS == 64
    return (SK)st[lo] | ((SK)st[lo + 1] << 32);
#else
    return (SK)st[lo];
#endif
}

inline void set_sk(__global uint* st, uint lo, SK v)
{
    st[lo] = (uint)v;
#if K_BITS == 64
    st[lo + 1] = (uint)(v >> 32);
#endif
}

// Digit d (0 = the top one) of the composite (s, i).
inline uint digit_of(SK s, uint i, uint d)
{
    return d < KD ? (uint)(s >> (K_BITS - 8 * (d + 1))) & 255u : (i >> (32 - 8 * (d - KD + 1))) & 255u;
}

// The mask of the top d digits of s (d <= KD).
inline SK top_mask(uint d) { return d == 0 ? (SK)0 : (SK)(((SK)~(SK)0) << (K_BITS - 8 * d)); }

// Compares the first `depth` digits of (s, i) with the prefix (kp, ip): -1, 0 or 1.
inline int cmp_prefix(SK s, uint i, uint depth, SK kp, uint ip)
{
    const SK km = top_mask(min(depth, (uint)KD));
    if ((s & km) != kp) return (s & km) < kp ? -1 : 1;
    const uint id = depth > KD ? depth - KD : 0;
    const uint im = id == 0 ? 0u : 0xffffffffu << (32 - 8 * id);
    if ((i & im) != ip) return (i & im) < ip ? -1 : 1;
    return 0;
}

// Inclusive scan of sc[0, 256) in place (Hillis & Steele; work-item l < 256 holds bin l), then
// the bin b with sc[b - 1] < rank <= sc[b] into *pick (0 when rank is 0). Every work-item of the
// group calls it; those past 256 only take part in the barriers.
inline void scan_pick(__local uint* sc, uint rank, __local uint* pick)
{
    const uint l = get_local_id(0);
    if (l == 0) *pick = 0;
    for (uint off = 1; off < 256; off <<= 1) {
        const uint add = l < 256 && l >= off ? sc[l - off] : 0;
        barrier(CLK_LOCAL_MEM_FENCE);
        if (l < 256) sc[l] += add;
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (l < 256 && (l > 0 ? sc[l - 1] : 0) < rank && rank <= sc[l]) *pick = l;
    barrier(CLK_LOCAL_MEM_FENCE);
}

// Step 1, one work-group of 256: the threshold T = the sample of rank need - 1 among m samples at
// positions j * n / m, by a radix select in local memory (one 8-bit digit of s per round: count
// the samples matching the prefix, scan, keep the bin holding the rank). need > m: T = all ones
// (every element a candidate). Also resets the state and the passes' histogram.
__kernel __attribute__((reqd_work_group_size(256, 1, 1)))
void topk_sample(__global const K* in, ulong in_off, uint n, uint m, uint need, uint k, __global uint* st,
                 __global uint* hist, __local SK* ls)
{
    __local uint sc[256];
    __local uint pick;
    const uint l = get_local_id(0);
    in += in_off;
    hist[l] = 0;
    // Eight scattered loads in flight per work-item at a time.
    for (uint j = l; j < m; j += 8 * 256) {
        K x[8];
        for (uint u = 0; u < 8; ++u) x[u] = in[(uint)((ulong)min(j + u * 256, m - 1) * n / m)];
        for (uint u = 0; u < 8; ++u)
            if (j + u * 256 < m) ls[j + u * 256] = key_to_sortable(x[u]);
    }
    SK prefix = 0;
    uint rank = need; // 1-based among the samples matching the prefix
    const uint active = need <= m;
    for (uint d = 0; d < KD; ++d) {
        sc[l] = 0;
        barrier(CLK_LOCAL_MEM_FENCE);
        const SK mask = top_mask(d);
        for (uint j = l; j < m && active; j += 256)
            if ((ls[j] & mask) == prefix) atomic_inc(&sc[(uint)(ls[j] >> (K_BITS - 8 * (d + 1))) & 255u]);
        barrier(CLK_LOCAL_MEM_FENCE);
        scan_pick(sc, active ? rank : 0, &pick);
        const uint b = pick;
        rank -= b > 0 ? sc[b - 1] : 0;
        prefix |= (SK)b << (K_BITS - 8 * (d + 1));
        barrier(CLK_LOCAL_MEM_FENCE); // sc and pick are reused
    }
    if (l == 0) {
        st[ST_KREM] = k;
        st[ST_DEPTH] = 0;
        st[ST_DONE] = 0;
        st[ST_OUT] = 0;
        st[ST_CAND] = 0;
        st[ST_EXTRA] = 0;
        st[ST_TICKET] = 0;
        st[ST_IP] = 0;
        set_sk(st, ST_KP_LO, 0);
        set_sk(st, ST_T_LO, active ? prefix : (SK)~(SK)0);
    }
}

// Reserves room for this work-item's `cnt` hits in a list whose length is *counter: one global
// atomic per work-group with hits. Returns where the work-item's hits go. Needs *lcount = 0 and a barrier
// before; every work-item of the group calls it.
inline uint group_append(uint cnt, __global uint* counter, __local uint* lcount, __local uint* lbase)
{
    const uint mine = cnt ? atomic_add(lcount, cnt) : 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (get_local_id(0) == 0) *lbase = *lcount ? atomic_add(counter, *lcount) : 0; // most tiles have none
    barrier(CLK_LOCAL_MEM_FENCE);
    return *lbase + mine;
}

// Step 2 (`extra` = 0): one read of the input (vector loads of 4 keys), tiles of TOPK_WG *
// TOPK_ITEMS elements: every element with s <= T joins the candidate list. Step 3 (`extra` = 1): only when step 2 found
// fewer than k, the elements with s > T join after them (counted in ST_EXTRA, so that ST_CAND
// stays what every work-group read); else nothing.
__kernel __attribute__((reqd_work_group_size(TOPK_WG, 1, 1)))
void topk_filter(__global const K* in, ulong in_off, uint n, uint k, uint extra, __global uint* st, __global SK* cs,
                 __global uint* ci)
{
    __local uint lcount, lbase;
    in += in_off;
    const SK T = get_sk(st, ST_T_LO);
    const uint c0 = extra ? st[ST_CAND] : 0; // step 2 adds to it
    // No early return (PoCL mishandles barriers after one): an idle group runs with no elements.
    const uint live = !extra || c0 < k;
    const ulong tile = TOPK_WG * TOPK_ITEMS, tiles = live ? (n + tile - 1) / tile : 0;
    // One tile per work-group when the grid covers the input (step 2), else grid-stride (step 3).
    for (ulong g = get_group_id(0); g < tiles; g += get_num_groups(0)) {
        // Item t of a work-item: runs of 4 consecutive elements (one vector load), the runs of
        // the group side by side: j = g * tile + ((t / 4) * TOPK_WG + local id) * 4 + t % 4.
        const ulong base = g * tile + get_local_id(0) * 4;
        SK s[TOPK_ITEMS];
        uint cnt = 0;
        if (get_local_id(0) == 0) lcount = 0;
        barrier(CLK_LOCAL_MEM_FENCE);
        if (g * tile + tile <= n) {
            for (uint r = 0; r < TOPK_ITEMS / 4; ++r) {
                const CLPRIM_CAT(K, 4) x = vload4(0, in + base + (ulong)r * 4 * TOPK_WG);
                s[4 * r] = key_to_sortable(x.s0);
                s[4 * r + 1] = key_to_sortable(x.s1);
                s[4 * r + 2] = key_to_sortable(x.s2);
                s[4 * r + 3] = key_to_sortable(x.s3);
            }
        } else {
            for (uint t = 0; t < TOPK_ITEMS; ++t) {
                const ulong j = base + (ulong)(t / 4) * 4 * TOPK_WG + t % 4;
                s[t] = j < n ? key_to_sortable(in[j]) : (SK)0;
            }
        }
        for (uint t = 0; t < TOPK_ITEMS; ++t) {
            const ulong j = base + (ulong)(t / 4) * 4 * TOPK_WG + t % 4;
            cnt += j < n && (extra ? s[t] > T : s[t] <= T);
        }
        uint o = group_append(cnt, &st[extra ? ST_EXTRA : ST_CAND], &lcount, &lbase) + (extra ? c0 : 0);
        for (uint t = 0; t < TOPK_ITEMS && cnt; ++t) {
            const ulong j = base + (ulong)(t / 4) * 4 * TOPK_WG + t % 4;
            if (j < n && (extra ? s[t] > T : s[t] <= T)) {
                cs[o] = s[t];
                ci[o] = (uint)j;
                ++o;
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE); // lcount and lbase are reset next tile
    }
}

// Step 4, digit `depth` of (s, i): a local histogram of the candidates matching the prefix
// (grid-stride), added to `hist`; the last work-group to add its part (ST_TICKET) reads and
// clears `hist` with atomics, finds the bin b holding rank ST_KREM, lowers ST_KREM by the
// candidates below b and appends b to the prefix. A bin holding exactly the rest is taken
// whole: ST_DONE, and later passes count nothing. Nobody waits for another group.
__kernel __attribute__((reqd_work_group_size(TOPK_WG, 1, 1)))
void topk_pass(__global const SK* cs, __global const uint* ci, uint depth, __global uint* st, __global uint* hist)
{
    __local uint lh[256];
    __local uint last, pick;
    const uint l = get_local_id(0);
    for (uint b = l; b < 256; b += TOPK_WG) lh[b] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    const uint done = st[ST_DONE];
    const uint count = done ? 0 : st[ST_CAND] + st[ST_EXTRA];
    const uint krem = st[ST_KREM];
    const SK kp = get_sk(st, ST_KP_LO);
    const uint ip = st[ST_IP];
    for (uint j = get_global_id(0); j < count; j += get_global_size(0)) {
        const SK s = cs[j];
        const uint i = ci[j];
        if (cmp_prefix(s, i, depth, kp, ip) == 0) atomic_inc(&lh[digit_of(s, i, depth)]);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint b = l; b < 256; b += TOPK_WG)
        if (lh[b]) atomic_add(&hist[b], lh[b]);
    clprim_device_fence(); // our counts before our ticket, for every group (clprim_types.cl)
    barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);
    if (l == 0) last = !done && atomic_inc(&st[ST_TICKET]) == get_num_groups(0) - 1;
    barrier(CLK_LOCAL_MEM_FENCE);
    // Uniform in the group; no early return (see topk_filter).
    const uint is_last = last;
    if (is_last) clprim_device_fence(); // every group's counts, seen after its ticket
    for (uint b = l; b < 256; b += TOPK_WG)
        if (is_last) lh[b] = atomic_xchg(&hist[b], 0);
    barrier(CLK_LOCAL_MEM_FENCE);
#if TOPK_WG >= 256
    // Only the last group scans (is_last is the same for all its work-items: the barriers inside
    // are reached by the whole group or by none of it).
    uint b = 0, below = 0, in_b = 0;
    if (is_last) {
        scan_pick(lh, krem, &pick);
        b = pick;
        below = b > 0 ? lh[b - 1] : 0;
        in_b = lh[b] - below;
    }
#else
    // One work-item scans (the group is narrower than the 256 bins).
    uint below = 0, b = 0;
    if (l == 0 && is_last)
        while (below + lh[b] < krem) below += lh[b++];
    const uint in_b = lh[b];
#endif
    if (l == 0 && is_last) {
        st[ST_TICKET] = 0;
        st[ST_KREM] = krem - below;
        st[ST_DEPTH] = depth + 1;
        if (krem - below == in_b) st[ST_DONE] = 1;
        if (depth < KD) set_sk(st, ST_KP_LO, kp | ((SK)b << (K_BITS - 8 * (depth + 1))));
        else st[ST_IP] = ip | (b << (32 - 8 * (depth - KD + 1)));
    }
}

// Step 5: the candidates at or below the prefix on its ST_DEPTH digits: the k results, appended
// to (os, oi), or as composites s << 32 | i to oc, in grid-stride rounds.
__kernel __attribute__((reqd_work_group_size(TOPK_WG, 1, 1)))
void topk_gather(__global uint* st, __global const SK* cs, __global const uint* ci, __global SK* os,
                 __global uint* oi, __global ulong* oc, uint compose)
{
    __local uint lcount, lbase;
    const uint count = st[ST_CAND] + st[ST_EXTRA];
    const uint depth = st[ST_DEPTH];
    const SK kp = get_sk(st, ST_KP_LO);
    const uint ip = st[ST_IP];
    // One candidate per work-item per round (every work-group busy; its loads issued at once).
    for (ulong r0 = get_group_id(0) * (ulong)TOPK_WG; r0 < count; r0 += get_global_size(0)) {
        const ulong j = r0 + get_local_id(0);
        const SK s = j < count ? cs[j] : (SK)0;
        const uint i = j < count ? ci[j] : 0;
        const uint hit = j < count && cmp_prefix(s, i, depth, kp, ip) <= 0;
        if (get_local_id(0) == 0) lcount = 0;
        barrier(CLK_LOCAL_MEM_FENCE);
        const uint o = group_append(hit, &st[ST_OUT], &lcount, &lbase);
        if (hit) {
#if K_BITS <= 32
            if (compose) oc[o] = ((ulong)s << 32) | i;
            else
#endif
            {
                os[o] = s;
                oi[o] = i;
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE); // lcount and lbase are reset next round
    }
}

// Small k (k <= TOPK_SMALL, a power of two): the k survivors of topk_gather sorted by (s, i) in
// one work-group's local memory (a bitonic sort, padded with (all ones, all ones), which sorts
// last) and stored as keys and values: one launch instead of two radix sorts and topk_write.
__kernel void topk_sort_small(__global const SK* cs, __global const uint* ci, uint k, __global K* keys,
                              ulong keys_off, __global const V* vin, ulong vin_off, __global V* vout, ulong vout_off,
                              uint with_values)
{
    __local SK ls[TOPK_SMALL];
    __local uint li[TOPK_SMALL];
    const uint l = get_local_id(0), wg = get_local_size(0);
    uint m = 1; // the sort's width: a power of two >= k
    while (m < k) m <<= 1;
    for (uint j = l; j < m; j += wg) {
        ls[j] = j < k ? cs[j] : (SK)~(SK)0;
        li[j] = j < k ? ci[j] : 0xffffffffu;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint size = 2; size <= m; size <<= 1)
        for (uint stride = size >> 1; stride > 0; stride >>= 1) {
            for (uint t = l; t < m / 2; t += wg) {
                const uint a = 2 * t - (t & (stride - 1)), b = a + stride; // pair (a, b), a's bit `stride` clear
                const bool up = (a & size) == 0;
                const SK sa = ls[a], sb = ls[b];
                const uint ia = li[a], ib = li[b];
                const bool a_after = sa > sb || (sa == sb && ia > ib);
                if (a_after == up) {
                    ls[a] = sb;
                    ls[b] = sa;
                    li[a] = ib;
                    li[b] = ia;
                }
            }
            barrier(CLK_LOCAL_MEM_FENCE);
        }
    for (uint j = l; j < k; j += wg) {
        keys[keys_off + j] = sortable_to_key(ls[j]);
        if (with_values) vout[vout_off + j] = vin[vin_off + li[j]];
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

// The k results in order from composites (s << 32 | i, keys of up to 32 bits) sorted as ulongs.
__kernel void topk_write_composite(__global const ulong* c, ulong k, __global K* keys, ulong keys_off,
                                   __global const V* vin, ulong vin_off, __global V* vout, ulong vout_off,
                                   uint with_values)
{
    const ulong j = get_global_id(0);
    if (j >= k) return;
    const ulong x = c[j];
    keys[keys_off + j] = sortable_to_key((SK)(x >> 32));
    if (with_values) vout[vout_off + j] = vin[vin_off + (uint)x];
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
