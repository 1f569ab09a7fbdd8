// The by-key and selection family in one building block: a segmented scan of (count, value)
// pairs (workgroup_segmented.cl explains the pair operator) with a fused prologue that makes the
// pairs from the input and a fused epilogue that scatters the results.
//
//   prologue: element i gets head(i) = "a run starts here" (keys: i == 0 or keys[i] differs from
//             keys[i-1] in its bits; partition: pred(keys[i])) and the pair (head(i), values[i]).
//   scan:     the exclusive scan of the pairs gives, at every element, how many heads came
//             before it and the combination of its run's values so far.
//   epilogue: per mode (BK_MODE):
//     1 reduce_by_key  at a head i > 0 the previous run is complete: out1[c-1] = keys[i-1],
//                      out2[c-1] = its value; the last element writes the last run.
//     2 scan_by_key    out2[i] = the inclusive value, or (exclusive) init at a head and
//                      OP(init, value so far) elsewhere.
//     3 unique         at a head: out1[c] = keys[i].
//     4 rle            reduce_by_key of the value 1 (V = uint): out1 = keys, out2 = run lengths.
//     5 partition      head (pred true): out1[c] = x, else out2[i - c] = x (copy_if: no out2).
//   Writes past an output's capacity are dropped (the host reports a count beyond it); the
//   total count (heads) goes to count_out when BK_WRITE_COUNT is in flags.
//
// Two device-wide forms of the scan, chosen by the host (by_key_policy.hpp):
//   by_key_lookback         one pass: tiles chained by decoupled look-back (lookback.cl).
//   by_key_chunk_reduce/_scan  CPU devices: one work-item per long contiguous chunk; the first
//                           kernel folds every chunk to one pair, the second folds the pairs of
//                           the chunks before its own and runs the epilogue sequentially.
//
// Required macros: K (key / element type, with K_UNSIGNED), V (value type, with V_UNSIGNED and
// V_BITS; the element type for partition, uint where unused), BK_MODE (1..5), BK_ITEMS (elements
// per work-item of a look-back tile). Optional: CLPRIM_OP(a, b) and CLPRIM_IDENTITY (the value
// operator, a generated source; the sum otherwise), CLPRIM_PRED(x) (mode 5, required there).
// Joined after workgroup_segmented.cl and lookback.cl.

#ifndef K
#error "by_key.cl needs K"
#endif
#ifndef V
#error "by_key.cl needs V"
#endif
#ifndef BK_MODE
#error "by_key.cl needs BK_MODE"
#endif
#ifndef BK_ITEMS
#error "by_key.cl needs BK_ITEMS"
#endif
#if BK_MODE == 5 && !defined(CLPRIM_PRED)
#error "by_key.cl needs CLPRIM_PRED for BK_MODE 5"
#endif

#ifdef CLPRIM_OP
#define BK_OP(a, b) CLPRIM_OP(a, b)
#define BK_ID CLPRIM_IDENTITY
#else
#define BK_OP(a, b) ((a) + (b))
#define BK_ID ((V)0)
#endif

#define BK_HAS_VALUES (BK_MODE == 1 || BK_MODE == 2 || BK_MODE == 4)
#define BK_INCLUSIVE 1u
#define BK_WRITE_COUNT 2u

WG_SEGMENTED_DEFINE_OP(bk, V, BK_OP, BK_ID)

#define BK_KEY_BITS CLPRIM_CAT(as_, K_UNSIGNED)
#define BK_V_BITS CLPRIM_CAT(as_, V_UNSIGNED)
#define BK_V_FROM_BITS CLPRIM_CAT(as_, V)

// The pair operator (workgroup_segmented.cl): a earlier, b later.
inline void bk_combine(uint ac, V av, uint* bc, V* bv)
{
    *bv = *bc != 0 ? *bv : BK_OP(av, *bv);
    *bc += ac;
}

// Element i's value, at vals[j] (mode 4: 1; modes without values: the identity).
#if BK_MODE == 4
#define bk_value(vals, j) ((V)1)
#elif BK_HAS_VALUES
#define bk_value(vals, j) ((vals)[j])
#else
#define bk_value(vals, j) (BK_ID)
#endif

// Does a run start at element i, whose key is k (prev: keys[i-1], read only when i > 0)?
inline uint bk_head(ulong i, K k, K prev)
{
#if BK_MODE == 5
    return CLPRIM_PRED(k) ? 1u : 0u;
#else
    return (i == 0 || BK_KEY_BITS(k) != BK_KEY_BITS(prev)) ? 1u : 0u;
#endif
}

