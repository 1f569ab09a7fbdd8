// The by-key family's warp pieces (NVIDIA: warps of 32 consecutive work-items, inline PTX) and
// the tile scan every look-back kernel and the decoupled fallback call (bk_tile_scan).
//
//   BK_SHFL_SCAN (host: CLPRIM_BY_KEY_SCAN=shfl, NVIDIA builds with BK_PTX, local size a
//   multiple of 32): the work-group's exclusive scan of the pairs (workgroup_segmented.cl's
//   operator) as a five-step shuffle scan inside each warp, the warps' totals through local
//   memory, and each work-item combining the totals of the warps before its own: three
//   barriers, where the ping-pong Hillis & Steele scan over the group takes log2(local size) + 3
//   and moves every pair through local memory at every step. Without it: that scan
//   (wg_segmented_exclusive_scan_pp_bk). The owner of a tile and the fallback that recomputes
//   it call the same function, so both give the same bits (non-associative operators too).
//   The shuffles and votes below are also what the warp's look-back (by_key_lookback.cl,
//   BK_WARP_LOOKBACK) uses.
//
// Joined after by_key.cl (BK_OP, BK_ID, bk_combine, BK_V_BITS) and before by_key_lookback.cl.

#ifndef BK_MODE
#error "by_key_warp.cl needs by_key.cl first"
#endif

#if defined(BK_SHFL_SCAN) || defined(BK_WARP_LOOKBACK)
#ifndef BK_PTX
#error "by_key_warp.cl: BK_SHFL_SCAN and BK_WARP_LOOKBACK need NVIDIA's PTX (BK_PTX)"
#endif
// One 32-bit word from the lane d below (up), d above (down) or lane l (idx); a lane whose
// source is outside the warp gets its own word back.
inline uint bk_shfl_up_u(uint x, uint d)
{
    uint y;
    asm volatile("shfl.sync.up.b32 %0, %1, %2, 0x0, 0xffffffff;" : "=r"(y) : "r"(x), "r"(d));
    return y;
}
inline uint bk_shfl_down_u(uint x, uint d)
{
    uint y;
    asm volatile("shfl.sync.down.b32 %0, %1, %2, 0x1f, 0xffffffff;" : "=r"(y) : "r"(x), "r"(d));
    return y;
}
inline uint bk_shfl_idx_u(uint x, uint l)
{
    uint y;
    asm volatile("shfl.sync.idx.b32 %0, %1, %2, 0x1f, 0xffffffff;" : "=r"(y) : "r"(x), "r"(l));
    return y;
}
// The same for a value (its bits: one word, or two for 64-bit types).
#if V_BITS == 64
#define BK_SHFL_V_(NAME)                                                                          \
    inline V bk_shfl_##NAME##_v(V v, uint d)                                                      \
    {                                                                                             \
        const ulong b = BK_V_BITS(v);                                                             \
        const uint lo = bk_shfl_##NAME##_u((uint)b, d), hi = bk_shfl_##NAME##_u((uint)(b >> 32), d); \
        return BK_V_FROM_BITS(((ulong)hi << 32) | lo);                                            \
    }
#else
#define BK_SHFL_V_(NAME)                                                                          \
    inline V bk_shfl_##NAME##_v(V v, uint d)                                                      \
    {                                                                                             \
        return BK_V_FROM_BITS((V_UNSIGNED)bk_shfl_##NAME##_u((uint)BK_V_BITS(v), d));             \
    }
#endif
BK_SHFL_V_(up)
BK_SHFL_V_(down)
BK_SHFL_V_(idx)

// The lanes of the warp whose pred is non-zero, as bits (every lane of the warp calls it).
inline uint bk_ballot(uint pred)
{
    uint m;
    asm volatile("{\n\t.reg .pred p;\n\tsetp.ne.u32 p, %1, 0;\n\tvote.sync.ballot.b32 %0, p, 0xffffffff;\n\t}"
                 : "=r"(m)
                 : "r"(pred));
    return m;
}
// The index of the lowest set bit of m != 0.
inline uint bk_lowest(uint m) { return popcount((m & (0u - m)) - 1u); }
#endif

#ifdef BK_SHFL_SCAN
// wg_segmented_exclusive_scan_pp_bk's contract (sc, sv: at least one entry per warp here):
// (*ec, *ev) the pairs of work-items 0 .. lid-1 combined, (*tc, *tv) the group's; starts and
// ends with a barrier.
inline void bk_tile_scan(uint c, V v, __local uint* sc, __local V* sv, uint* ec, V* ev, uint* tc, V* tv)
{
    const uint lid = (uint)get_local_id(0);
    const uint lane = lid & 31u, warp = lid >> 5, warps = (uint)get_local_size(0) >> 5;
    uint ic = c; // inclusive within the warp
    V iv = v;
#pragma unroll
    for (uint d = 1; d < 32u; d <<= 1) {
        const uint pc = bk_shfl_up_u(ic, d);
        const V pv = bk_shfl_up_v(iv, d);
        if (lane >= d) bk_combine(pc, pv, &ic, &iv);
    }
    barrier(CLK_LOCAL_MEM_FENCE); // the caller may still be reading the scratch
    if (lane == 31u) {
        sc[warp] = ic;
        sv[warp] = iv;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    // The warps' totals in order: those before this warp, then all.
    uint bc = 0, ac = 0;
    V bv = BK_ID, av = BK_ID;
    for (uint w = 0; w < warps; ++w) {
        uint xc = sc[w];
        V xv = sv[w];
        bk_combine(ac, av, &xc, &xv);
        ac = xc;
        av = xv;
        if (w + 1u == warp) {
            bc = ac;
            bv = av;
        }
    }
    // Exclusive within the warp: the inclusive pair of the lane below (lane 0: none).
    uint xc = bk_shfl_up_u(ic, 1u);
    V xv = bk_shfl_up_v(iv, 1u);
    if (lane == 0) {
        xc = bc;
        xv = bv;
    } else if (warp > 0) {
        bk_combine(bc, bv, &xc, &xv);
    }
    *ec = xc;
    *ev = xv;
    *tc = ac;
    *tv = av;
    barrier(CLK_LOCAL_MEM_FENCE);
}
#else
#define bk_tile_scan wg_segmented_exclusive_scan_pp_bk
#endif
