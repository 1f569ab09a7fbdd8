// The by-key family's single pass (by_key.cl explains the modes and the pair scan): tiles of
// BK_ITEMS * local size elements chained by decoupled look-back (lookback.cl), with the decoupled
// fallback, so it needs no forward progress between work-groups. Every element is read once
// (keys, and values where the mode has them) and every result written once, coalesced: a tile
// compacts its results in local memory and stores them as one contiguous run.
//
// Joined after workgroup_segmented.cl, lookback.cl and by_key.cl (same macros as by_key.cl).

#ifndef BK_MODE
#error "by_key_lookback.cl needs by_key.cl first"
#endif
#if BK_ITEMS > 32
#error "by_key_lookback.cl: BK_ITEMS > 32 (a work-item's head flags are the bits of one uint)"
#endif

// Local tile index with one pad slot every 32 elements (a work-item reads BK_ITEMS consecutive
// elements: strided accesses over the banks).
#define BK_TILE_PAD(j) ((j) + ((j) >> 5))

// A tile's status: the count in one 64-bit slot (lookback.cl: flag, epoch and 32 payload bits),
// then the value's bits in one or two more (modes with values); every word carries the flag, and
// a reader accepts a tile only when all its words carry the same non-empty one.
#if BK_HAS_VALUES
#if V_BITS == 64
#define BK_SLOTS 3u
#else
#define BK_SLOTS 2u
#endif
#else
#define BK_SLOTS 1u
#endif

inline void bk_publish(__global volatile ulong* slots, uint epoch, uint tile, uint flag, uint c, V v)
{
    __global volatile ulong* s = slots + (ulong)tile * BK_SLOTS;
    lb64_publish(s, epoch, flag, c);
#if BK_HAS_VALUES
#if V_BITS == 64
    const ulong bits = BK_V_BITS(v);
    lb64_publish(s + 1, epoch, flag, (uint)bits);
    lb64_publish(s + 2, epoch, flag, (uint)(bits >> 32));
#else
    lb64_publish(s + 1, epoch, flag, (uint)BK_V_BITS(v));
#endif
#endif
}

inline uint bk_read(__global volatile ulong* slots, uint epoch, uint tile, uint* c, V* v)
{
    __global volatile ulong* s = slots + (ulong)tile * BK_SLOTS;
    const uint flag = lb64_read(s, epoch, c);
    *v = BK_ID;
#if BK_HAS_VALUES
#if V_BITS == 64
    uint lo, hi;
    const uint f1 = lb64_read(s + 1, epoch, &lo);
    const uint f2 = lb64_read(s + 2, epoch, &hi);
    *v = BK_V_FROM_BITS(((ulong)hi << 32) | lo);
    if (f1 != flag || f2 != flag) return LB_EMPTY; // words of different writes: read again
#else
    uint bits;
    const uint f1 = lb64_read(s + 1, epoch, &bits);
    *v = BK_V_FROM_BITS((V_UNSIGNED)bits);
    if (f1 != flag) return LB_EMPTY;
#endif
#endif
    return flag;
}

// The pair of tile f computed from its input, exactly as its owner computes it (the same
// elements per work-item, folded in the same order, then the same work-group scan): the
// decoupled fallback's value (lookback.cl), bit for bit the one the owner publishes. Every
// work-item calls it; the pair is in every work-item.
inline void bk_tile_pair(__global const K* keys, __global const V* vals, ulong n, uint f, __local uint* sc,
                         __local V* sv, uint* tc, V* tv)
{
    const uint lid = (uint)get_local_id(0);
    const ulong base = (ulong)f * ((uint)get_local_size(0) * BK_ITEMS);
    const ulong from = base + (ulong)lid * BK_ITEMS;
    const ulong to = min(n, from + BK_ITEMS);
    uint c = 0;
    V v = BK_ID;
    // bk_fold_global's loop, kept a loop (the cold path costs no registers): the same order.
    K prev = keys[from > 0 ? from - 1 : 0];
#pragma unroll 1
    for (ulong i = from; i < to; ++i) {
        const K k = keys[i];
        uint hc = bk_head(i, k, prev);
        V hv = bk_value(vals, i);
        bk_combine(c, v, &hc, &hv);
        c = hc;
        v = hv;
        prev = k;
    }
    uint ec;
    V ev;
    mem_fence(CLK_GLOBAL_MEM_FENCE); // (bk_look_back: this work-item's reads of the input done)
    wg_segmented_exclusive_scan_pp_bk(c, v, sc, sv, &ec, &ev, tc, tv);
}