// The arguments every kernel shares (buffers already offset by the host's element offsets).
#define BK_ARGS                                                                                   \
    __global const K *keys, ulong keys_off, __global const V *vals, ulong vals_off, ulong n,       \
        __global K *out1, ulong out1_off, ulong cap1, __global V *out2, ulong out2_off, ulong cap2, \
        __global ulong *count_out, ulong count_off, uint flags, V init

// The per-element work, written once for elements in global memory (the chunks path) and for a
// tile staged in local memory (the look-back path): BK_DEFINE_ELEMENTS(NAME, AS, AT) defines
// bk_fold_NAME and bk_emit_NAME over keys / vals in address space AS, where element i (an index
// into the caller's range) is keys[AT(i)]. prev: the key of element from - 1 (read when from > 0).
//   bk_fold_NAME: the pair of the elements [from, to) (to <= n), starting from the pair (*c, *v).
//   bk_emit_NAME: the epilogue over [from, to); (c, v) is the pair of every element before from.
//                 Scan results go to scan_out[AT(i)] (the output range, or the staged tile).
#define BK_DEFINE_ELEMENTS(NAME, AS, AT)                                                          \
    inline void bk_fold_##NAME(AS const K* keys, AS const V* vals, ulong base, ulong from, ulong to, K prev, \
                               uint* c, V* v)                                                     \
    {                                                                                             \
        for (ulong i = from; i < to; ++i) {                                                       \
            const K k = keys[AT(i)];                                                              \
            uint hc = bk_head(i, k, prev);                                                        \
            V hv = bk_value(vals, AT(i));                                                         \
            bk_combine(*c, *v, &hc, &hv);                                                         \
            *c = hc;                                                                              \
            *v = hv;                                                                              \
            prev = k;                                                                             \
        }                                                                                         \
    }                                                                                             \
    inline void bk_emit_##NAME(AS const K* keys, AS const V* vals, ulong base, ulong n, __global K* out1, \
                               ulong cap1, __global V* out2, ulong cap2, AS V* scan_out,           \
                               __global ulong* count_out, uint flags, V init, ulong from, ulong to, K prev, \
                               uint c, V v)                                                       \
    {                                                                                             \
        for (ulong i = from; i < to; ++i) {                                                       \
            const K k = keys[AT(i)];                                                              \
            const uint h = bk_head(i, k, prev);                                                   \
            const V x = bk_value(vals, AT(i));                                                    \
            BK_EMIT_BEFORE(i);                                                                    \
            v = h ? x : BK_OP(v, x);                                                              \
            c += h;                                                                               \
            BK_EMIT_AFTER(i);                                                                     \
            if (i == n - 1 && (flags & BK_WRITE_COUNT)) *count_out = c;                           \
            prev = k;                                                                             \
        }                                                                                         \
    }

// What the epilogue writes for element i before and after its pair joins (c, v) (BK_MODE).
#if BK_MODE == 1 || BK_MODE == 4
#define BK_EMIT_BEFORE(i)                                                                         \
    if (h && i > 0 && c - 1 < cap1) out1[c - 1] = prev;                                           \
    if (h && i > 0 && c - 1 < cap2) out2[c - 1] = v;
#define BK_EMIT_AFTER(i)                                                                          \
    if (i == n - 1 && c - 1 < cap1) out1[c - 1] = k;                                              \
    if (i == n - 1 && c - 1 < cap2) out2[c - 1] = v;
#elif BK_MODE == 2
#define BK_EMIT_BEFORE(i)                                                                         \
    if (!(flags & BK_INCLUSIVE)) scan_out[AT_(i)] = h ? init : BK_OP(init, v);
#define BK_EMIT_AFTER(i)                                                                          \
    if (flags & BK_INCLUSIVE) scan_out[AT_(i)] = v;
#elif BK_MODE == 3
#define BK_EMIT_BEFORE(i)                                                                         \
    if (h && c < cap1) out1[c] = k;
#define BK_EMIT_AFTER(i)
#else // 5
#define BK_EMIT_BEFORE(i)                                                                         \
    if (h) {                                                                                      \
        if (c < cap1) out1[c] = k;                                                                \
    } else if (i - c < cap2) {                                                                    \
        out2[i - c] = k;                                                                          \
    }
