// The bitonic sort's fused variant (its group kernels: bitonic_group_sort, bitonic_group_tail,
// bitonic_rows_m<M>), its own program. Joined after sort_key_order.cl and bitonic_common.cl (the
// key and value macros, SK, CMPX); needs BITONIC_REG_BITS, BITONIC_TILE_BITS and BITONIC_COL_BITS
// (log2 of the elements per work-item, per work-group, and of the columns a rows launch keeps
// consecutive).
#ifndef BITONIC_REG_BITS
#error "bitonic_fused.cl needs BITONIC_REG_BITS"
#endif
#ifndef BITONIC_TILE_BITS
#error "bitonic_fused.cl needs BITONIC_TILE_BITS"
#endif
#ifndef BITONIC_COL_BITS
#error "bitonic_fused.cl needs BITONIC_COL_BITS"
#endif

// ---------------------------------------------------------------------------------------------
// The fused variant: every launch runs many passes of the network on a work-group's 2^TB
// elements (TB = BITONIC_TILE_BITS), so one read and one write of the data serve many passes.
// Which elements a group holds is a choice of index bits:
//  - tile launches hold 2^TB consecutive elements: bitonic_group_sort runs every stage up to 2^TB
//    on them (the first launch), bitonic_group_tail the passes with distance < 2^TB of one later
//    stage (the stage's tail);
//  - rows launches (bitonic_rows_m<M>) use the matrix view: index bits [0, C) are columns, the
//    M = TB - C bits [a, a + M) are rows, all other bits name the group. A group holds 2^M rows of
//    2^C consecutive columns, so loads and stores move whole runs of consecutive elements
//    (coalesced), while its comparators run between rows: M passes of one stage, distances
//    2^(a+M-1) ... 2^a, for one read and one write of the data.
// Inside a group every pass pairs local indices that differ in one bit. The passes run in chunks
// of RB = BITONIC_REG_BITS consecutive local bits [q, q + RB): each work-item takes the RN = 2^RB
// elements whose local indices differ only in those bits (its id fills the others), runs the
// chunk's passes in registers (min/max, no local memory, no barrier) and puts them back; between
// chunks the elements go through local memory. Tile size, register bits and column bits are
// compile-time constants, so every chunk's positions are constants: a register's local address is
// its work-item's base plus a constant, and the unrolled networks have no index arithmetic.
//
// Flip form: stage k = 2^s starts with the mirror pass i <-> i ^ (k - 1), which flips every bit
// below s, so its partners live in another work-item's chunk (or, in rows launches, another
// group). Both kinds of launch handle it the same way: the element set a work-item (group) holds
// for the stage's top bit is its lower half plus the mirror images of that half, and the upper
// registers are held in reversed order. Then the mirror pass pairs register r with RN - 1 - r, and
// every later pass of the stage is an ordinary pass (smaller key to the lower register).
// Indices >= n read as the largest sortable value and are never written, as in the other variants.
// ---------------------------------------------------------------------------------------------
#define RB BITONIC_REG_BITS
#define RN (1 << RB)
#define TB BITONIC_TILE_BITS
#define TILE (1u << TB)
#define WG (1u << (TB - RB))
// Local memory holds a group's elements padded by one slot per 32, so that a warp reading one
// register of a chunk (32 work-items, addresses 2^q apart) hits distinct banks.
#define LPAD(l) ((l) + ((l) >> 5))
// The work-group size is fixed by the build, so the compiler can budget registers for it.
#define GROUP_KERNEL __kernel __attribute__((reqd_work_group_size(WG, 1, 1)))

// Work-item u's local index for register 0 of a chunk over bits [q, q + RB): u's bits fill the
// others. Register r sits at base | r << q; base and r << q share no bit, so
// LPAD(base | r << q) == LPAD(base) + LPAD(r << q): a constant offset per register.
inline uint chunk_base(uint u, uint q) { return (u & ((1u << q) - 1)) | ((u >> q) << (q + RB)); }

// Passes on chunk bits hi down to lo (absolute local bits, within [q, q + RB)), registers in
// local order: the smaller key to the lower register.
inline void reg_passes(SK* kr, V* vr, int q, int hi, int lo)
{
    (void)vr;
#pragma unroll
    for (int rr = RB - 1; rr >= 0; --rr) {
        if (q + rr > hi || q + rr < lo) continue;
        const uint d = 1u << rr;
#pragma unroll
        for (uint r = 0; r < RN; ++r)
            if (!(r & d)) CMPX(kr[r], kr[r | d], vr[r], vr[r | d]);
    }
}

