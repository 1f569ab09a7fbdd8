// The by-key family's tile, shared by its two look-back kernels (by_key_registers.cl,
// by_key_gather.cl): the start (tile index, staging, this work-item's share), the fold of a
// work-item's elements, and the tile's part of the chain (publish, look back, publish).
//
// Joined after by_key_lookback.cl (same macros as by_key.cl).

#ifndef BK_TILE_PAD
#error "by_key_tile.cl needs by_key_lookback.cl first"
#endif

#ifndef BK_STAGE_TOGETHER
#define BK_STAGE_TOGETHER 0
#endif
#ifndef BK_STAGE_VEC
#define BK_STAGE_VEC 0
#endif
#if BK_STAGE_VEC && (K_BITS != 32 || (BK_HAS_VALUES && BK_MODE != 4 && V_BITS != 32) || BK_ITEMS % 4 != 0)
#undef BK_STAGE_VEC
#define BK_STAGE_VEC 0 // (4-byte types, BK_ITEMS a multiple of 4 only)
#endif

// The start both look-back kernels share (it declares these names): the look-back's local state
// (lb_*), the tile t (tiles numbered as their work-groups start: bk_tile_index), its first
// element base and its count elements, staged into local memory (tk, tv), and this work-item's
// share of it: elements [first, first + mine) of the tile, [from, from + mine) of the range.
// The look-back kernels' local state and the work-item's place in the group (and slots, the
// tiles' status words).
#define BK_TILE_LOCALS()                                                                          \
    __local uint tile_id;                                                                         \
    __local K key_before;                                                                         \
    __local uint lb_flag[BK_WINDOW], lb_c[BK_WINDOW], lb_state[5];                                \
    __local V lb_v[BK_WINDOW], lb_acc;                                                            \
    const uint lid = (uint)get_local_id(0);                                                       \
    const uint wg = (uint)get_local_size(0);                                                      \
    __global volatile ulong* slots = BK_SLOTS_AT(status)
#define BK_TILE_PROLOGUE()                                                                        \
    BK_TILE_LOCALS();                                                                             \
    const uint t = bk_tile_index(status, &tile_id);                                               \
    const uint tile_n = wg * BK_ITEMS;                                                            \
    const ulong base = (ulong)t * tile_n;                                                         \
    const uint count = (uint)min((ulong)tile_n, n - base);                                        \
    keys += keys_off;                                                                             \
    vals += vals_off;                                                                             \
    bk_stage_tile(keys, vals, base, count, tk, tv, &key_before);                                  \
    const uint first = lid * BK_ITEMS;                                                            \
    const ulong from = base + first;                                                              \
    const uint mine = first < count ? min((uint)BK_ITEMS, count - first) : 0u;

// The fold both look-back kernels share (it declares prev, c, v and heads): prev, the key before
// this work-item's first element (the tile's predecessor for work-item 0); (c, v), the pair of
// the work-item's elements folded in order (bk_tile_pair repeats it for the fallback), their head
// flags as the bits of heads. KEY_J, VALUE_J: element j's key and value (j: the loop's index).
#define BK_FOLD_SHARE(KEY_J, VALUE_J)                                                             \
    K prev = tk[BK_TILE_PAD(first < count ? first : 0u)];                                         \
    if (mine > 0 && from > 0) prev = lid > 0 ? tk[BK_TILE_PAD(first - 1)] : key_before;          \
    uint c = 0, heads = 0;                                                                        \
    V v = BK_ID;                                                                                  \
    {                                                                                             \
        K p = prev;                                                                               \
        _Pragma("unroll") for (uint j = 0; j < BK_ITEMS; ++j)                                     \
        {                                                                                         \
            if (j < mine) {                                                                       \
                const K k = (KEY_J);                                                              \
                uint hc = bk_head(from + j, k, p);                                                \
                heads |= hc << j;                                                                 \
                V hv = (VALUE_J);                                                                 \
                bk_combine(c, v, &hc, &hv);                                                       \
                c = hc;                                                                           \
                v = hv;                                                                           \
                p = k;                                                                            \
            }                                                                                     \
        }                                                                                         \
    }

// The value of a work-item's element j (registers), as bk_value gives it from memory.
#if BK_MODE == 4
#define BK_REG_VALUE(j) ((V)1)
#elif BK_HAS_VALUES
#define BK_REG_VALUE(j) (vr[j])
#else
#define BK_REG_VALUE(j) (BK_ID)
#endif
#define BK_LOADS_VALUES (BK_HAS_VALUES && BK_MODE != 4)