#define BK_EMIT_AFTER(i)
#endif

// Elements in global memory: index i as it is. In the local tile: i - base, one pad slot every
// 32 elements (a work-item reads BK_ITEMS consecutive elements: strided accesses over the banks).
#define BK_GLOBAL_AT(i) (i)
#define BK_TILE_PAD(j) ((j) + ((j) >> 5))
#define BK_LOCAL_AT(i) BK_TILE_PAD((uint)((i) - base))
#define AT_ BK_GLOBAL_AT
BK_DEFINE_ELEMENTS(global, __global, BK_GLOBAL_AT)
#undef AT_
#define AT_ BK_LOCAL_AT
BK_DEFINE_ELEMENTS(local, __local, BK_LOCAL_AT)
#undef AT_

// --- CPU-shaped path: one work-item per chunk of `chunk` consecutive elements.

// agg_c[g], agg_v[g]: the pair of chunk g. Its count needs no running state (every element's
// head flag reads only its key and the one before: a loop a compiler may vectorise); its value
// is the fold of the values from the chunk's last head on (all of them without a head), found
// by walking back from the chunk's end.
__kernel void by_key_chunk_reduce(BK_ARGS, ulong chunk, __global uint* agg_c, __global V* agg_v)
{
    const ulong g = get_global_id(0);
    const ulong from = g * chunk, to = min(n, from + chunk);
    keys += keys_off;
    vals += vals_off;
    uint c = 0;
    V v = BK_ID;
    if (from < to) {
        for (ulong i = from; i < to; ++i) c += bk_head(i, keys[i], keys[i > 0 ? i - 1 : 0]);
#if BK_HAS_VALUES
        ulong s = to; // the elements [s, to) are not heads
        while (s > from && !bk_head(s - 1, keys[s - 1], keys[s > 1 ? s - 2 : 0])) --s;
        const ulong start = s > from ? s - 1 : from;
        for (ulong i = start; i < to; ++i) v = i == start ? bk_value(vals, i) : BK_OP(v, bk_value(vals, i));
#endif
    }
    agg_c[g] = c;
    agg_v[g] = v;
}

// Chunk g combines the pairs of chunks 0 .. g-1 (a handful per core), then runs the epilogue.
__kernel void by_key_chunk_scan(BK_ARGS, ulong chunk, __global const uint* agg_c, __global const V* agg_v)
{
    const ulong g = get_global_id(0);
    const ulong from = g * chunk, to = min(n, from + chunk);
    uint c = 0;
    V v = BK_ID;
    for (ulong j = 0; j < g; ++j) {
        uint bc = agg_c[j];
        V bv = agg_v[j];
        bk_combine(c, v, &bc, &bv);
        c = bc;
        v = bv;
    }
    keys += keys_off;
    vals += vals_off;
    if (from < to)
        bk_emit_global(keys, vals, 0, n, out1 + out1_off, cap1, out2 + out2_off, cap2, out2 + out2_off,
                       count_out + count_off, flags, init, from, to, keys[from > 0 ? from - 1 : 0], c, v);
}

// --- GPU path: one pass, tiles of BK_ITEMS * local size elements chained by look-back.

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
    wg_segmented_exclusive_scan_bk(c, v, sc, sv, &ec, &ev, tc, tv);
}

// The pair of every tile before tile t, found by the work-group together: each round, up to
// BK_WINDOW work-items read one predecessor's slots each, then work-item 0 combines them from
// the nearest backwards up to the first inclusive prefix (done) or the first one still empty
// (read again next round). After LB_FALLBACK_POLLS empty rounds in a row (lookback.cl) the
// work-group computes the stalled tile's pair from its input instead (bk_tile_pair), publishes it
// where still empty and goes on: no tile waits without bound (the argument is scan_look_back's,
// scan_lookback.cl: every word a slot can hold is a valid pair of its tile). Every work-item
// calls it; the result is in every work-item.
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
        barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE); // (fallback: every read of the input before the slot is read again)
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

