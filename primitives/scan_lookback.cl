// Single-pass device-wide scan: every element is read once and written once (Merrill & Garland's
// decoupled look-back, lookback.cl). The reduce-then-scan of scan.cl reads the input twice; at
// 2^26 elements that second read is a third of the memory traffic.
//
// Joined after workgroup_scan.cl, lookback.cl and scan.cl (for SCAN_ITEMS, SCAN_WG_EXCLUSIVE and
// the tile load and store, scan_tile_load / scan_tile_store). The operator is SCAN_OP(a, b) with identity SCAN_IDENTITY (a sum unless the
// host defines them): a is always the earlier part of the range, so an associative operator need
// not be commutative.

#ifndef SCAN_OP
#define SCAN_OP(a, b) ((a) + (b))
#endif
#ifndef SCAN_IDENTITY
#define SCAN_IDENTITY ((T)0)
#endif

#define SCAN_AS_BITS CLPRIM_CAT(as_, T_UNSIGNED)
#define SCAN_FROM_BITS CLPRIM_CAT(as_, T)

// A tile's status is one 64-bit slot for 8- to 32-bit T, two for 64-bit T (each half with the flag).
#if T_BITS <= 32
#define SCAN_SLOTS 1u
inline void scan_publish(__global volatile ulong* slots, uint epoch, uint tile, uint flag, T v)
{
    lb64_publish(slots + tile, epoch, flag, SCAN_AS_BITS(v));
}
inline uint scan_read(__global volatile ulong* slots, uint epoch, uint tile, T* v)
{
    uint bits;
    const uint flag = lb64_read(slots + tile, epoch, &bits);
    *v = SCAN_FROM_BITS((T_UNSIGNED)bits);
    return flag;
}
#else
#define SCAN_SLOTS 2u
inline void scan_publish(__global volatile ulong* slots, uint epoch, uint tile, uint flag, T v)
{
    const ulong bits = SCAN_AS_BITS(v);
    lb64_publish(slots + 2 * (ulong)tile, epoch, flag, (uint)bits);
    lb64_publish(slots + 2 * (ulong)tile + 1, epoch, flag, (uint)(bits >> 32));
}
inline uint scan_read(__global volatile ulong* slots, uint epoch, uint tile, T* v)
{
    uint lo, hi;
    const uint flag_lo = lb64_read(slots + 2 * (ulong)tile, epoch, &lo);
    const uint flag_hi = lb64_read(slots + 2 * (ulong)tile + 1, epoch, &hi);
    *v = SCAN_FROM_BITS(((ulong)hi << 32) | lo);
    return flag_lo == flag_hi ? flag_lo : LB_EMPTY; // halves of different writes: read again
}
#endif

// Decoupled fallback (Smith, Levien & Owens, "Decoupled Fallback: A Portable Single-Pass GPU
// Scan", SPAA 2025): a tile that finds a predecessor's slot still empty after LB_FALLBACK_POLLS
// reads stops waiting for it. The whole work-group reads that predecessor's input and reduces it
// itself, exactly as its owner does (scan_tile_load's per-item sums, then the work-group scan's
// total: the same operations in the same order, so the same bits, floats included), publishes the
// aggregate for others, and goes on looking back past it. No tile ever waits for another without
// a bound, so the scan is correct under any scheduling: no forward progress between work-groups
// is assumed. LB_FALLBACK_POLLS=0 (CLPRIM_LOOKBACK=fallback) takes the fallback at the first
// empty slot, and with LB_FALLBACK_FIRST every tile reduces its predecessor's input first (and,
// out of place, uses that value whatever the slot says), so tests check every tile's fallback.
#ifndef LB_FALLBACK_POLLS
#define LB_FALLBACK_POLLS 1024
#endif
// SCAN_AGG_FENCE=0 drops the fence between a tile's aggregate and its outputs (measurements
// only: in-place fallbacks then lose their guarantee).
#ifndef SCAN_AGG_FENCE
#define SCAN_AGG_FENCE 1
#endif

