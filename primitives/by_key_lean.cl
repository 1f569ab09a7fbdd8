// The lean pair tile of reduce_by_key and run_length_encode (BK_MODE 1 and 4; host:
// CLPRIM_BY_KEY_KERNEL=lean, by_key_policy.hpp: reduce_by_key's on GPUs, run-length's for one
// tile). by_key_gather.cl keeps the whole
// tile in local memory through the look-back and then finds each result by a search;
// by_key_registers.cl keeps every element in registers through the look-back. Here only the
// runs' ends leave a work-item, and they leave it before the look-back:
//   load     each work-item takes its BK_ITEMS consecutive keys (and values) into registers:
//            straight from global memory by 16-byte vectors where the tile is full and aligned
//            (BK_LEAN_DIRECT=1), else through local memory (bk_stage_rows: coalesced rows);
//   fold     the work-item's pair (count of heads, value of its open run), in the order
//            bk_tile_pair repeats for the decoupled fallback (the same bits);
//   scan     the work-group scans the pairs: each work-item's exclusive count ec and value ev
//            within the tile, and the tile's pair, which it publishes at once;
//   stage    each work-item walks its registers again from ev and writes the run every head of
//            its closes (the key before the head, the run's value) at the head's place among
//            the tile's heads (ec + k) in local memory; the range's last element writes the last
//            run one place further. Place 0 holds the tile's leading run (the elements before
//            its first head), still without the runs of the tiles before;
//   chain    the look-back, with nothing but a few words in registers;
//   store    the tile's results leave as one contiguous run at the count before the tile (pc),
//            consecutive work-items to consecutive addresses; place 0 first combines the value
//            of the tiles before (pv) in front of its own.
// Every result but the leading run's is a sequential fold from its head (as the stream of
// by_key_gather.cl); the leading run's value is pv combined with its in-tile fold (the operator's
// associativity, order kept).
//
// Joined after by_key_tile.cl (same macros as by_key.cl). Optional: BK_LEAN_DIRECT (default 1),
// BK_LEAN_RELOAD (default 0) (measurements: CLPRIM_BY_KEY_OPTIONS).

#ifndef BK_TILE_PAD
#error "by_key_lean.cl needs by_key_lookback.cl and by_key_tile.cl first"
#endif

#if BK_MODE == 1 || BK_MODE == 4

#ifndef BK_LEAN_DIRECT
#define BK_LEAN_DIRECT 1
#endif
#ifndef BK_LEAN_RELOAD
#define BK_LEAN_RELOAD 0
#endif
// NVIDIA (the warp pieces built in; measurements: CLPRIM_BY_KEY_OPTIONS): -DBK_LEAN_SHFL_PREV=1,
// the key before a work-item's first element from the lane below by a shuffle (lane 0: from
// global memory); -DBK_LEAN_WALK_FIRST=1, warp 0's first look-back walk while the other warps
// stage (bk_warp_walk_first).
#if !defined(BK_LEAN_SHFL_PREV) || !(defined(BK_SHFL_SCAN) || defined(BK_WARP_LOOKBACK))
#undef BK_LEAN_SHFL_PREV
#define BK_LEAN_SHFL_PREV 0
#endif
// -DBK_LEAN_QUICK=1 (host: CLPRIM_BY_KEY_LEAN_WAIT=quick): the look-back by
// bk_look_back_warp_quick, warp 0 walking right after its own stage, one barrier where the walk
// completes (bk_look_back_warp: five).
#if !defined(BK_LEAN_QUICK) || !defined(BK_WARP_LOOKBACK) || (BK_DIAG & 1)
#undef BK_LEAN_QUICK
#define BK_LEAN_QUICK 0
#endif
// -DBK_LEAN_PREREAD=1 (with BK_LEAN_QUICK; host: CLPRIM_BY_KEY_LEAN_WAIT=preread): warp 0 reads
// its 32 nearest predecessors' slots right after publishing the tile's pair, before its stage,
// and the walk's first round takes those words (their round trip overlaps the stage; a slot
// still empty then is read again as usual).
#if !defined(BK_LEAN_PREREAD) || !BK_LEAN_QUICK
#undef BK_LEAN_PREREAD
#define BK_LEAN_PREREAD 0
#endif
#if !defined(BK_LEAN_WALK_FIRST) || !defined(BK_WARP_LOOKBACK)
#undef BK_LEAN_WALK_FIRST
#define BK_LEAN_WALK_FIRST 0
#endif
// Direct 16-byte loads: 4-byte keys (and values where loaded), BK_ITEMS a multiple of 4.
#if BK_LEAN_DIRECT && K_BITS == 32 && (!BK_LOADS_VALUES || V_BITS == 32) && BK_ITEMS % 4 == 0
#define BK_LEAN_VEC 1
#else
#define BK_LEAN_VEC 0
#endif