// One work-group per tile; tiles are numbered in the order their work-groups start (status[0]
// counts them; the last one resets it for the next launch), so a tile only ever waits on tiles
// that have started. The tile is loaded into local memory with coalesced reads (keys, and values
// where the mode has them); then work-item lid owns BK_ITEMS consecutive elements: it folds them
// to a pair, the work-group scans the pairs, the tile publishes its pair, looks back, publishes
// its prefix, and every work-item runs the epilogue over its elements from its exclusive pair.
// Scan results are staged in the tile (over the values) and stored coalesced.
// tk, tv: BK_TILE_PAD(tile - 1) + 1 elements each (tv unused without values).
__kernel void by_key_lookback(BK_ARGS, __global volatile ulong* status, uint epoch, __local uint* sc, __local V* sv,
                              __local K* tk, __local V* tv)
{
    __local uint tile_id;
    __local uint lb_flag[BK_WINDOW], lb_c[BK_WINDOW], lb_state[5];
    __local V lb_v[BK_WINDOW], lb_acc;
    const uint lid = (uint)get_local_id(0);
    const uint wg = (uint)get_local_size(0);
    if (lid == 0) {
        tile_id = atomic_inc((__global volatile uint*)status);
        if (tile_id == (uint)get_num_groups(0) - 1u) atomic_xchg((__global volatile uint*)status, 0u);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    const uint t = tile_id;
    __global volatile ulong* slots = status + 1;
    const uint tile_n = wg * BK_ITEMS;
    const ulong base = (ulong)t * tile_n;
    const uint count = (uint)min((ulong)tile_n, n - base);
    keys += keys_off;
    vals += vals_off;
    for (uint j = lid; j < count; j += wg) {
        tk[BK_TILE_PAD(j)] = keys[base + j];
#if BK_HAS_VALUES && BK_MODE != 4
        tv[BK_TILE_PAD(j)] = vals[base + j];
#endif
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    const ulong from = base + (ulong)lid * BK_ITEMS;
    const ulong to = min(n, from + BK_ITEMS);
    // The key before this work-item's first element (the tile's predecessor for work-item 0).
    K prev = tk[0];
    if (from < to) prev = lid > 0 ? tk[BK_TILE_PAD(lid * BK_ITEMS - 1)] : keys[base > 0 ? base - 1 : 0];

    uint c = 0;
    V v = BK_ID;
    bk_fold_local(tk, tv, base, from, to, prev, &c, &v);
    uint ec, tc;
    V ev, tvv;
    wg_segmented_exclusive_scan_bk(c, v, sc, sv, &ec, &ev, &tc, &tvv);

    if (lid == 0) bk_publish(slots, epoch, t, t == 0 ? LB_PREFIX : LB_AGGREGATE, tc, tvv);
    // The pair is visible before any output of this tile (a fallback reading this tile's values
    // in place relies on it; bk_look_back): only a scan by key writes over its input.
#if BK_MODE == 2
    barrier(CLK_GLOBAL_MEM_FENCE);
#endif
    const bool in_place = BK_MODE == 2 && (__global const V*)(out2 + out2_off) == vals;
    uint pc;
    V pv;
    bk_look_back(slots, epoch, t, keys, vals, n, in_place, sc, sv, lb_flag, lb_c, lb_v, lb_state, &lb_acc, &pc, &pv);
    if (lid == 0 && t > 0) {
        uint ic = tc;
        V iv = tvv;
        bk_combine(pc, pv, &ic, &iv);
        bk_publish(slots, epoch, t, LB_PREFIX, ic, iv);
    }
    bk_combine(pc, pv, &ec, &ev); // this work-item's exclusive pair over the whole range
    bk_emit_local(tk, tv, base, n, out1 + out1_off, cap1, out2 + out2_off, cap2, tv, count_out + count_off, flags, init,
                  from, to, prev, ec, ev);
#if BK_MODE == 2
    // Every work-item has read its values before it wrote its results over them (in place: its
    // own elements only); the staged results go out coalesced.
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint j = lid; j < count; j += wg) out2[out2_off + base + j] = tv[BK_TILE_PAD(j)];
#endif
}

#if BK_MODE == 5
// stable_partition's copy back: range[i] = the true group (tmp[0, c)) then the false group
// (tmp[n, 2n - c)), c read from the device (the count partition_copy wrote).
__kernel void by_key_partition_back(__global K* range, ulong range_off, ulong n, __global const K* tmp,
                                    __global const ulong* count, ulong count_off)
{
    const ulong i = get_global_id(0);
    if (i >= n) return;
    const ulong c = count[count_off];
    range[range_off + i] = i < c ? tmp[i] : tmp[n + i - c];
}
#endif
