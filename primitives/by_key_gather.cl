// The by-key family's single pass, shaped for few registers (by_key_lookback.cl keeps each
// work-item's BK_ITEMS elements in registers from the load to the store; on the H100 that took
// 94 registers a work-item for unique and 138 for reduce_by_key, two or three work-groups per
// SM: too few loads in flight to stream at memory speed). Here the tile stays in local memory
// from the load to the store and nothing is held through the work-group scan and the look-back
// but the work-item's pair and its head flags (the bits of one uint):
//   load     keys, then values: coalesced reads into local memory (one pad slot every 32);
//   fold     each work-item folds its BK_ITEMS consecutive elements, read from local memory, to
//            one pair (the same operations in the same order as bk_tile_pair, the fallback's);
//   scan     the work-group scans the pairs; each work-item leaves its exclusive count of heads
//            in the tile and its head flags in local memory (woff, wmask); the tile publishes,
//            looks back, publishes its prefix (by_key_lookback.cl: bk_look_back);
//   stream   (modes with values) each work-item walks its elements once more and writes what the
//            epilogue needs at the places of its own elements: scans by key their results;
//            reduce_by_key / run-length the value of the run that closes at a head (at the
//            head's slot, the last run's one past the tile's last element); with BK_EARLY (the
//            scans by key) before the look-back, all but the tile's leading run, which is
//            streamed again after it; with BK_RLE_POSITIONS (run-length on GPUs) not at all:
//            a run's length is the distance between two heads' places;
//   gather   the tile's results go out as one contiguous run, consecutive work-items to
//            consecutive addresses: result s of the tile (the s-th head; partition: its s-th
//            kept or dropped element) is found by a search over woff (the work-item holding
//            it: between two entries of an owner map, own, of every 32nd result's work-item,
//            written beside woff) and a select over that work-item's head flags, and is
//            read from local memory where the load left it. No element moves inside local
//            memory, so no work-item waits for another to have read its elements first.
//
// Joined after by_key_tile.cl (same macros; BK_TILE_PROLOGUE, BK_FOLD_SHARE, bk_tile_chain).
// Optional: BK_INDEX, BK_EARLY (default 1), BK_RLE_POSITIONS, BK_EARLY_GATHER (host:
// by_key_policy.hpp; measurements: CLPRIM_BY_KEY_OPTIONS).

#ifndef BK_TILE_PAD
#error "by_key_gather.cl needs by_key_lookback.cl first"
#endif

// The position of the r-th (from 0) set bit of m; r < popcount(m): five halvings, or with
// -DBK_FNS on NVIDIA builds (BK_PTX, set by the host) PTX's fns ("find n-th set bit";
// measurements: CLPRIM_BY_KEY_OPTIONS).
inline uint bk_select_bit(uint m, uint r)
{
#if defined(BK_PTX) && defined(BK_FNS)
    uint d;
    asm("fns.b32 %0, %1, 0, %2;" : "=r"(d) : "r"(m), "r"(r + 1));
    return d;
#endif
    uint p = 0;
    for (uint w = 16; w > 0; w >>= 1) {
        const uint c = popcount(m & ((1u << w) - 1u));
        if (r >= c) {
            r -= c;
            m >>= w;
            p += w;
        }
    }
    return p;
}

// BK_INDEX=1: instead of searching (owner maps, a select), each work-item writes, right after
// the scan, the tile element of each of its results at that result's place in idx (one ushort
// per element: more local memory, far fewer instructions per result where every element is one,
// as in a partition). The host picks it (by_key_policy.hpp).
#ifndef BK_INDEX
#define BK_INDEX 0
#endif

// Results per owner-map entry: own[c] is the work-item holding the tile's result c * BK_OWN_STEP.
#define BK_OWN_STEP 32u