// The work-item's elements [first, first + mine) of the staged tile (tk, tv) into registers kr
// (and vr where the mode loads values).
#if BK_LOADS_VALUES
#define BK_TILE_V_TO_REG_(j, q) vr[j] = tv[q];
#else
#define BK_TILE_V_TO_REG_(j, q)
#endif
#define BK_TILE_TO_REGS()                                                                         \
    _Pragma("unroll") for (uint j = 0; j < BK_ITEMS; ++j)                                         \
    {                                                                                             \
        if (j < mine) {                                                                           \
            kr[j] = tk[BK_TILE_PAD(first + j)];                                                   \
            BK_TILE_V_TO_REG_(j, BK_TILE_PAD(first + j))                                          \
        }                                                                                         \
    }

// bk_tile_scan, or (BK_DIAG & 8, measurements: WRONG results) each work-item's own pair as the
// tile's; starts and ends with a barrier either way.
inline void bk_tile_scan_or_skip(uint c, V v, __local uint* sc, __local V* sv, uint* ec, V* ev, uint* tc, V* tv)
{
#if BK_DIAG & 8
    barrier(CLK_LOCAL_MEM_FENCE);
    *ec = 0;
    *ev = BK_ID;
    *tc = c;
    *tv = v;
    barrier(CLK_LOCAL_MEM_FENCE);
#else
    bk_tile_scan(c, v, sc, sv, ec, ev, tc, tv);
#endif
}