// The mirror pass on a chunk whose upper registers hold the mirror images in reversed order.
inline void reg_mirror(SK* kr, V* vr)
{
    (void)vr;
#pragma unroll
    for (uint r = 0; r < RN / 2; ++r) CMPX(kr[r], kr[RN - 1 - r], vr[r], vr[RN - 1 - r]);
}

// Moves a chunk's registers to or from local memory. Register r sits at local field f(r) = r ^ m
// of its half's base: lb_lo / m_lo for the lower half of the registers, lb_hi / m_hi for the upper
// (lb = LPAD of a base; a mask reverses a half). Ordinary chunks: one base, no masks. A chunk
// whose top bit is a stage's top bit, on the mirror layout: the upper half from the base with its
// bits below q complemented (the mirror partner of base | r << q is that base | (RN - 1 - r) << q),
// so the mirror pass pairs r with RN - 1 - r and the later passes are ordinary.
inline void chunk_io(__local SK* lk, __local V* lv, uint lb_lo, uint lb_hi, uint m_lo, uint m_hi, uint q,
                     SK* kr, V* vr, bool store)
{
    (void)lv; (void)vr;
#pragma unroll
    for (uint r = 0; r < RN; ++r) {
        const uint s = (r < RN / 2 ? lb_lo : lb_hi) + LPAD((r ^ (r < RN / 2 ? m_lo : m_hi)) << q);
        if (store) {
            lk[s] = kr[r];
#ifdef SORT_HAS_VALUES
            lv[s] = vr[r];
#endif
        } else {
            kr[r] = lk[s];
#ifdef SORT_HAS_VALUES
            vr[r] = lv[s];
#endif
        }
    }
}
#define CHUNK_LOAD(lb, q) chunk_io(lk, lv, (lb), (lb), 0, 0, (q), kr, vr, false)
#define CHUNK_STORE(lb, q) chunk_io(lk, lv, (lb), (lb), 0, 0, (q), kr, vr, true)

// Element i of the range as a sortable key, its value into *v; past n the largest sortable key,
// which never moves, and no value. elem_store writes back only inside [0, n).
inline SK elem_load(__global const K* keys, __global const V* vals, ulong n, ulong i, V* v)
{
    (void)vals; (void)v;
    if (i >= n) return SK_MAX;
#ifdef SORT_HAS_VALUES
    *v = vals[i];
#endif
    return load_sortable(keys, i);
}

inline void elem_store(__global K* keys, __global V* vals, ulong n, ulong i, SK k, V v)
{
    (void)vals; (void)v;
    if (i >= n) return;
    keys[i] = sortable_to_key(k);
#ifdef SORT_HAS_VALUES
    vals[i] = v;
#endif
}

// A tile of TILE consecutive elements from base into local memory and back, coalesced.
inline void tile_to_local(__global const K* keys, __global const V* vals, ulong n, ulong base, __local SK* lk,
                          __local V* lv)
{
    (void)vals; (void)lv;
    const uint u = get_local_id(0);
#pragma unroll
    for (uint j = 0; j < RN; ++j) {
        const uint l = u + j * WG;
        const ulong i = base + l;
        V v;
        lk[LPAD(l)] = elem_load(keys, vals, n, i, &v);
#ifdef SORT_HAS_VALUES
        lv[LPAD(l)] = v;
#endif
    }
}

inline void tile_from_local(__global K* keys, __global V* vals, ulong n, ulong base, __local const SK* lk,
                            __local const V* lv)
{
    (void)vals; (void)lv;
    const uint u = get_local_id(0);
#pragma unroll
    for (uint j = 0; j < RN; ++j) {
        const uint l = u + j * WG;
#ifdef SORT_HAS_VALUES
        const V v = lv[LPAD(l)];
#else
        const V v = 0;
#endif
        elem_store(keys, vals, n, base + l, lk[LPAD(l)], v);
    }
}

// The passes on local bits t .. 0 of the current stage, in chunks through local memory (the
// caller has stored its registers and passed a barrier).
inline void tile_low_chunks(__local SK* lk, __local V* lv, uint u, int t, SK* kr, V* vr)
{
#pragma unroll
    for (; t >= 0; t -= RB) {
        const int lo = max(0, t - RB + 1);
        const uint lb = LPAD(chunk_base(u, (uint)lo));
        CHUNK_LOAD(lb, (uint)lo);
        reg_passes(kr, vr, lo, t, lo);
        CHUNK_STORE(lb, (uint)lo);
        barrier(CLK_LOCAL_MEM_FENCE);
    }
}