// The last work-item w with before(w) <= s, where before(w) counts the tile's heads (dropped:
// the tile's non-heads) in the work-items before w: nondecreasing in w, 0 for w = 0; s < total,
// the tile's results of that kind. own: the owner map (own[c]: that work-item for s = c *
// BK_OWN_STEP, for every such s < total). The answer lies between own[c] and own[c + 1] (the
// last work-item where the map ends): a search over a few.
inline uint bk_owner(__local const uint* woff, __local const uint* own, uint total, uint wg, uint count, uint s,
                     bool dropped)
{
    const uint c = s / BK_OWN_STEP;
    uint lo = own[c], hi = (c + 1) * BK_OWN_STEP < total ? own[c + 1] + 1 : wg; // answer in [lo, hi)
    while (hi - lo > 1) {
        const uint mid = (lo + hi) >> 1;
        const uint before = dropped ? min(mid * (uint)BK_ITEMS, count) - woff[mid] : woff[mid];
        if (before <= s) lo = mid;
        else hi = mid;
    }
    return lo;
}

// Work-item lid, holding results [r, r + k) of a kind, enters itself in that kind's owner map
// at every multiple of BK_OWN_STEP in its range.
inline void bk_own(__local uint* own, uint lid, uint r, uint k)
{
    for (uint c = (r + BK_OWN_STEP - 1) / BK_OWN_STEP; c * BK_OWN_STEP < r + k; ++c) own[c] = lid;
}

// The tile element of the tile's result s, results ordered heads first, then (partition) the
// non-heads, each in order (tc heads in the tile): the work-item holding it by bk_owner, the
// element by a select over that work-item's head flags.
inline uint bk_result_at(__local const uint* woff, __local const uint* wmask, __local const uint* own, uint tile_n,
                         uint wg, uint count, uint tc, uint s)
{
    const bool kept = s < tc;
    const uint r = kept ? s : s - tc;
    __local const uint* map = kept ? own : own + tile_n / BK_OWN_STEP + 1;
    const uint w = bk_owner(woff, map, kept ? tc : count - tc, wg, count, r, !kept);
    const uint before = kept ? woff[w] : min(w * (uint)BK_ITEMS, count) - woff[w];
    return w * BK_ITEMS + bk_select_bit(kept ? wmask[w] : ~wmask[w], r - before);
}

#ifndef BK_EARLY
#define BK_EARLY 1
#endif
// BK_RLE_POSITIONS=1 (run_length_encode, host: CLPRIM_BY_KEY_RLE=positions): a run's length is
// the distance between its head and the next (the first result of a tile adds the elements of
// its run before the tile, the look-back's value): no stream, no values staged.
#ifndef BK_RLE_POSITIONS
#define BK_RLE_POSITIONS 0
#endif
#define BK_STREAMS (BK_HAS_VALUES && !(BK_MODE == 4 && BK_RLE_POSITIONS))
#ifndef BK_EARLY_GATHER
#define BK_EARLY_GATHER 0
#endif