// The pair of every tile before tile t, found by the work-group together: each round, up to
// BK_WINDOW work-items read one predecessor's slots each, then work-item 0 combines them from
// the nearest backwards up to the first inclusive prefix (done) or the first one still empty
// (read again next round). After LB_FALLBACK_POLLS empty rounds in a row (lookback.cl) the
// work-group computes the stalled tile's pair from its input instead (bk_tile_pair), publishes it
// where still empty and goes on: no tile waits without bound (the argument is scan_look_back's,
// scan_lookback.cl: every word a slot can hold is a valid pair of its tile). Every work-item
// calls it; the result is in every work-item.
// The loop's shape matters on PoCL, which runs a work-group's work-items as loops between
// barriers: a loop that read its state in its head and left a branch holding barriers with
// `continue` hung there even when the fallback never ran (RESULTS.md, #28). Every round now
// starts with the state read between two barriers, and leaves only by `break` at that point.
#ifndef BK_WINDOW
#define BK_WINDOW 32
#endif
inline void bk_look_back(__global volatile ulong* slots, uint epoch, uint t, __global const K* keys,
                         __global const V* vals, ulong n, bool in_place, __local uint* sc, __local V* sv,
                         __local uint* wflag, __local uint* wc, __local V* wv, __local uint* wstate, __local V* wacc,
                         uint* c, V* v)
{
    const uint lid = (uint)get_local_id(0);
    const uint window = min((uint)BK_WINDOW, (uint)get_local_size(0));
    if (lid == 0) {
        wstate[0] = t;      // tiles t-1, t-2, ... are still to be combined
        wstate[1] = t == 0; // done
        wstate[2] = 0;      // the count so far
        wstate[3] = 0;      // empty rounds in a row
        wstate[4] = 0;      // 1: this round, compute tile wstate[0] - 1 from its input
#ifdef LB_FALLBACK_FIRST
        wstate[4] = t > 0;  // tests: every tile takes the fallback for its predecessor first
#endif
        *wacc = BK_ID;
    }
    for (;;) {
        // Every work-item takes the round's state into private variables between two barriers
        // (work-item 0 changes it only after the second), so every branch below is the same in
        // the whole group.
        barrier(CLK_LOCAL_MEM_FENCE);
        const uint j = wstate[0], done = wstate[1], fallback = LB_FALLBACK && wstate[4];
        barrier(CLK_LOCAL_MEM_FENCE);
        if (done) break;
        // Fallback (only when the round asks for it, but its barriers are in every round:
        // control flow with barriers stays the same for the whole loop): the pair of tile j - 1
        // from its input.
        uint fc = 0;
        V fv = BK_ID;
        if (fallback) bk_tile_pair(keys, vals, n, j - 1, sc, sv, &fc, &fv);
        if (!fallback && lid < window) {
            uint rc = 0;
            V rv = BK_ID;
            wflag[lid] = lid < j ? bk_read(slots, epoch, j - 1 - lid, &rc, &rv) : LB_PREFIX;
            wc[lid] = rc;
            wv[lid] = rv;
        }
        // (Fallback: every read of the input done before the slot is read again: bk_tile_pair's
        // fence, then its scan's barriers. A global fence here, in every round, is not needed.)
        barrier(CLK_LOCAL_MEM_FENCE);
        if (lid == 0 && fallback) {
            // In place (a scan by key), the owner overwrites its values only after publishing
            // its pair (with a global fence between): a slot still empty now means the values
            // read above were whole; a slot published meanwhile is taken as it is.
            uint rc;
            V rv;
            uint flag = bk_read(slots, epoch, j - 1, &rc, &rv);
            bool use_own = flag == LB_EMPTY;
#ifdef LB_FALLBACK_FIRST
            use_own = use_own || !in_place; // tests: every tile's own pair is the one used
#endif
            if (use_own) {
                if (flag == LB_EMPTY) bk_publish(slots, epoch, j - 1, j - 1 == 0 ? LB_PREFIX : LB_AGGREGATE, fc, fv);
                rc = fc;
                rv = fv;
                flag = j - 1 == 0 ? LB_PREFIX : LB_AGGREGATE;
            }
            uint ac = wstate[2];
            V av = *wacc;
            bk_combine(rc, rv, &ac, &av);
            wstate[0] = j - 1;
            wstate[1] = flag == LB_PREFIX;
            wstate[2] = ac;
            wstate[3] = 0;
            wstate[4] = 0;
            *wacc = av;
        }
        if (lid == 0 && !fallback) {
            uint ac = wstate[2];
            V av = *wacc;
            uint used = 0;
            bool fin = false;
            for (uint b = 0; b < window && !fin; ++b) {
                if (wflag[b] == LB_EMPTY) break;
                bk_combine(wc[b], wv[b], &ac, &av); // tile j-1-b is earlier than everything in (ac, av)
                ++used;
                fin = wflag[b] == LB_PREFIX;
            }
            if (used == 0) {
                if (LB_FALLBACK && ++wstate[3] > LB_FALLBACK_POLLS) wstate[4] = 1;
                else LB_BACKOFF();
            } else {
                wstate[3] = 0;
            }
            wstate[0] = j - used;
            wstate[1] = fin;
            wstate[2] = ac;
            *wacc = av;
        }
    }
    *c = wstate[2];
    *v = *wacc;
    barrier(CLK_LOCAL_MEM_FENCE);
}