// Tile sort: every stage k = 2 .. 2^TB of the network on each tile. Stages up to 2^RB run inside
// a work-item's RN consecutive elements; each later stage s takes its top RB bits on the mirror
// layout, then the bits below in ordinary chunks.
GROUP_KERNEL void bitonic_group_sort(__global K* keys, ulong koff, __global V* vals, ulong voff, ulong n,
                                 __local SK* lk, __local V* lv)
{
    keys += koff;
    vals += voff;
    const uint u = get_local_id(0);
    const ulong base = (ulong)get_group_id(0) * TILE;
    tile_to_local(keys, vals, n, base, lk, lv);
    barrier(CLK_LOCAL_MEM_FENCE);

    SK kr[RN];
    V vr[RN];
    {
        const uint lb = LPAD(chunk_base(u, 0));
        CHUNK_LOAD(lb, 0);
#pragma unroll
        for (uint s = 1; s <= RB; ++s) {
            const uint k = 1u << s;
#pragma unroll
            for (uint r = 0; r < RN; ++r) // mirror pass: r <-> r ^ (k - 1) inside each block of k
                if (!(r & (k >> 1))) CMPX(kr[r], kr[r ^ (k - 1)], vr[r], vr[r ^ (k - 1)]);
            reg_passes(kr, vr, 0, (int)s - 2, 0);
        }
        CHUNK_STORE(lb, 0);
        barrier(CLK_LOCAL_MEM_FENCE);
    }
#pragma unroll
    for (uint s = RB + 1; s <= TB; ++s) {
        const uint q = s - RB, b0 = chunk_base(u, q);
        const uint lb0 = LPAD(b0), lb1 = LPAD(b0 ^ ((1u << q) - 1)); // the mirror layout (chunk_io)
        chunk_io(lk, lv, lb0, lb1, 0, 0, q, kr, vr, false);
        reg_mirror(kr, vr);
        reg_passes(kr, vr, (int)q, (int)s - 2, (int)q);
        chunk_io(lk, lv, lb0, lb1, 0, 0, q, kr, vr, true);
        barrier(CLK_LOCAL_MEM_FENCE);
        tile_low_chunks(lk, lv, u, (int)q - 1, kr, vr);
    }
    tile_from_local(keys, vals, n, base, lk, lv);
}

// A stage's tail: the passes with distance < 2^TB of stage k > 2^TB (no mirror pass: the rows
// launches ran it). The first chunk (the top RB bits) reads straight from global memory: its
// work-items' bases are consecutive below bit TB - RB, so a warp reads runs of consecutive keys.
GROUP_KERNEL void bitonic_group_tail(__global K* keys, ulong koff, __global V* vals, ulong voff, ulong n,
                                 __local SK* lk, __local V* lv)
{
    keys += koff;
    vals += voff;
    const uint u = get_local_id(0);
    const ulong base = (ulong)get_group_id(0) * TILE;
    const uint q = TB - RB, b = chunk_base(u, q);
    SK kr[RN];
    V vr[RN];
#pragma unroll
    for (uint r = 0; r < RN; ++r) kr[r] = elem_load(keys, vals, n, base + b + (r << q), &vr[r]);
    reg_passes(kr, vr, (int)q, TB - 1, (int)q);
    CHUNK_STORE(LPAD(b), q);
    barrier(CLK_LOCAL_MEM_FENCE);
    tile_low_chunks(lk, lv, u, (int)q - 1, kr, vr);
    tile_from_local(keys, vals, n, base, lk, lv);
}

// Global index of a rows group's local element l: columns [0, C) stay, rows go to bits [a, a + M),
// the group's fixed bits fill the rest; with flip the upper half (local bit TB - 1) is mirrored.
inline ulong rows_global(uint l, ulong fixed, uint C, uint a, bool flip, ulong mmask)
{
    const ulong i = fixed | (l & ((1u << C) - 1)) | ((ulong)(l >> C) << a);
    return (flip && (l >> (TB - 1))) ? i ^ mmask : i;
}