#if BK_HAS_VALUES
// The stream (modes with values): each work-item walks its elements once more from its exclusive
// value ev and writes what the epilogue needs at the places of its own elements: scans by
// key their results; reduce_by_key / run-length the value of the run that closes at a head (at
// the head's slot; the range's last run one past the range's last element, a slot no one reads
// before). A work-item writes only at its own elements' slots, after reading them.
// ec: the work-item's exclusive count within the tile (0: it may hold the tile's leading run,
// the elements before the tile's first head). BK_EARLY (before the look-back, ev the
// work-item's value within the tile): the leading run is left as it is; the work-item holding
// the first head notes where it is in *lead_at (lid 0 set it to the tile's count before). Then
// (lead_only, after the look-back, ev over the whole range) a work-item of the leading run walks
// it again and writes it, and the value of the run it closes at the first head's slot.
inline void bk_stream(ulong n, ulong from, uint first, uint mine, uint heads, uint ec, V ev, uint flags, V init,
                      __local V* tv, __local uint* lead_at, bool lead_only)
{
    V vv = ev;
    // This work-item's elements in the tile's leading run: those before its first head, when no
    // work-item before it has one.
    const uint leading = ec == 0 ? (heads ? popcount((heads & (0u - heads)) - 1u) : mine) : 0u;
#if BK_EARLY
    if (!lead_only && ec == 0 && heads) *lead_at = first + leading; // (one work-item)
#endif
#pragma unroll
    for (uint j = 0; j < BK_ITEMS; ++j) {
        if (j < mine && (!lead_only || j <= leading)) {
            const uint q = BK_TILE_PAD(first + j);
            const ulong i = from + j;
            const uint h = (heads >> j) & 1u;
            const bool write = !BK_EARLY || lead_only || j >= leading;
            if (lead_only && j == leading) { // the first head (its own result does not change)
#if BK_MODE != 2
                if (i > 0) tv[q] = vv;
#endif
            } else {
#if BK_MODE == 4
                const V x = (V)1;
#else
                const V x = tv[q];
#endif
#if BK_MODE == 2
                if (write && !(flags & BK_INCLUSIVE)) tv[q] = h ? init : BK_OP(init, vv);
                vv = h ? x : BK_OP(vv, x);
                if (write && (flags & BK_INCLUSIVE)) tv[q] = vv;
#else // 1, 4: the value of the run that closes here, at the head's slot
                if (write && h && i > 0) tv[q] = vv;
                vv = h ? x : BK_OP(vv, x);
                if (write && i == n - 1) tv[BK_TILE_PAD(first + j + 1)] = vv;
#endif
            }
        }
    }
}
#endif

