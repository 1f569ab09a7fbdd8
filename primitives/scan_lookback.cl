// Single-pass device-wide scan: every element is read once and written once (Merrill & Garland's
// decoupled look-back, lookback.cl). The reduce-then-scan of scan.cl reads the input twice; at
// 2^26 elements that second read is a third of the memory traffic.
//
// Joined after workgroup_scan.cl, lookback.cl and scan.cl (for SCAN_ITEMS, SCAN_TILE_PAD and
// SCAN_WG_EXCLUSIVE). The operator is SCAN_OP(a, b) with identity SCAN_IDENTITY (a sum unless the
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

// A tile's status is one 64-bit slot for 32-bit T, two for 64-bit T (each half with the flag).
#if T_BITS == 32
#define SCAN_SLOTS 1u
inline void scan_publish(__global volatile ulong* slots, uint tile, uint flag, T v)
{
    lb64_publish(slots + tile, flag, SCAN_AS_BITS(v));
}
inline uint scan_read(__global volatile ulong* slots, uint tile, T* v)
{
    uint bits;
    const uint flag = lb64_read(slots + tile, &bits);
    *v = SCAN_FROM_BITS(bits);
    return flag;
}
#else
#define SCAN_SLOTS 2u
inline void scan_publish(__global volatile ulong* slots, uint tile, uint flag, T v)
{
    const ulong bits = SCAN_AS_BITS(v);
    lb64_publish(slots + 2 * (ulong)tile, flag, (uint)bits);
    lb64_publish(slots + 2 * (ulong)tile + 1, flag, (uint)(bits >> 32));
}
inline uint scan_read(__global volatile ulong* slots, uint tile, T* v)
{
    uint lo, hi;
    const uint flag_lo = lb64_read(slots + 2 * (ulong)tile, &lo);
    const uint flag_hi = lb64_read(slots + 2 * (ulong)tile + 1, &hi);
    *v = SCAN_FROM_BITS(((ulong)hi << 32) | lo);
    return flag_lo == flag_hi ? flag_lo : LB_EMPTY; // halves of different writes: read again
}
#endif

// The combined value of every tile before tile t (spins until its predecessors have published),
// reading LB_BATCH predecessors per round trip (lookback.cl).
inline T scan_look_back(__global volatile ulong* slots, uint t)
{
#ifdef LB_DIAG_SKIP // measurement only (wrong results): what a tile costs without waiting
    return SCAN_IDENTITY;
#endif
    T acc = SCAN_IDENTITY;
    uint j = t; // tiles j-1, j-2, ... are still to be combined
    while (j > 0) {
        T v[LB_BATCH];
        uint flag[LB_BATCH];
#pragma unroll
        for (uint b = 0; b < LB_BATCH; ++b) {
            v[b] = SCAN_IDENTITY;
            flag[b] = b < j ? scan_read(slots, j - 1 - b, &v[b]) : LB_PREFIX;
        }
#pragma unroll
        for (uint b = 0; b < LB_BATCH; ++b) {
            if (flag[b] == LB_EMPTY) break; // read it again in the next batch
            acc = SCAN_OP(v[b], acc);     // v covers earlier elements than acc
            --j;
            if (flag[b] == LB_PREFIX) return acc;
        }
    }
    return acc;
}

// One work-group per tile of SCAN_ITEMS * local size elements; tiles are numbered in the order
// the work-groups start (status[0] counts them), not by get_group_id. status: the counter word,
// then SCAN_SLOTS slots per tile, all zero at launch. init starts the scan (the identity for an
// inclusive scan).
__kernel void scan_lookback(__global const T* in, ulong in_off, __global T* out, ulong out_off, ulong n,
                            uint inclusive, T init, __global volatile ulong* status,
                            __local T* tile, __local T* scratch)
{
    __local uint tile_id;
    __local T carry_in;
    const uint lid = (uint)get_local_id(0);
    const uint wg = (uint)get_local_size(0);
    const uint tile_n = wg * SCAN_ITEMS;
    if (lid == 0) tile_id = atomic_inc((__global volatile uint*)status);
    barrier(CLK_LOCAL_MEM_FENCE);
    const uint t = tile_id;
    const ulong base = (ulong)t * tile_n;
    const uint count = (uint)min((ulong)tile_n, n - base);
    __global const T* src = in + in_off + base;
    __global T* dst = out + out_off + base;
    __global volatile ulong* slots = status + 1;

    // Coalesced load through local memory; each work-item then owns SCAN_ITEMS consecutive elements.
    for (uint j = 0; j < SCAN_ITEMS; ++j) {
        const uint i = j * wg + lid;
        tile[SCAN_TILE_PAD(i)] = i < count ? src[i] : SCAN_IDENTITY;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    T v[SCAN_ITEMS];
    T sum = SCAN_IDENTITY;
    for (uint j = 0; j < SCAN_ITEMS; ++j) {
        v[j] = tile[SCAN_TILE_PAD(lid * SCAN_ITEMS + j)];
        sum = SCAN_OP(sum, v[j]);
    }
    T total;
    T p = SCAN_WG_EXCLUSIVE(sum, scratch, &total);

    // One work-item publishes the tile's aggregate, looks back, publishes the inclusive prefix.
    if (lid == 0) {
        // Published prefixes leave init out; it is applied once, here.
        T before = SCAN_IDENTITY;
        if (t == 0) {
            scan_publish(slots, 0, LB_PREFIX, total);
        } else {
            scan_publish(slots, t, LB_AGGREGATE, total);
            before = scan_look_back(slots, t);
            scan_publish(slots, t, LB_PREFIX, SCAN_OP(before, total));
        }
        carry_in = SCAN_OP(init, before);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    p = SCAN_OP(carry_in, p);
    if (inclusive) {
        for (uint j = 0; j < SCAN_ITEMS; ++j) {
            p = SCAN_OP(p, v[j]);
            v[j] = p;
        }
    } else {
        for (uint j = 0; j < SCAN_ITEMS; ++j) {
            const T x = v[j];
            v[j] = p;
            p = SCAN_OP(p, x);
        }
    }
    // Each item rewrites only its own slots (which only it read), then all read for the store.
    for (uint j = 0; j < SCAN_ITEMS; ++j) tile[SCAN_TILE_PAD(lid * SCAN_ITEMS + j)] = v[j];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint j = 0; j < SCAN_ITEMS; ++j) {
        const uint i = j * wg + lid;
        if (i < count) dst[i] = tile[SCAN_TILE_PAD(i)];
    }
}