// A tile's index in the order the work-groups start (status[0] counts them; the tile taking the
// last index sets it back to zero for the next launch), so a tile only ever waits on tiles that
// have started. Every work-item calls it (a barrier); *id is local scratch.
// BK_GROUP_ORDER=1 (measurements, CLPRIM_BY_KEY_OPTIONS): tiles by group id instead, no counter
// (the loads start without the atomic's round trip; correct under any scheduling only through
// the decoupled fallback, which a tile waiting on one not yet started then takes).
#ifndef BK_GROUP_ORDER
#define BK_GROUP_ORDER 0
#endif
inline uint bk_tile_index(__global volatile ulong* status, __local uint* id)
{
#if BK_GROUP_ORDER
    (void)status;
    (void)id;
    return (uint)get_group_id(0);
#else
    if (get_local_id(0) == 0) {
        *id = atomic_inc((__global volatile uint*)status);
        if (*id == (uint)get_num_groups(0) - 1u) atomic_xchg((__global volatile uint*)status, 0u);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    return *id;
#endif
}

// Stages the tile's count elements at base (keys, and values where the mode loads them) into
// local memory, one pad slot every 32, coalesced; a full tile issues every load of a row before
// its stores (many reads in flight per work-item); *before: the key before the tile (base > 0).
// Ends with a barrier (bk_stage_rows: the same without it).
inline void bk_stage_rows(__global const K* keys, __global const V* vals, ulong base, uint count, __local K* tk,
                          __local V* tv, __local K* before)
{
    const uint lid = (uint)get_local_id(0);
    const uint wg = (uint)get_local_size(0);
    // The key before the tile, to *before, read with the tile's loads (read after the fold's
    // barrier it held up the whole work-group for one more round trip to memory).
    if (lid == 0 && base > 0) *before = keys[base - 1];
#if BK_STAGE_VEC
    // 16-byte loads (4-byte keys, and values where loaded, BK_ITEMS a multiple of 4): work-item
    // lid loads the 4-element vectors j * local size + lid of a full tile on a 16-byte boundary
    // (alike in every full tile of a launch); a vector's elements stay contiguous under
    // BK_TILE_PAD (a pad every 32). Measurements: CLPRIM_BY_KEY_OPTIONS=-DBK_STAGE_VEC=1.
    if (count == wg * BK_ITEMS && ((ulong)(keys + base) & 15) == 0 &&
        (!BK_LOADS_VALUES || ((ulong)(vals + base) & 15) == 0)) {
        CLPRIM_CAT(K, 4) lk[BK_ITEMS / 4];
#pragma unroll
        for (uint j = 0; j < BK_ITEMS / 4; ++j) lk[j] = ((__global const CLPRIM_CAT(K, 4)*)(keys + base))[j * wg + lid];
#if BK_LOADS_VALUES
        CLPRIM_CAT(V, 4) lv[BK_ITEMS / 4];
#pragma unroll
        for (uint j = 0; j < BK_ITEMS / 4; ++j) lv[j] = ((__global const CLPRIM_CAT(V, 4)*)(vals + base))[j * wg + lid];
#endif
#pragma unroll
        for (uint j = 0; j < BK_ITEMS / 4; ++j) {
            const uint e = BK_TILE_PAD((j * wg + lid) * 4u);
            tk[e] = lk[j].s0;
            tk[e + 1] = lk[j].s1;
            tk[e + 2] = lk[j].s2;
            tk[e + 3] = lk[j].s3;
#if BK_LOADS_VALUES
            tv[e] = lv[j].s0;
            tv[e + 1] = lv[j].s1;
            tv[e + 2] = lv[j].s2;
            tv[e + 3] = lv[j].s3;
#endif
        }
    } else
#endif
    if (count == wg * BK_ITEMS) {
#if BK_LOADS_VALUES && BK_STAGE_TOGETHER
        // Keys and values loaded together (twice the registers, one round trip; measurements:
        // CLPRIM_BY_KEY_OPTIONS=-DBK_STAGE_TOGETHER=1).
        K lk[BK_ITEMS];
        V lv[BK_ITEMS];
#pragma unroll
        for (uint j = 0; j < BK_ITEMS; ++j) {
            lk[j] = keys[base + j * wg + lid];
            lv[j] = vals[base + j * wg + lid];
        }
#pragma unroll
        for (uint j = 0; j < BK_ITEMS; ++j) {
            tk[BK_TILE_PAD(j * wg + lid)] = lk[j];
            tv[BK_TILE_PAD(j * wg + lid)] = lv[j];
        }
#else
        K lk[BK_ITEMS];
#pragma unroll
        for (uint j = 0; j < BK_ITEMS; ++j) lk[j] = keys[base + j * wg + lid];
#pragma unroll
        for (uint j = 0; j < BK_ITEMS; ++j) tk[BK_TILE_PAD(j * wg + lid)] = lk[j];
#if BK_LOADS_VALUES
        V lv[BK_ITEMS];
#pragma unroll
        for (uint j = 0; j < BK_ITEMS; ++j) lv[j] = vals[base + j * wg + lid];
#pragma unroll
        for (uint j = 0; j < BK_ITEMS; ++j) tv[BK_TILE_PAD(j * wg + lid)] = lv[j];
#endif
#endif
    } else {
        for (uint j = lid; j < count; j += wg) {
            tk[BK_TILE_PAD(j)] = keys[base + j];
#if BK_LOADS_VALUES
            tv[BK_TILE_PAD(j)] = vals[base + j];
#endif
        }
    }
}
inline void bk_stage_tile(__global const K* keys, __global const V* vals, ulong base, uint count, __local K* tk,
                          __local V* tv, __local K* before)
{
    bk_stage_rows(keys, vals, base, count, tk, tv, before);
    barrier(CLK_LOCAL_MEM_FENCE);
}

// -DBK_LEAN_PREFETCH=D (NVIDIA, BK_PTX; host: CLPRIM_BY_KEY_PREFETCH=D; by_key_lean.cl and
// by_key_gather.cl): before its look-back (lean, -DBK_LEAN_PREFETCH_EARLY=1: right after its own
// loads) the tile asks L2 for the lines of tile t + D (prefetch.global.L2: no registers, no wait), so that memory keeps streaming while the
// tile waits on its predecessors; D about the number of resident tiles is the tile that starts
// when this one ends (tiles by group id).
#if !defined(BK_LEAN_PREFETCH) || !defined(BK_PTX)
#undef BK_LEAN_PREFETCH
#define BK_LEAN_PREFETCH 0
#endif
#ifndef BK_LEAN_PREFETCH_EARLY
#define BK_LEAN_PREFETCH_EARLY 0
#endif
#if BK_LEAN_PREFETCH
inline void bk_prefetch_lines(__global const uchar* p, ulong bytes)
{
    for (ulong o = (ulong)get_local_id(0) * 128u; o < bytes; o += (ulong)get_local_size(0) * 128u)
        asm volatile("prefetch.global.L2 [%0];" ::"l"(p + o));
}
// Tile t + BK_LEAN_PREFETCH's keys (and values) into L2, where that tile exists.
#define BK_LEAN_PREFETCH_NEXT()                                                                   \
    {                                                                                             \
        const ulong pb = (ulong)(t + BK_LEAN_PREFETCH) * tile_n;                                  \
        if (pb < n) {                                                                             \
            const ulong pn = min((ulong)tile_n, n - pb);                                          \
            bk_prefetch_lines((__global const uchar*)(keys + pb), pn * sizeof(K));                \
            if (BK_LOADS_VALUES) bk_prefetch_lines((__global const uchar*)(vals + pb), pn * sizeof(V)); \
        }                                                                                         \
    }
#else
#define BK_LEAN_PREFETCH_NEXT()
#endif
// Whether the tile [base, base + count) is the range's last; if so work-item 0 writes the range's
// count of results (total) where the host asked for it (BK_WRITE_COUNT).
inline bool bk_tile_count(ulong base, uint count, ulong n, uint flags, __global ulong* count_out, uint total)
{
    const bool last = base + count == n;
    if (get_local_id(0) == 0 && last && (flags & BK_WRITE_COUNT)) *count_out = total;
    return last;
}

// The tile's part of the chain: publishes its pair (tc, tv) (tile 0: as its inclusive prefix),
// looks back (bk_look_back) and publishes its inclusive prefix; returns in (*pc, *pv) the pair of
// every tile before it, in every work-item. in_place: a scan by key writing over its values.
// In two steps (bk_tile_publish, then bk_tile_look_back) where work comes between them.
inline void bk_tile_publish(__global volatile ulong* slots, uint epoch, uint t, uint tc, V tv, bool in_place)
{
#if !(BK_DIAG & 1)
    if (get_local_id(0) == 0) bk_publish(slots, epoch, t, t == 0 ? LB_PREFIX : LB_AGGREGATE, tc, tv);
    // The pair is visible before any output of this tile (a fallback reading this tile's values
    // in place relies on it; bk_look_back): only a scan by key writes over its input. (Not in a
    // branch on in_place: PoCL mishandles a barrier under a condition, DEVELOPERS.md.)
    (void)in_place;
#if BK_MODE == 2
    barrier(CLK_GLOBAL_MEM_FENCE);
#endif
#endif
}

inline void bk_tile_look_back(__global volatile ulong* slots, uint epoch, uint t, uint tc, V tv, __global const K* keys,
                              __global const V* vals, ulong n, bool in_place, __local uint* sc, __local V* sv,
                              __local uint* wflag, __local uint* wc, __local V* wv, __local uint* wstate,
                              __local V* wacc, uint* pc, V* pv, bool started)
{
    (void)started; // (bk_warp_walk_first ran: BK_WARP_LOOKBACK only)
#if BK_DIAG & 1 // measurement only (WRONG results): what a tile costs without the chain
    *pc = 0;
    *pv = BK_ID;
    barrier(CLK_LOCAL_MEM_FENCE); // (what the look-back's barriers order)
    return;
#endif
#ifdef BK_WARP_LOOKBACK // (it publishes the inclusive prefix itself)
    bk_look_back_warp(slots, epoch, t, tc, tv, keys, vals, n, in_place, sc, sv, wstate, wacc, pc, pv, started);
#else
    bk_look_back(slots, epoch, t, keys, vals, n, in_place, sc, sv, wflag, wc, wv, wstate, wacc, pc, pv);
    if (get_local_id(0) == 0 && t > 0) {
        uint ic = tc;
        V iv = tv;
        bk_combine(*pc, *pv, &ic, &iv);
        bk_publish(slots, epoch, t, LB_PREFIX, ic, iv);
    }
#endif
}

#ifdef BK_WARP_LOOKBACK
// bk_look_back_warp's contract (started = false; by_key_lookback.cl) with one barrier where
// the walk completes (by_key_lean.cl, BK_LEAN_QUICK): warp 0 walks as soon as it has done its own part of the
// tile (no barrier first: the other warps may still be staging), the group meets once and reads
// the state; only a walk that stalled (or, in tests, the fallback first) goes on in
// bk_look_back_warp's loop. The state is left as it is (no barrier after: the caller writes no
// local memory that the state's readers read). pre, pflag, prc, prv: bk_warp_walk_pre's (warp 0).
inline void bk_look_back_warp_quick(__global volatile ulong* slots, uint epoch, uint t, uint tc, V tv,
                                    __global const K* keys, __global const V* vals, ulong n, bool in_place,
                                    __local uint* sc, __local V* sv, __local uint* wstate, __local V* wacc, uint* c,
                                    V* v, uint pre, uint pflag, uint prc, V prv)
{
    if (get_local_id(0) < 32u) bk_warp_walk_first_pre(slots, epoch, t, tc, tv, wstate, wacc, pre, pflag, prc, prv);
    barrier(CLK_LOCAL_MEM_FENCE);
    if (wstate[1]) { // (the same in the whole group)
        *c = wstate[2];
        *v = *wacc;
        return;
    }
    bk_look_back_warp(slots, epoch, t, tc, tv, keys, vals, n, in_place, sc, sv, wstate, wacc, c, v, true);
}
#endif

inline void bk_tile_chain(__global volatile ulong* slots, uint epoch, uint t, uint tc, V tv, __global const K* keys,
                          __global const V* vals, ulong n, bool in_place, __local uint* sc, __local V* sv,
                          __local uint* wflag, __local uint* wc, __local V* wv, __local uint* wstate, __local V* wacc,
                          uint* pc, V* pv)
{
    bk_tile_publish(slots, epoch, t, tc, tv, in_place);
    bk_tile_look_back(slots, epoch, t, tc, tv, keys, vals, n, in_place, sc, sv, wflag, wc, wv, wstate, wacc, pc, pv,
                      false);
}
