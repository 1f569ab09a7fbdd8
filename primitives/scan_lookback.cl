// Single-pass device-wide scan: every element is read once and written once (Merrill & Garland's
// decoupled look-back, lookback.cl). The reduce-then-scan of scan.cl reads the input twice; at
// 2^26 elements that second read is a third of the memory traffic.
//
// Joined after workgroup_scan.cl, lookback.cl, scan_window_lookback.cl and scan.cl (for SCAN_ITEMS, SCAN_WG_EXCLUSIVE and
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

// The decoupled fallback (scan_window_lookback.cl): a tile that finds a predecessor's slot still
// empty for LB_FALLBACK_POLLS rounds reduces that predecessor's input itself
// (scan_tile_aggregate: the owner's own operations in order, so the same bits).
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

// The combined value of every tile before tile t (scan_window_lookback.cl: a window of
// predecessors' slots per round trip, the decoupled fallback through scan_tile_aggregate).
LB_WINDOW_LOOK_BACK_DEFINE(scan_look_back, T, SCAN_OP, SCAN_IDENTITY, scan_read, scan_publish, scan_tile_aggregate, T, T)

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
    const uint t = lb_take_tile_index(status, &tile_id);
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