// One work-group per tile, tiles numbered in the order their work-groups start (as
// by_key_lookback). tk, tv: BK_TILE_PAD(tile) + 1 elements each (tv unused without values);
// woff, wmask: one word per work-item; own: 2 * (tile / BK_OWN_STEP + 1) words (the owner maps
// of the heads, then of the non-heads); idx (BK_INDEX): one ushort per tile element. (Arrays an
// epilogue does not use may be a word long.)
__kernel void by_key_gather(BK_ARGS, __global volatile ulong* status, uint epoch, __local uint* sc, __local V* sv,
                            __local K* tk, __local V* tv, __local uint* woff, __local uint* wmask, __local uint* own,
                            __local ushort* idx)
{
    BK_TILE_PROLOGUE();
    __local uint lead_at; // BK_EARLY: the tile's first head (bk_stream)
    if (lid == 0) lead_at = count; // (before the scan's barriers)
    // Fold, in the order bk_tile_pair repeats for the fallback.
#if BK_MODE == 4
#define BK_GATHER_VALUE(j) ((V)1)
#elif BK_HAS_VALUES
#define BK_GATHER_VALUE(j) (tv[BK_TILE_PAD(first + (j))])
#else
#define BK_GATHER_VALUE(j) (BK_ID)
#endif
    BK_FOLD_SHARE(tk[BK_TILE_PAD(first + j)], BK_GATHER_VALUE(j));
    uint ec, tc;
    V ev, tvv;
    bk_tile_scan_or_skip(c, v, sc, sv, &ec, &ev, &tc, &tvv);
    // Read after the look-back's barriers: where this work-item's results are among the tile's.
#if BK_INDEX
    // Each result's element, in the order of the results (heads, then partition's non-heads).
    // (A rolled loop: PoCL 3.1 skipped the first iteration of this loop unrolled, in a
    // partition whose predicate holds for every element; -cl-opt-disable or a rolled loop were
    // right. Places from popcounts: no counter carried from one element to the next.)
    if (BK_MODE != 2) {
#pragma unroll 1
        for (uint j = 0; j < BK_ITEMS; ++j) {
            if (j < mine) {
                const uint before = popcount(heads & ((1u << j) - 1u)); // heads before element j
                if ((heads >> j) & 1u) idx[ec + before] = (ushort)(first + j);
                else if (BK_MODE == 5) idx[tc + first - ec + j - before] = (ushort)(first + j);
            }
        }
    }
#define BK_RESULT_AT(s) ((uint)idx[s])
#else
    woff[lid] = ec;
    wmask[lid] = heads;
    bk_own(own, lid, ec, popcount(heads));
#if BK_MODE == 5
    __local uint* own_d = own + tile_n / BK_OWN_STEP + 1;
    bk_own(own_d, lid, min(first, count) - ec, mine - popcount(heads));
#endif
#define BK_RESULT_AT(s) bk_result_at(woff, wmask, own, tile_n, wg, count, tc, s)
#endif

    const bool in_place = BK_MODE == 2 && (__global const V*)(out2 + out2_off) == vals;
    out1 += out1_off;
    out2 += out2_off;
#if BK_DIAG & 2 // the stores behind a condition that never holds (flags has no such bit)
#define BK_STORE_OK (flags & 0x80000000u)
#else
#define BK_STORE_OK 1
#endif
    uint pc;
    V pv;
#if BK_EARLY && BK_STREAMS
    // Early stream (BK_EARLY): every element's result but those of the tile's leading run (the
    // elements before its first head, which continue the run of the tile before) depends on
    // the tile alone, so the stream runs before the look-back, and a scan by key stores those
    // results then too: the look-back's wait overlaps the work and the stores. After the
    // look-back the work-items holding the leading run and the first head (exclusive count 0
    // in the tile) stream it again with the pair of every tile before (the same operations in
    // the same order as one stream after the look-back: the same bits) and write what it
    // changes (reduce_by_key, run-length: also the value of the run closing at the first head).
    bk_tile_publish(slots, epoch, t, tc, tvv, in_place);
    bk_stream(n, from, first, mine, heads, ec, ev, flags, init, tv, &lead_at, false);
    barrier(CLK_LOCAL_MEM_FENCE);
    const uint lead = lead_at;
#if BK_EARLY_GATHER && (BK_MODE == 1 || BK_MODE == 4)
    // (BK_EARLY_GATHER, measurements) The elements of this work-item's first two results, found
    // before the look-back too (the search's local reads overlap the wait).
    const uint s_first = lid + (t == 0 ? 1u : 0u);
    const uint q_first = s_first < tc ? BK_RESULT_AT(s_first) : 0u;
    const uint q_second = s_first + wg < tc ? BK_RESULT_AT(s_first + wg) : 0u;
#define BK_RESULT_OF(s, k) ((k) == 0 ? q_first : (k) == 1 ? q_second : BK_RESULT_AT(s))
#endif
#if BK_MODE == 2
    for (uint j = lid; j < count; j += wg)
        if (BK_STORE_OK && j >= lead) out2[base + j] = tv[BK_TILE_PAD(j)];
#endif
    BK_LEAN_PREFETCH_NEXT();
    bk_tile_look_back(slots, epoch, t, tc, tvv, keys, vals, n, in_place, sc, sv, lb_flag, lb_c, lb_v, lb_state, &lb_acc,
                      &pc, &pv, false);
    if (ec == 0 && first <= lead) { // (the first head's work-item too: the run it closes)
        uint ec_all = ec;
        V ev_all = ev;
        bk_combine(pc, pv, &ec_all, &ev_all); // this work-item's exclusive pair over the whole range
        bk_stream(n, from, first, mine, heads, ec, ev_all, flags, init, tv, &lead_at, true);
#if BK_MODE == 2
        for (uint j = 0; j < mine && first + j < lead; ++j)
            if (BK_STORE_OK) out2[base + first + j] = tv[BK_TILE_PAD(first + j)];
#endif
    }
#if BK_MODE != 2
    barrier(CLK_LOCAL_MEM_FENCE);
#endif
#else // the stream after the look-back
    BK_LEAN_PREFETCH_NEXT();
#if defined(BK_LEAN_QUICK) && BK_LEAN_QUICK && defined(BK_WARP_LOOKBACK) && !(BK_DIAG & 1)
    // (waiting as by_key_lean.cl's BK_LEAN_QUICK: warp 0 walks at once, one barrier where the
    // walk completes; host: CLPRIM_BY_KEY_LEAN_WAIT=quick)
    bk_tile_publish(slots, epoch, t, tc, tvv, in_place);
    bk_look_back_warp_quick(slots, epoch, t, tc, tvv, keys, vals, n, in_place, sc, sv, lb_state, &lb_acc, &pc, &pv, 0u,
                            LB_EMPTY, 0u, BK_ID);
#else
    bk_tile_chain(slots, epoch, t, tc, tvv, keys, vals, n, in_place, sc, sv, lb_flag, lb_c, lb_v, lb_state, &lb_acc,
                  &pc, &pv);
#endif
#if BK_STREAMS
    uint ec_all = ec;
    V ev_all = ev;
    bk_combine(pc, pv, &ec_all, &ev_all); // this work-item's exclusive pair over the whole range
    bk_stream(n, from, first, mine, heads, ec, ev_all, flags, init, tv, &lead_at, false);
    barrier(CLK_LOCAL_MEM_FENCE);
#endif
#endif
    const bool last_tile = bk_tile_count(base, count, n, flags, count_out + count_off, pc + tc);
#if BK_DIAG & 4
    return;
#endif

#if BK_MODE == 4 && BK_RLE_POSITIONS
    // Result s closes run pc + s - 1, from the tile's head s - 1 (s = 0: from before the tile,
    // pv of its elements there) to the element before head s (s = tc: the range's end).
    const uint m = tc + (last_tile ? 1u : 0u);
    for (uint s = lid + (t == 0 ? 1u : 0u); s < m; s += wg) {
        const ulong o = (ulong)pc + s - 1;
        const uint q = s < tc ? BK_RESULT_AT(s) : count;
        const uint p = s > 0 ? BK_RESULT_AT(s - 1) : 0u;
        const K key = q > 0 ? tk[BK_TILE_PAD(q - 1)] : key_before;
        const V val = (V)(q - p) + (s == 0 ? pv : (V)0);
        if (BK_STORE_OK && o < cap1) out1[o] = key;
        if (BK_STORE_OK && o < cap2) out2[o] = val;
    }
#elif BK_MODE == 1 || BK_MODE == 4
    // Result s closes run pc + s - 1: the key before the tile's s-th head, the value streamed to
    // the head's slot (s = tc: the range's last run; tile 0 has no run before its first head).
    const uint m = tc + (last_tile ? 1u : 0u);
#ifndef BK_RESULT_OF
#define BK_RESULT_OF(s, k) BK_RESULT_AT(s)
#endif
    uint k = 0;
    for (uint s = lid + (t == 0 ? 1u : 0u); s < m; s += wg, ++k) {
        const ulong o = (ulong)pc + s - 1;
        K key;
        V val;
        if (s < tc) {
            const uint q = BK_RESULT_OF(s, k);
            key = q > 0 ? tk[BK_TILE_PAD(q - 1)] : key_before;
            val = tv[BK_TILE_PAD(q)];
        } else {
            key = tk[BK_TILE_PAD(count - 1)];
            val = tv[BK_TILE_PAD(count)];
        }
        if (BK_STORE_OK && o < cap1) out1[o] = key;
        if (BK_STORE_OK && o < cap2) out2[o] = val;
    }
#elif BK_MODE == 2 && !BK_EARLY // (BK_EARLY: stored above)
    for (uint j = lid; j < count; j += wg)
        if (BK_STORE_OK) out2[base + j] = tv[BK_TILE_PAD(j)];
#elif BK_MODE == 3
    for (uint s = lid; s < tc; s += wg) {
        const ulong o = (ulong)pc + s;
        if (BK_STORE_OK && o < cap1) out1[o] = tk[BK_TILE_PAD(BK_RESULT_AT(s))];
    }
#elif BK_MODE == 5 // kept elements first (out1), then the dropped ones (out2), each in order
    for (uint s = lid; s < count; s += wg) {
        const K x = tk[BK_TILE_PAD(BK_RESULT_AT(s))];
        const ulong o = s < tc ? (ulong)pc + s : base - pc + (s - tc);
        if (BK_STORE_OK && s < tc && o < cap1) out1[o] = x;
        if (BK_STORE_OK && s >= tc && o < cap2) out2[o] = x;
    }
#endif
}
