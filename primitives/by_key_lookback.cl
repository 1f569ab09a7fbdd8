// The by-key family's single pass (by_key.cl explains the modes and the pair scan): tiles of
// BK_ITEMS * local size elements chained by decoupled look-back (lookback.cl), with the decoupled
// fallback, so it needs no forward progress between work-groups. This file: a tile's status
// slots, its pair computed from its input (the fallback's), and the work-group look-back; the
// tile's shared steps are in by_key_tile.cl, the kernels in by_key_registers.cl and
// by_key_gather.cl (every element read once, every result written once, coalesced).

#ifndef BK_MODE
#error "by_key_lookback.cl needs by_key.cl first"
#endif
#if BK_ITEMS > 32
#error "by_key_lookback.cl: BK_ITEMS > 32 (a work-item's head flags are the bits of one uint)"
#endif

// BK_DIAG (measurements only, WRONG results; CLPRIM_BY_KEY_OPTIONS=-DBK_DIAG=bits): what each
// phase of a tile costs, by leaving it out: 1 the look-back (no chain: every tile starts at 0),
// 2 the global stores of the results (kept, behind a condition that never holds), 4 the whole
// epilogue (no stream, no gather), 8 the work-group scan (each work-item's own pair as the tile's),
// 16 (by_key_lean.cl, with 1) each tile's results at a place of its own (no contended stores).
#ifndef BK_DIAG
#define BK_DIAG 0
#endif
#ifdef BK_DIAG_SKIP_LOOKBACK
#undef BK_DIAG
#define BK_DIAG 1
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

// BK_SLOT16 (host: CLPRIM_BY_KEY_SLOT=16; modes with 32-bit or smaller values): a tile's two
// words (count, value) written and read as ONE 16-byte vector, so the walk's read of a slot is one
// load and the publish one store. Both words still carry the flag and a reader still compares
// them, so a device that splits the vector access stays correct (a torn read is read again).
// The slots then start at status + 2 (16-byte aligned; the host allocates one word more).
#ifndef BK_SLOT16
#define BK_SLOT16 0
#endif
#if BK_SLOT16 && !(BK_HAS_VALUES && V_BITS <= 32)
#undef BK_SLOT16
#define BK_SLOT16 0
#endif
// The first tile's slot in the status buffer (word 0: the tile counter).
#define BK_SLOTS_AT(status) ((status) + (BK_SLOT16 ? 2 : 1))

inline void bk_publish(__global volatile ulong* slots, uint epoch, uint tile, uint flag, uint c, V v)
{
    __global volatile ulong* s = slots + (ulong)tile * BK_SLOTS;
#if BK_SLOT16
    const ulong high = (ulong)((epoch << 2) | flag) << 32;
    *(__global volatile ulong2*)s = (ulong2)(high | c, high | (uint)BK_V_BITS(v));
    return;
#endif
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
#if BK_SLOT16
    const ulong2 w = *(__global volatile ulong2*)s;
    *c = (uint)w.s0;
    *v = BK_V_FROM_BITS((V_UNSIGNED)(uint)w.s1);
    const uint h0 = (uint)(w.s0 >> 32), h1 = (uint)(w.s1 >> 32);
    return (h0 >> 2) == epoch && h0 == h1 ? (h0 & 3u) : LB_EMPTY;
#endif
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
    const ulong at = min(from, n); // (defensive: the tiles looked back on are whole, but never a key past n)
    K prev = keys[at > 0 ? at - 1 : 0];
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
    clprim_device_fence(); // (bk_look_back: this work-item's reads of the input done)
    bk_tile_scan(c, v, sc, sv, &ec, &ev, tc, tv);
}