// The aggregate of tile `tile` computed from its input (every work-item calls it; the value in all).
inline T scan_tile_aggregate(__global const T* in, ulong n, uint tile, __local T* scratch)
{
    const uint lid = (uint)get_local_id(0);
    const uint tile_n = (uint)get_local_size(0) * SCAN_ITEMS;
    const ulong base = (ulong)tile * tile_n;
    const uint count = (uint)min((ulong)tile_n, n - base);
    T sum = SCAN_IDENTITY;
#pragma unroll 1
    for (uint j = 0; j < SCAN_ITEMS; ++j) { // a loop, not unrolled: the cold path costs no registers
        const uint i = lid * SCAN_ITEMS + j;
        sum = SCAN_OP(sum, i < count ? in[base + i] : SCAN_IDENTITY);
    }
    T total;
    (void)SCAN_WG_EXCLUSIVE(sum, scratch, &total);
    return total;
}

// The combined value of every tile before tile t, found by the work-group together: in each
// round work-items 0..LB_WINDOW-1 (or the whole group, if smaller) read one predecessor's slot each
// (one round trip covers LB_WINDOW tiles, where one work-item walking back alone covered one),
// then work-item 0 combines them in order up to the first inclusive prefix, or up to the first
// slot still empty (read again next round; after LB_FALLBACK_POLLS empty rounds in a row the
// group computes that tile's aggregate from `in` instead, above). Every work-item of the group
// calls it (it has barriers); *out gets the value in every work-item. t == 0 ends at once.
//
// Why what a reader accepts is never torn or stale, with OpenCL 1.2 global memory only: every
// word a tile's slot can hold is a valid (flag, value) of that tile for this epoch. The owner
// writes AGGREGATE then PREFIX; a fallback writes AGGREGATE with bit-identical value. A fallback
// write landing after the owner's PREFIX moves the slot back to AGGREGATE: still true, it only
// makes later readers walk further. 64-bit values span two words, each with the flag: a reader
// takes them only when both flags agree, and since both writers publish the same bits for the
// same flag, agreeing halves always belong together (a pair left disagreeing reads as empty and
// is resolved by another fallback, which rewrites both halves).
#ifndef LB_WINDOW
#define LB_WINDOW 32
#endif
inline T scan_look_back(__global volatile ulong* slots, uint epoch, uint t, __global const T* in, ulong n,
                        bool in_place, __local T* scratch, __local uint* wflag, __local T* wval, __local uint* wstate, __local T* wacc)
{
    const uint lid = (uint)get_local_id(0);
    const uint window = min((uint)LB_WINDOW, (uint)get_local_size(0)); // small work-groups: fewer
    if (lid == 0) {
        wstate[0] = t;      // slots t-1, t-2, ... are still to be combined
        wstate[1] = t == 0; // done
        wstate[2] = 0;      // empty rounds in a row
        wstate[3] = 0;      // 1: this round, reduce tile wstate[0] - 1 from its input
#ifdef LB_FALLBACK_FIRST
        wstate[3] = t > 0;  // tests: every tile takes the fallback for its predecessor first
#endif
        *wacc = SCAN_IDENTITY;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    while (!wstate[1]) {
        const uint j = wstate[0];
        if (LB_FALLBACK && wstate[3]) {
            // Fallback: tile j - 1 has published nothing for LB_FALLBACK_POLLS rounds.
            const T agg = scan_tile_aggregate(in, n, j - 1, scratch);
            barrier(CLK_GLOBAL_MEM_FENCE); // every read of the input before the slot is read again
            if (lid == 0) {
                // In place, the owner overwrites its input only after publishing its aggregate
                // (with a global fence between): a slot still empty now means the input read above
                // was whole. A slot published meanwhile is taken as it is.
                T v;
                uint flag = scan_read(slots, epoch, j - 1, &v);
                bool use_agg = flag == LB_EMPTY;
#ifdef LB_FALLBACK_FIRST
                use_agg = use_agg || !in_place; // tests: every tile's own aggregate is the one used
#endif
                if (use_agg) {
                    if (flag == LB_EMPTY)
                        scan_publish(slots, epoch, j - 1, j - 1 == 0 ? LB_PREFIX : LB_AGGREGATE, agg);
                    v = agg;
                    flag = j - 1 == 0 ? LB_PREFIX : LB_AGGREGATE; // tile 0's aggregate is its prefix
                }
                *wacc = SCAN_OP(v, *wacc);
                wstate[0] = j - 1;
                wstate[1] = flag == LB_PREFIX;
                wstate[2] = 0;
                wstate[3] = 0;
            }
            barrier(CLK_LOCAL_MEM_FENCE);
            continue;
        }
        if (lid < window) {
            T v = SCAN_IDENTITY;
            wflag[lid] = lid < j ? scan_read(slots, epoch, j - 1 - lid, &v) : LB_PREFIX;
            wval[lid] = v;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        if (lid == 0) {
            T acc = *wacc;
            uint used = 0;
            bool done = false;
            for (uint b = 0; b < window && !done; ++b) {
                if (wflag[b] == LB_EMPTY) break;
                acc = SCAN_OP(wval[b], acc); // wval[b] covers earlier elements than acc
                ++used;
                done = wflag[b] == LB_PREFIX;
            }
            if (used == 0) {
                if (LB_FALLBACK && ++wstate[2] > LB_FALLBACK_POLLS) wstate[3] = 1;
                else LB_BACKOFF();
            } else {
                wstate[2] = 0;
            }
            *wacc = acc;
            wstate[0] = j - used;
            wstate[1] = done;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    return *wacc;
}

// One work-group per tile of SCAN_ITEMS * local size elements; tiles are numbered in the order
// the work-groups start (status[0] counts them), not by get_group_id. status: the counter word
// (zero at launch; the tile that takes the last index sets it back to zero for the next launch),
// then SCAN_SLOTS slots per tile, tagged with this launch's epoch (lookback.cl: words of other
// epochs read EMPTY). init starts the scan (the identity for an inclusive scan).
__kernel void scan_lookback(__global const T* in, ulong in_off, __global T* out, ulong out_off, ulong n,
                            uint inclusive, T init, __global volatile ulong* status, uint epoch,
                            __local T* tile, __local T* scratch)
{
    __local uint tile_id;
    __local uint lb_flag[LB_WINDOW], lb_state[4];
    __local T lb_value[LB_WINDOW], lb_acc;
    const uint lid = (uint)get_local_id(0);
    const uint wg = (uint)get_local_size(0);
    const uint tile_n = wg * SCAN_ITEMS;
    if (lid == 0) {
        tile_id = atomic_inc((__global volatile uint*)status);
        // Every other tile has its index already: reset the counter for the next launch.
        if (tile_id == (uint)get_num_groups(0) - 1u) atomic_xchg((__global volatile uint*)status, 0u);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    const uint t = tile_id;
    const ulong base = (ulong)t * tile_n;
    const uint count = (uint)min((ulong)tile_n, n - base);
    __global const T* src = in + in_off + base;
    __global T* dst = out + out_off + base;
    __global volatile ulong* slots = status + 1;

    // Load (each work-item then owns SCAN_ITEMS consecutive elements), scan within the tile.
    T v[SCAN_ITEMS];
    const T sum = scan_tile_load(src, count, v, tile);
    T total;
    const T p = SCAN_WG_EXCLUSIVE(sum, scratch, &total);

    // Publish the tile's aggregate (tile 0: its inclusive prefix), look back together, publish
    // the inclusive prefix. Published prefixes leave init out; it is applied once, here.
    if (lid == 0) scan_publish(slots, epoch, t, t == 0 ? LB_PREFIX : LB_AGGREGATE, total);
    // The aggregate is visible before any output of this tile is (a fallback reading this tile's
    // input in place relies on it; scan_look_back).
    if (SCAN_AGG_FENCE) barrier(CLK_GLOBAL_MEM_FENCE);
    const bool in_place = in + in_off == (__global const T*)(out + out_off);
    const T before = scan_look_back(slots, epoch, t, in + in_off, n, in_place, scratch, lb_flag, lb_value, lb_state, &lb_acc);
    if (lid == 0 && t > 0) scan_publish(slots, epoch, t, LB_PREFIX, SCAN_OP(before, total));
    scan_tile_store(dst, count, v, SCAN_OP(SCAN_OP(init, before), p), inclusive != 0, tile);
}