// Rows launch with M row bits (C = TB - M column bits) of stage k, rows at index bits [a, a + M).
// flip: the launch holds the stage's top bit (a + M == s), so its first pass is the mirror pass:
// the group's upper half (local bit TB - 1 set) is then addressed mirrored, as in
// bitonic_global_m1: local l <-> i(l) ^ (k/2 - 1), which makes local l and l | 2^(TB-1) mirror
// partners; in that half a work-item holds its registers in reversed local order, so that its
// registers ascend in global index and every comparator is an ordinary one.
// Every chunk reads straight from global memory if it is the first and writes straight back if it
// is the last: its bases are consecutive below bit q >= C >= the coalescing width (BITONIC_COL_BITS),
// so a warp moves runs of consecutive columns.
inline void rows_body(__global K* keys, __global V* vals, ulong n, ulong k, uint a, const uint M,
                      __local SK* lk, __local V* lv)
{
    (void)lv;
    const uint C = TB - M;
    const uint u = get_local_id(0);
    const ulong g = get_group_id(0);
    const ulong fixed = ((g & ((1ul << (a - C)) - 1)) << C) | ((g >> (a - C)) << (a + M));
    const ulong mmask = (k >> 1) - 1; // the mirror flips these bits of the upper half
    const bool flip = (k >> (a + M)) == 1;
    SK kr[RN];
    V vr[RN];
    // Chunks from the top local bit down to C: [q, q + RB) with q = TB - RB first.
#pragma unroll
    for (int t = TB - 1; t >= (int)C; t -= RB) {
        const int lo = max((int)C, t - RB + 1);
        const uint q = (uint)min(lo, TB - RB);
        const bool first = t == TB - 1, last = lo == (int)C;
        const uint b = chunk_base(u, q);
        // Register r's local field is r ^ m_lo (lower registers) or r ^ m_hi (upper): reversed in
        // the mirrored half. First chunk: its top bit is local bit TB - 1, so with flip its upper
        // registers are that half (reversed below the top bit); later chunks: the whole work-item
        // is in one half (bit TB - 1 of b).
        const bool rev_all = !first && flip && ((b >> (TB - 1)) & 1);
        const uint m_lo = rev_all ? RN - 1 : 0, m_hi = first ? (flip ? RN / 2 - 1 : 0) : m_lo;
        // Global index of local l (natural, then mirrored in the upper half when flip is set).
#define ROWS_GLOBAL(r)                                                                              \
        rows_global(b | (((r) ^ ((r) < RN / 2 ? m_lo : m_hi)) << q), fixed, C, a, flip, mmask)
        if (first) {
#pragma unroll
            for (uint r = 0; r < RN; ++r) kr[r] = elem_load(keys, vals, n, ROWS_GLOBAL(r), &vr[r]);
        } else {
            chunk_io(lk, lv, LPAD(b), LPAD(b), m_lo, m_hi, q, kr, vr, false);
        }
        if (first && flip) {
            reg_mirror(kr, vr);
            reg_passes(kr, vr, (int)q, t - 1, lo);
        } else {
            reg_passes(kr, vr, (int)q, t, lo);
        }
        if (last) {
#pragma unroll
            for (uint r = 0; r < RN; ++r) elem_store(keys, vals, n, ROWS_GLOBAL(r), kr[r], vr[r]);
        } else {
            chunk_io(lk, lv, LPAD(b), LPAD(b), m_lo, m_hi, q, kr, vr, true);
            barrier(CLK_LOCAL_MEM_FENCE);
        }
#undef ROWS_GLOBAL
    }
}

#define BITONIC_ROWS_KERNEL(M)                                                                      \
    GROUP_KERNEL void bitonic_rows_m##M(__global K* keys, ulong koff, __global V* vals, ulong voff, ulong n, \
                                    ulong k, uint a, __local SK* lk, __local V* lv)                  \
    {                                                                                               \
        rows_body(keys + koff, vals + voff, n, k, a, M, lk, lv);                                    \
    }
// One kernel per row count M = 1 .. TB - BITONIC_COL_BITS (the host never asks for more).
#define ROWS_MAX (TB - BITONIC_COL_BITS)
#if ROWS_MAX >= 1
BITONIC_ROWS_KERNEL(1)
#endif
#if ROWS_MAX >= 2
BITONIC_ROWS_KERNEL(2)
#endif
#if ROWS_MAX >= 3
BITONIC_ROWS_KERNEL(3)
#endif
#if ROWS_MAX >= 4
BITONIC_ROWS_KERNEL(4)
#endif
#if ROWS_MAX >= 5
BITONIC_ROWS_KERNEL(5)
#endif
#if ROWS_MAX >= 6
BITONIC_ROWS_KERNEL(6)
#endif
#if ROWS_MAX >= 7
BITONIC_ROWS_KERNEL(7)
#endif
#if ROWS_MAX >= 8
BITONIC_ROWS_KERNEL(8)
#endif
#if ROWS_MAX >= 9
BITONIC_ROWS_KERNEL(9)
#endif
#if ROWS_MAX >= 10
BITONIC_ROWS_KERNEL(10)
#endif
#if ROWS_MAX >= 11
BITONIC_ROWS_KERNEL(11)
#endif
#if ROWS_MAX >= 12
BITONIC_ROWS_KERNEL(12)
#endif
#undef ROWS_MAX
#undef GROUP_KERNEL
#undef CHUNK_LOAD
#undef CHUNK_STORE
#undef LPAD
#undef WG
#undef TILE
#undef TB
#undef RN
#undef RB