// The start both look-back kernels share (it declares these names): the look-back's local state
// (lb_*), the tile t (tiles numbered as their work-groups start: bk_tile_index), its first
// element base and its count elements, staged into local memory (tk, tv), and this work-item's
// share of it: elements [first, first + mine) of the tile, [from, from + mine) of the range.
#define BK_TILE_PROLOGUE()                                                                        \
    __local uint tile_id;                                                                         \
    __local K key_before;                                                                         \
    __local uint lb_flag[BK_WINDOW], lb_c[BK_WINDOW], lb_state[5];                                \
    __local V lb_v[BK_WINDOW], lb_acc;                                                            \
    const uint lid = (uint)get_local_id(0);                                                       \
    const uint wg = (uint)get_local_size(0);                                                      \
    const uint t = bk_tile_index(status, &tile_id);                                               \
    __global volatile ulong* slots = status + 1;                                                  \
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

// A tile's index in the order the work-groups start (status[0] counts them; the tile taking the
// last index sets it back to zero for the next launch), so a tile only ever waits on tiles that
// have started. Every work-item calls it (a barrier); *id is local scratch.
inline uint bk_tile_index(__global volatile ulong* status, __local uint* id)
{
    if (get_local_id(0) == 0) {
        *id = atomic_inc((__global volatile uint*)status);
        if (*id == (uint)get_num_groups(0) - 1u) atomic_xchg((__global volatile uint*)status, 0u);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    return *id;
}

// Stages the tile's count elements at base (keys, and values where the mode loads them) into
// local memory, one pad slot every 32, coalesced; a full tile issues every load of a row before
// its stores (many reads in flight per work-item); *before: the key before the tile (base > 0).
// Ends with a barrier.
inline void bk_stage_tile(__global const K* keys, __global const V* vals, ulong base, uint count, __local K* tk,
                          __local V* tv, __local K* before)
{
    const uint lid = (uint)get_local_id(0);
    const uint wg = (uint)get_local_size(0);
    // The key before the tile, to *before, read with the tile's loads (read after the fold's
    // barrier it held up the whole work-group for one more round trip to memory).
    if (lid == 0 && base > 0) *before = keys[base - 1];
    if (count == wg * BK_ITEMS) {
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
    } else {
        for (uint j = lid; j < count; j += wg) {
            tk[BK_TILE_PAD(j)] = keys[base + j];
#if BK_LOADS_VALUES
            tv[BK_TILE_PAD(j)] = vals[base + j];
#endif
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
}

// The tile's part of the chain: publishes its pair (tc, tv) (tile 0: as its inclusive prefix),
// looks back (bk_look_back) and publishes its inclusive prefix; returns in (*pc, *pv) the pair of
// every tile before it, in every work-item. in_place: a scan by key writing over its values.
inline void bk_tile_chain(__global volatile ulong* slots, uint epoch, uint t, uint tc, V tv, __global const K* keys,
                          __global const V* vals, ulong n, bool in_place, __local uint* sc, __local V* sv,
                          __local uint* wflag, __local uint* wc, __local V* wv, __local uint* wstate, __local V* wacc,
                          uint* pc, V* pv)
{
#ifdef BK_DIAG_SKIP_LOOKBACK // measurement only (WRONG results): what a tile costs without the chain
    *pc = 0;
    *pv = BK_ID;
    return;
#endif
    if (get_local_id(0) == 0) bk_publish(slots, epoch, t, t == 0 ? LB_PREFIX : LB_AGGREGATE, tc, tv);
    // The pair is visible before any output of this tile (a fallback reading this tile's values
    // in place relies on it; bk_look_back): only a scan by key writes over its input.
#if BK_MODE == 2
    barrier(CLK_GLOBAL_MEM_FENCE);
#endif
    bk_look_back(slots, epoch, t, keys, vals, n, in_place, sc, sv, wflag, wc, wv, wstate, wacc, pc, pv);
    if (get_local_id(0) == 0 && t > 0) {
        uint ic = tc;
        V iv = tv;
        bk_combine(*pc, *pv, &ic, &iv);
        bk_publish(slots, epoch, t, LB_PREFIX, ic, iv);
    }
}


// One work-group per tile; tiles are numbered in the order their work-groups start (status[0]
// counts them; the last one resets it for the next launch), so a tile only ever waits on tiles
// that have started. The idea, step by step:
//   load     the tile into local memory, every load of a full tile issued before any store
//            (many reads in flight per work-item), then each work-item takes its BK_ITEMS
//            consecutive elements into registers;
//   fold     each work-item folds its elements to one pair (its head flags kept as bits);
//   scan     the work-group scans the pairs; the tile publishes its pair, looks back, publishes
//            its prefix: now every work-item knows the pair of everything before it;
//   compact  each work-item writes its results into local memory at their places in the tile's
//            contiguous run of results (the tile's run starts at the count of heads before it);
//   store    the work-group writes the run out, consecutive work-items to consecutive addresses.
// tk, tv: BK_TILE_PAD(tile) + 1 elements each (tv unused without values): the staged input, then
// the staged results.
__kernel void by_key_lookback(BK_ARGS, __global volatile ulong* status, uint epoch, __local uint* sc, __local V* sv,
                              __local K* tk, __local V* tv)
{
    BK_TILE_PROLOGUE();
    K kr[BK_ITEMS];
#if BK_LOADS_VALUES
    V vr[BK_ITEMS];
#endif
#pragma unroll
    for (uint j = 0; j < BK_ITEMS; ++j) {
        if (j < mine) {
            kr[j] = tk[BK_TILE_PAD(first + j)];
#if BK_LOADS_VALUES
            vr[j] = tv[BK_TILE_PAD(first + j)];
#endif
        }
    }
    // Fold, in the order bk_tile_pair repeats for the fallback.
    BK_FOLD_SHARE(kr[j], BK_REG_VALUE(j));
    uint ec, tc;
    V ev, tvv;
    wg_segmented_exclusive_scan_pp_bk(c, v, sc, sv, &ec, &ev, &tc, &tvv);

    const bool in_place = BK_MODE == 2 && (__global const V*)(out2 + out2_off) == vals;
    uint pc;
    V pv;
    bk_tile_chain(slots, epoch, t, tc, tvv, keys, vals, n, in_place, sc, sv, lb_flag, lb_c, lb_v, lb_state, &lb_acc,
                  &pc, &pv);
    bk_combine(pc, pv, &ec, &ev); // this work-item's exclusive pair over the whole range
    out1 += out1_off;
    out2 += out2_off;

    // Compact into local memory (everyone has long read tk and tv into registers: the scan's and
    // the look-back's barriers lie between), then store. Run index r of this tile's results goes
    // to slot r - pc (reduce_by_key / run-length: the run that a head closes is r = c - 1, so the
    // slots are shifted by one: slot r - pc + 1, and tile 0 leaves slot 0 empty).
    uint cc = ec;
    V vv = ev;
    K p = prev;
    const bool last_tile = base + count == n;
#pragma unroll
    for (uint j = 0; j < BK_ITEMS; ++j) {
        if (j < mine) {
            const ulong i = from + j;
            const uint h = (heads >> j) & 1u;
            const V x = BK_REG_VALUE(j);
            const K k = kr[j];
#if BK_MODE == 1 || BK_MODE == 4
            if (h && i > 0) {
                tk[cc - pc] = p;
                tv[cc - pc] = vv;
            }
#elif BK_MODE == 2
            if (!(flags & BK_INCLUSIVE)) tv[BK_TILE_PAD(first + j)] = h ? init : BK_OP(init, vv);
#elif BK_MODE == 3
            if (h) tk[cc - pc] = k;
#else // 5
            if (h) tk[cc - pc] = k;
            else tk[tc + (first + j) - (cc - pc)] = k;
#endif
            vv = h ? x : BK_OP(vv, x);
            cc += h;
#if BK_MODE == 1 || BK_MODE == 4
            if (i == n - 1) {
                tk[cc - pc] = k;
                tv[cc - pc] = vv;
            }
#elif BK_MODE == 2
            if (flags & BK_INCLUSIVE) tv[BK_TILE_PAD(first + j)] = vv;
#endif
            if (i == n - 1 && (flags & BK_WRITE_COUNT)) count_out[count_off] = cc;
            p = k;
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
#if BK_MODE == 1 || BK_MODE == 4
    const uint m = tc + (last_tile ? 1u : 0u);
    for (uint s = lid + (t == 0 ? 1u : 0u); s < m; s += wg) {
        const ulong o = (ulong)pc + s - 1;
        if (o < cap1) out1[o] = tk[s];
        if (o < cap2) out2[o] = tv[s];
    }
#elif BK_MODE == 2
    for (uint j = lid; j < count; j += wg) out2[base + j] = tv[BK_TILE_PAD(j)];
#elif BK_MODE == 3
    for (uint s = lid; s < tc; s += wg) {
        const ulong o = (ulong)pc + s;
        if (o < cap1) out1[o] = tk[s];
    }
#else // 5
    for (uint s = lid; s < count; s += wg) {
        if (s < tc) {
            const ulong o = (ulong)pc + s;
            if (o < cap1) out1[o] = tk[s];
        } else {
            const ulong o = base - pc + (s - tc);
            if (o < cap2) out2[o] = tk[s];
        }
    }
#endif
}