// BK_LEAN_SUB=2 (by_key_lean2.cl; host: CLPRIM_BY_KEY_LEAN_SUB=2): a look-back tile is two
// sub-tiles of local size * BK_ITEMS elements, each folded and scanned as a tile of its own and
// their pairs combined (the second's only where it has elements): its pair from its input the same
// way (BK_TILE_PAIR), bit for bit the owner's.
#ifndef BK_LEAN_SUB
#define BK_LEAN_SUB 1
#endif
#if BK_LEAN_SUB == 2
inline void bk_tile_pair2(__global const K* keys, __global const V* vals, ulong n, uint f, __local uint* sc,
                          __local V* sv, uint* tc, V* tv)
{
    bk_tile_pair(keys, vals, n, 2u * f, sc, sv, tc, tv);
    uint c2 = 0;
    V v2 = BK_ID;
    bk_tile_pair(keys, vals, n, 2u * f + 1u, sc, sv, &c2, &v2); // (every work-item: its barriers)
    if ((ulong)(2u * f + 1u) * ((uint)get_local_size(0) * BK_ITEMS) < n) {
        bk_combine(*tc, *tv, &c2, &v2);
        *tc = c2;
        *tv = v2;
    }
}
#define BK_TILE_PAIR bk_tile_pair2
#elif BK_LEAN_SUB == 1
#define BK_TILE_PAIR bk_tile_pair
#else
#error "by_key_lookback.cl: BK_LEAN_SUB is 1 or 2"
#endif

// Work-item 0, after its group computed tile f's pair (fc, fv) from the input (the fallback):
// takes the slot's pair if the owner published one meanwhile, else publishes and takes its own;
// combines it before the look-back's state (wstate[2], *wacc: the tiles after f), moves the
// state to tile f (wstate[0] = f, wstate[1]: done) and clears the stall (wstate[3]); returns
// the flag taken. In place (a scan by key), the owner overwrites its values only after
// publishing its pair (with a global fence between): a slot none of whose words was written yet
// means the values read were whole (bk_untouched); a slot published meanwhile is taken as it is.
// In place, "empty" must mean that no word of the slot was written in this launch: bk_read also
// reports a slot caught between two word stores (flags that differ) as empty, and the owner
// overwrites its input right after publishing (BK_EARLY: before its own look-back), so such a
// slot is read again instead of trusting the values (a race seen on PoCL). Fallbacks in place
// publish nothing, so only the owner writes the slot and a half-written one passes as soon as
// its next store lands.
inline bool bk_untouched(__global volatile ulong* slots, uint epoch, uint f)
{
    __global volatile ulong* s = slots + (ulong)f * BK_SLOTS;
    bool untouched = true;
    for (uint w = 0; w < BK_SLOTS; ++w) {
        uint payload;
        untouched = untouched && lb64_read(s + w, epoch, &payload) == LB_EMPTY;
    }
    return untouched;
}