// R[0 .. BK_ITEMS) = the BK_ITEMS elements of type T at SRC (16-byte aligned), by 16-byte loads.
#define BK_LEAN_LOAD4_(R, T, SRC)                                                                 \
    _Pragma("unroll") for (uint q = 0; q < BK_ITEMS / 4; ++q)                                     \
    {                                                                                             \
        const CLPRIM_CAT(T, 4) x4 = ((__global const CLPRIM_CAT(T, 4)*)(SRC))[q];                 \
        R[4 * q] = x4.s0;                                                                         \
        R[4 * q + 1] = x4.s1;                                                                     \
        R[4 * q + 2] = x4.s2;                                                                     \
        R[4 * q + 3] = x4.s3;                                                                     \
    }

// This work-item's keys (and values) straight into registers.
#if BK_LOADS_VALUES
#define BK_LEAN_LOAD_DIRECT_()                                                                    \
    BK_LEAN_LOAD4_(kr, K, keys + from);                                                           \
    BK_LEAN_LOAD4_(vr, V, vals + from)
#else
#define BK_LEAN_LOAD_DIRECT_() BK_LEAN_LOAD4_(kr, K, keys + from)
#endif

// -DBK_LEAN_PERSIST=1|2 (host: CLPRIM_BY_KEY_PERSIST): persistent work-groups, a few per compute
// unit, each taking tile after tile from the start-order counter (bk_lean_take: a tile only
// waits on tiles already taken by running work-groups, and the decoupled fallback covers the
// rest). A group takes its next tile while it scans the current one, and before the current
// tile's look-back it starts loading the next one: 1, straight into the registers the stage has
// just freed (full aligned tiles), so the loads are in flight while the tile waits and stores;
// 2, as L2 prefetches of its lines (no registers held), loaded as usual at the loop's top.
#ifndef BK_LEAN_PERSIST
#define BK_LEAN_PERSIST 0
#endif
#if BK_LEAN_PERSIST && (BK_LEAN_RELOAD || (BK_DIAG & 4) || BK_LEAN_PREFETCH)
#error "by_key_lean.cl: BK_LEAN_PERSIST goes without BK_LEAN_RELOAD, BK_DIAG & 4 and BK_LEAN_PREFETCH"
#endif
#if BK_LEAN_PERSIST
// Work-item 0: the next tile index from the counter (status[0]); the group that takes the launch's
// last index (every group takes one index past the tiles: tiles + groups in all) sets it back to
// zero for the next launch.
inline uint bk_lean_take(__global volatile ulong* status, uint tiles)
{
    const uint id = atomic_inc((__global volatile uint*)status);
    if (id == tiles + (uint)get_num_groups(0) - 1u) atomic_xchg((__global volatile uint*)status, 0u);
    return id;
}
// X_l = X through a 64-bit move the compiler cannot see through (NVIDIA).
#define BK_LEAN_LAUNDER_(T, X)                                                                    \
    T X##_l;                                                                                      \
    asm volatile("mov.b64 %0, %1;" : "=l"(X##_l) : "l"(X))
#if BK_LEAN_PERSIST == 2 && defined(BK_PTX)
inline void bk_prefetch_tile_l2(__global const K* keys, __global const V* vals, ulong pb, ulong pn)
{
    const ulong kb = pn * sizeof(K), vb = pn * sizeof(V);
    for (ulong o = (ulong)get_local_id(0) * 128u; o < kb; o += (ulong)get_local_size(0) * 128u)
        asm volatile("prefetch.global.L2 [%0];" ::"l"((__global const uchar*)(keys + pb) + o));
    if (BK_LOADS_VALUES)
        for (ulong o = (ulong)get_local_id(0) * 128u; o < vb; o += (ulong)get_local_size(0) * 128u)
            asm volatile("prefetch.global.L2 [%0];" ::"l"((__global const uchar*)(vals + pb) + o));
}
#else
#define bk_prefetch_tile_l2(keys, vals, pb, pn)
#endif
#endif

// The fold of a work-item's registers kr (vr) from element `from` on (mine of them; prev: the key
// before): its pair (C, V_) and head flags (HEADS), in the order bk_tile_pair repeats.
#define BK_LEAN_FOLD_(C, HEADS, V_, FROM, MINE, PREV)                                             \
    {                                                                                             \
        K p = (PREV);                                                                             \
        _Pragma("unroll") for (uint j = 0; j < BK_ITEMS; ++j)                                     \
        {                                                                                         \
            if (j < (MINE)) {                                                                     \
                uint hc = bk_head((FROM) + j, kr[j], p);                                          \
                (HEADS) |= hc << j;                                                               \
                V hv = BK_REG_VALUE(j);                                                           \
                bk_combine((C), (V_), &hc, &hv);                                                  \
                (C) = hc;                                                                         \
                (V_) = hv;                                                                        \
                p = kr[j];                                                                        \
            }                                                                                     \
        }                                                                                         \
    }

// The stage of a work-item's registers: the run each of its heads closes at the head's place
// (EC: the heads before its first element; EV the value of the run open there) less OFF, in tk,
// tv; the range's last element writes the last run one place further.
#define BK_LEAN_STAGE_(EC, EV, HEADS, FROM, MINE, PREV, OFF)                                      \
    {                                                                                             \
        uint cc = (EC) - (OFF);                                                                   \
        V vv = (EV);                                                                              \
        K p = (PREV);                                                                             \
        _Pragma("unroll") for (uint j = 0; j < BK_ITEMS; ++j)                                     \
        {                                                                                         \
            if (j < (MINE)) {                                                                     \
                const ulong i = (FROM) + j;                                                       \
                const uint h = ((HEADS) >> j) & 1u;                                               \
                const V x = BK_REG_VALUE(j);                                                      \
                if (h && i > 0) {                                                                 \
                    tk[cc] = p;                                                                   \
                    tv[cc] = vv;                                                                  \
                }                                                                                 \
                vv = h ? x : BK_OP(vv, x);                                                        \
                cc += h;                                                                          \
                if (i == n - 1) {                                                                 \
                    tk[cc] = kr[j];                                                               \
                    tv[cc] = vv;                                                                  \
                }                                                                                 \
                p = kr[j];                                                                        \
            }                                                                                     \
        }                                                                                         \
    }

// BK_LEAN_QUICK's first-round words (pre_*; BK_LEAN_PREREAD: warp 0 reads them now).
#if BK_LEAN_QUICK && BK_LEAN_PREREAD
#define BK_LEAN_PREREAD_()                                                                        \
    uint pre_flag = LB_EMPTY, pre_c = 0;                                                          \
    V pre_v = BK_ID;                                                                              \
    if (lid < 32u) pre_flag = lid < t ? bk_read(slots, epoch, t - 1 - lid, &pre_c, &pre_v) : LB_PREFIX
#elif BK_LEAN_QUICK
#define BK_LEAN_PREREAD_()                                                                        \
    const uint pre_flag = LB_EMPTY, pre_c = 0;                                                    \
    const V pre_v = BK_ID
#else
#define BK_LEAN_PREREAD_()
#endif

#if BK_LEAN_SUB == 1 // (2: by_key_lean2.cl)
// One work-group per tile (bk_tile_index). tk, tv: BK_TILE_PAD(tile) + 1 elements each: the
// staged input where the tile is not loaded straight into registers, then the tile's results.
__kernel void by_key_lean(BK_ARGS, __global volatile ulong* status, uint epoch, __local uint* sc, __local V* sv,
                          __local K* tk, __local V* tv)
{
    BK_TILE_LOCALS();
    const uint tile_n = wg * BK_ITEMS;
    keys += keys_off;
    vals += vals_off;
    out1 += out1_off;
    out2 += out2_off;
#if BK_LEAN_PERSIST
    const uint first0 = lid * BK_ITEMS;
#else
    const uint first = lid * BK_ITEMS;
#endif
    K kr[BK_ITEMS]; // this work-item's keys (and values) of the tile
#if BK_LOADS_VALUES
    V vr[BK_ITEMS];
#endif
    K prev = (K)0; // the key before this work-item's first element
#if BK_LEAN_PERSIST
    const uint tiles = (uint)((n + tile_n - 1) / tile_n);
    __local uint next_id;
    if (lid == 0) tile_id = bk_lean_take(status, tiles);
    barrier(CLK_LOCAL_MEM_FENCE);
    bool loaded = false; // kr, vr and prev hold tile t's elements (loaded before the last look-back)
    for (uint t = tile_id; t < tiles;) {
        if (lid == 0) next_id = bk_lean_take(status, tiles); // (read after the tile scan's barriers)
#ifdef BK_PTX
        // The buffers and n laundered through an instruction each tile (names shadowed for the
        // tile's block): the compiler would otherwise keep every value derived from them in
        // registers across the whole loop (ptxas: 268-348 bytes spilled at 64 registers, 116-172 so).
        BK_LEAN_LAUNDER_(__global const K*, keys);
        BK_LEAN_LAUNDER_(__global const V*, vals);
        BK_LEAN_LAUNDER_(__global K*, out1);
        BK_LEAN_LAUNDER_(__global V*, out2);
        BK_LEAN_LAUNDER_(ulong, n);
        BK_LEAN_LAUNDER_(ulong, cap1);
        BK_LEAN_LAUNDER_(ulong, cap2);
        {
            __global const K* keys = keys_l;
            __global const V* vals = vals_l;
            __global K* out1 = out1_l;
            __global V* out2 = out2_l;
            const ulong n = n_l, cap1 = cap1_l, cap2 = cap2_l;
#endif
#else
    {
        const uint t = bk_tile_index(status, &tile_id);
        const bool loaded = false;
#endif
#if BK_LEAN_PERSIST && defined(BK_PTX)
    // (the work-item's first element laundered through an instruction each tile, so that the
    // compiler does not hoist its tile-invariant local addresses out of the loop into registers)
    uint first;
    asm volatile("mov.u32 %0, %1;" : "=r"(first) : "r"(first0));
#elif BK_LEAN_PERSIST
    const uint first = first0;
#endif
    const ulong base = (ulong)t * tile_n;
    const uint count = (uint)min((ulong)tile_n, n - base);
    const ulong from = base + first;
    const uint mine = first < count ? min((uint)BK_ITEMS, count - first) : 0u;

    // Load: registers kr (and vr), prev.
#if BK_LEAN_VEC
    // (Alike in the whole group: full tiles of a launch share their alignment.)
    const bool direct = count == tile_n && ((ulong)(keys + base) & 15) == 0 &&
                        (!BK_LOADS_VALUES || ((ulong)(vals + base) & 15) == 0);
#else
    const bool direct = false;
#endif
    if (loaded) {
        // (the tile before loaded this one: BK_LEAN_PERSIST 1, full aligned tiles only)
    } else if (direct) {
#if BK_LEAN_VEC
        BK_LEAN_LOAD_DIRECT_();
#if BK_LEAN_SHFL_PREV
        const uint up = bk_shfl_up_u(BK_KEY_BITS(kr[BK_ITEMS - 1]), 1u); // (K: 32 bits here)
        if ((lid & 31u) != 0) prev = CLPRIM_CAT(as_, K)(up);
        else if (from > 0) prev = keys[from - 1];
#else
        if (from > 0) prev = keys[from - 1];
#endif
#endif
    } else {
        // Coalesced rows into local memory, then each work-item's consecutive elements from there.
        bk_stage_rows(keys, vals, base, count, tk, tv, &key_before);
    }
#if BK_LEAN_PREFETCH_EARLY
    BK_LEAN_PREFETCH_NEXT();
#endif
#ifdef BK_PTX // (the same in the whole group; elsewhere outside the branch: PoCL and barriers under conditions)
    if (!direct)
#endif
        barrier(CLK_LOCAL_MEM_FENCE);
    if (!direct) {
        BK_TILE_TO_REGS();
        if (mine > 0 && from > 0) prev = lid > 0 ? tk[BK_TILE_PAD(first - 1)] : key_before;
    }

    // Fold, in the order bk_tile_pair repeats for the fallback.
    uint c = 0, heads = 0;
    V v = BK_ID;
    BK_LEAN_FOLD_(c, heads, v, from, mine, prev);
    uint ec, tc;
    V ev, tvv;
    bk_tile_scan_or_skip(c, v, sc, sv, &ec, &ev, &tc, &tvv); // (its barriers: every read of tk, tv done)
    bk_tile_publish(slots, epoch, t, tc, tvv, false);
#if BK_LEAN_PERSIST
    const uint tn = next_id; // (written before the scan's barriers)
#endif
#if BK_LEAN_WALK_FIRST && !(BK_DIAG & 1)
    if (lid < 32u) bk_warp_walk_first(slots, epoch, t, tc, tvv, lb_state, &lb_acc);
    const bool started = true;
#else
    const bool started = false;
#endif

    BK_LEAN_PREREAD_();
#if BK_LEAN_RELOAD
    // (BK_LEAN_RELOAD=1, measurements: nothing of the tile held in registers through the scan;
    // the stage reads the elements again from global memory, most still in L1.)
    if (direct) {
#if BK_LEAN_VEC
        BK_LEAN_LOAD_DIRECT_();
#endif
    } else {
#pragma unroll
        for (uint j = 0; j < BK_ITEMS; ++j) {
            if (j < mine) {
                kr[j] = keys[from + j];
#if BK_LOADS_VALUES
                vr[j] = vals[from + j];
#endif
            }
        }
    }
#endif
    // Stage: the run each head closes at the head's place among the tile's heads (place 0: the
    // tile's leading run, without the tiles before); the range's last run at place tc.
    BK_LEAN_STAGE_(ec, ev, heads, from, mine, prev, 0u);

#if !BK_LEAN_PREFETCH_EARLY
    BK_LEAN_PREFETCH_NEXT();
#endif
#if BK_LEAN_PERSIST
    // The next tile's loads, in flight through the look-back and the stores.
    {
        const ulong nb = (ulong)tn * tile_n;
        const bool next_full = tn < tiles && nb + tile_n <= n;
#if BK_LEAN_PERSIST == 1 && BK_LEAN_VEC
        loaded = next_full && ((ulong)(keys + nb) & 15) == 0 && (!BK_LOADS_VALUES || ((ulong)(vals + nb) & 15) == 0);
        if (loaded) {
            const ulong from = nb + first; // (this block: the next tile's)
            BK_LEAN_LOAD_DIRECT_();
            prev = from > 0 ? keys[from - 1] : (K)0;
        }
#else
        if (tn < tiles) bk_prefetch_tile_l2(keys, vals, nb, min((ulong)tile_n, n - nb));
        (void)next_full;
#endif
    }
#endif
    uint pc;
    V pv;
#if BK_LEAN_QUICK && !BK_LEAN_WALK_FIRST // (its barrier: the staged results visible to the group)
    bk_look_back_warp_quick(slots, epoch, t, tc, tvv, keys, vals, n, false, sc, sv, lb_state, &lb_acc, &pc, &pv,
                            BK_LEAN_PREREAD, pre_flag, pre_c, pre_v);
#else
    bk_tile_look_back(slots, epoch, t, tc, tvv, keys, vals, n, false, sc, sv, lb_flag, lb_c, lb_v, lb_state, &lb_acc,
                      &pc, &pv, started); // (its last barrier: the staged results visible to the group)
#endif
#if BK_DIAG & 16 // (with 1, measurements: no look-back, each tile's results at a place of its own)
    pc = (uint)(base / 8u);
#endif
    const bool last_tile = bk_tile_count(base, count, n, flags, count_out + count_off, pc + tc);
#if BK_DIAG & 4
    return;
#endif
#if BK_DIAG & 2 // the stores behind a condition that never holds (flags has no such bit)
#define BK_LEAN_STORE_OK (flags & 0x80000000u)
#else
#define BK_LEAN_STORE_OK 1
#endif
    // Store: result s closes run pc + s - 1 (tile 0 has no run before its first head).
    const uint m = tc + (last_tile ? 1u : 0u);
    for (uint s = lid + (t == 0 ? 1u : 0u); s < m; s += wg) {
        const ulong o = (ulong)pc + s - 1;
        const V x = tv[s];
        const V val = s == 0 ? BK_OP(pv, x) : x;
        if (BK_LEAN_STORE_OK && o < cap1) out1[o] = tk[s];
        if (BK_LEAN_STORE_OK && o < cap2) out2[o] = val;
    }
#if BK_LEAN_PERSIST
    barrier(CLK_LOCAL_MEM_FENCE); // (every read of tk, tv, the look-back's state done before the next tile)
    t = tn;
#ifdef BK_PTX
        }
#endif
#endif
    }
}
#endif // BK_LEAN_SUB == 1

#endif