inline uint bk_fallback_take(__global volatile ulong* slots, uint epoch, uint f, bool in_place, uint fc, V fv,
                             __local uint* wstate, __local V* wacc)
{
    uint rc;
    V rv;
    uint flag = bk_read(slots, epoch, f, &rc, &rv);
    bool use_own = flag == LB_EMPTY && (!in_place || bk_untouched(slots, epoch, f));
#ifdef LB_FALLBACK_FIRST
    use_own = use_own || !in_place; // tests: every tile's own pair is the one used
#endif
    if (flag == LB_EMPTY && !use_own) { // in place, half written: read it again next round
        wstate[3] = 0;
        return LB_EMPTY;
    }
    if (use_own) {
        if (flag == LB_EMPTY && !in_place) bk_publish(slots, epoch, f, f == 0 ? LB_PREFIX : LB_AGGREGATE, fc, fv);
        rc = fc;
        rv = fv;
        flag = f == 0 ? LB_PREFIX : LB_AGGREGATE;
    }
    uint ac = wstate[2];
    V av = *wacc;
    bk_combine(rc, rv, &ac, &av);
    wstate[0] = f;
    wstate[1] = flag == LB_PREFIX;
    wstate[2] = ac;
    wstate[3] = 0;
    *wacc = av;
    return flag;
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
        if (fallback) BK_TILE_PAIR(keys, vals, n, j - 1, sc, sv, &fc, &fv);
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
            bk_fallback_take(slots, epoch, j - 1, in_place, fc, fv, wstate, wacc);
            wstate[4] = 0;
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

#ifdef BK_WARP_LOOKBACK
// Publishes tile t's inclusive prefix: (pc, pv) of every tile before it, then its own (tc, tv).
inline void bk_publish_inclusive(__global volatile ulong* slots, uint epoch, uint t, uint pc, V pv, uint tc, V tv)
{
    bk_combine(pc, pv, &tc, &tv);
    bk_publish(slots, epoch, t, LB_PREFIX, tc, tv);
}

// The same look-back walked by one warp (NVIDIA, BK_WARP_LOOKBACK; host: CLPRIM_BY_KEY_WALK=warp):
// lane k reads the slots of tile j-1-k, two votes find the nearest empty slot and the nearest
// inclusive prefix, and a five-step shuffle reduction combines, in tile order, the pairs of the
// slots before whichever comes first. A window of 32 predecessors costs one round trip to L2 and
// a few instructions in warp 0, where bk_look_back above takes three work-group barriers a round
// and work-item 0 combines the window one slot at a time. The rest of the group waits at one
// barrier. The decoupled fallback is bk_look_back's: after LB_FALLBACK_POLLS empty rounds in a
// row the warp stops, the whole group computes the stalled tile's pair from its input
// (bk_tile_pair), publishes it where the slot still reads empty, and the warp walks on.
// state: wstate[0] the next tile to combine + 1, [1] done, [2] the count so far, [3] stalled;
// *wacc the value so far.

// Warp 0 only (lanes 0..31, no barrier inside): walks back from tile wstate[0] - 1. Each round
// reads BK_WALK_READS x 32 predecessors at once (lane k the slots of distances k, 32 + k, ...
// behind the nearest unread one: one round trip to L2), then takes them 32 at a time in order.
#ifndef BK_WALK_READS
#define BK_WALK_READS 1
#endif
// Once done, lane 0 publishes tile t's inclusive prefix at once (tc, tv: the tile's own pair).
// pre (bk_warp_walk_pre): the first round's slot of distance lane (r = 0) was read before the
// walk started, from tile t: (pflag, prc, prv), as bk_read gave it (by_key_lean.cl, BK_LEAN_PREREAD).
inline void bk_warp_walk_pre(__global volatile ulong* slots, uint epoch, uint t, uint tc, V tv, __local uint* wstate,
                             __local V* wacc, uint pre, uint pflag, uint prc, V prv)
{
    const uint lane = (uint)get_local_id(0);
    uint j = wstate[0], ac = wstate[2], polls = 0, done = 0, stalled = 0;
    V av = *wacc;
    pre = pre && j == t; // (the pre-read slots are tile t's nearest predecessors)
    for (;;) {
        uint rc[BK_WALK_READS], flag[BK_WALK_READS];
        V rv[BK_WALK_READS];
#pragma unroll
        for (uint r = 0; r < BK_WALK_READS; ++r) {
            const uint d = r * 32u + lane;
            rc[r] = 0;
            rv[r] = BK_ID;
            flag[r] = LB_PREFIX; // past tile 0: never taken (tile 0 publishes its prefix)
            if (r == 0 && pre) {
                flag[r] = pflag;
                rc[r] = prc;
                rv[r] = prv;
            } else if (d < j) {
                flag[r] = bk_read(slots, epoch, j - 1 - d, &rc[r], &rv[r]);
            }
        }
        pre = 0;
        uint taken = 0, more = 1; // more: every slot read so far was taken (alike in the warp)
#pragma unroll
        for (uint r = 0; r < BK_WALK_READS; ++r) {
            if (more) {
                const uint empty = bk_ballot(flag[r] == LB_EMPTY), prefix = bk_ballot(flag[r] == LB_PREFIX);
                const uint first_empty = empty ? bk_lowest(empty) : 32u;
                const uint first_prefix = prefix ? bk_lowest(prefix) : 32u;
                const uint used = lb_walk_used(first_empty, first_prefix, j, &done);
                if (used > 0) {
                    // Lanes [0, used) in tile order (lane k + 1 holds the earlier tile): after the
                    // step of distance d lane k holds the lanes [k, min(k + 2d, used)) combined.
                    uint xc = rc[r];
                    V xv = rv[r];
#pragma unroll
                    for (uint d = 1; d < 32u; d <<= 1) {
                        const uint yc = bk_shfl_down_u(xc, d);
                        const V yv = bk_shfl_down_v(xv, d);
                        if (lane + d < used) bk_combine(yc, yv, &xc, &xv);
                    }
                    uint wc = bk_shfl_idx_u(xc, 0u);
                    V wv = bk_shfl_idx_v(xv, 0u);
                    bk_combine(wc, wv, &ac, &av); // these tiles are earlier than everything in (ac, av)
                    j -= used;
                    taken += used;
                }
                more = !done && used == 32u; // else an empty slot: read again from it next round
            }
        }
        if (done) break;
        if (lb_walk_stalled(taken, &polls)) {
            stalled = 1;
            break;
        }
    }
    if (lane == 0) {
        wstate[0] = j;
        wstate[1] = done;
        wstate[2] = ac;
        wstate[3] = stalled;
        *wacc = av;
        if (done) bk_publish_inclusive(slots, epoch, t, ac, av, tc, tv);
    }
}

inline void bk_warp_walk(__global volatile ulong* slots, uint epoch, uint t, uint tc, V tv, __local uint* wstate,
                         __local V* wacc)
{
    bk_warp_walk_pre(slots, epoch, t, tc, tv, wstate, wacc, 0u, LB_EMPTY, 0u, BK_ID);
}

// Work-item 0: the warp look-back's state at its start (tiles t-1, t-2, ... still to combine).
inline void bk_warp_state_init(uint t, __local uint* wstate, __local V* wacc)
{
    wstate[0] = t;
    wstate[1] = t == 0;
    wstate[2] = 0;
    wstate[3] = 0;
#ifdef LB_FALLBACK_FIRST
    wstate[3] = t > 0; // tests: every tile takes the fallback for its predecessor first
#endif
    *wacc = BK_ID;
}

// Warp 0 alone (lanes 0..31), before the group's look-back (by_key_lean.cl, BK_LEAN_WALK_FIRST):
// sets the state up and walks once while the other warps still have work of their own; then
// bk_look_back_warp(started = true) goes on from where the walk left (done, or stalled: the
// fallback). The warp's lanes meet at bar.warp.sync (the state in local memory between them).
inline void bk_warp_walk_first_pre(__global volatile ulong* slots, uint epoch, uint t, uint tc, V tv,
                                   __local uint* wstate, __local V* wacc, uint pre, uint pflag, uint prc, V prv)
{
    if (get_local_id(0) == 0) bk_warp_state_init(t, wstate, wacc);
    asm volatile("bar.warp.sync -1;" ::: "memory");
#ifndef LB_FALLBACK_FIRST // (tests: the fallback first, as without the early walk)
    if (!wstate[1]) bk_warp_walk_pre(slots, epoch, t, tc, tv, wstate, wacc, pre, pflag, prc, prv);
    asm volatile("bar.warp.sync -1;" ::: "memory");
#endif
}
inline void bk_warp_walk_first(__global volatile ulong* slots, uint epoch, uint t, uint tc, V tv, __local uint* wstate,
                               __local V* wacc)
{
    bk_warp_walk_first_pre(slots, epoch, t, tc, tv, wstate, wacc, 0u, LB_EMPTY, 0u, BK_ID);
}

// bk_look_back's contract (every work-item calls it; the pair of every tile before t in every
// work-item). Runs on NVIDIA only, so not under PoCL's loops; its loop has bk_look_back's shape
// anyway (the state read between two barriers, left only by break).
// Unlike bk_look_back, it also publishes tile t's inclusive prefix (tc, tv: the tile's pair), as
// soon as the work-item that completes the walk has it. started: bk_warp_walk_first ran.
inline void bk_look_back_warp(__global volatile ulong* slots, uint epoch, uint t, uint tc, V tv,
                              __global const K* keys, __global const V* vals, ulong n, bool in_place, __local uint* sc,
                              __local V* sv, __local uint* wstate, __local V* wacc, uint* c, V* v, bool started)
{
    const uint lid = (uint)get_local_id(0);
    if (lid == 0 && !started) bk_warp_state_init(t, wstate, wacc);
    for (;;) {
        barrier(CLK_LOCAL_MEM_FENCE);
        const uint j = wstate[0], done = wstate[1], stalled = LB_FALLBACK && wstate[3];
        barrier(CLK_LOCAL_MEM_FENCE);
        if (done) break;
        if (stalled) {
            uint fc = 0;
            V fv = BK_ID;
            BK_TILE_PAIR(keys, vals, n, j - 1, sc, sv, &fc, &fv);
            if (lid == 0 && bk_fallback_take(slots, epoch, j - 1, in_place, fc, fv, wstate, wacc) == LB_PREFIX)
                bk_publish_inclusive(slots, epoch, t, wstate[2], *wacc, tc, tv);
        } else if (lid < 32u) {
            bk_warp_walk(slots, epoch, t, tc, tv, wstate, wacc);
        }
    }
    *c = wstate[2];
    *v = *wacc;
    barrier(CLK_LOCAL_MEM_FENCE);
}

#endif
