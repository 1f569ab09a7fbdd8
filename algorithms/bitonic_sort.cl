// Bitonic sorting network for any n. Joined after sort_key_order.cl; needs K (key type macros),
// V (value type macros), SORT_HAS_VALUES when values travel with the keys, BITONIC_ELEMS (elements
// per work-item of the transpose variant's tile kernel, a power of two >= 2); the fused variant's
// program instead BITONIC_REG_BITS, BITONIC_TILE_BITS and BITONIC_COL_BITS (log2 of the elements
// per work-item, per work-group, and of the columns a rows launch keeps consecutive).
// Kernels: bitonic_global_m1 (one pass per launch: the global variant, and the local variant's
// large distances), bitonic_local_pass (one pass whose distance fits a tile, in local memory: the
// local variant), bitonic_group_sort, bitonic_group_tail and bitonic_rows_m<M> (the fused variant:
// many passes per launch, registers + local memory), bitonic_tile + bitonic_transpose + bitonic_transposed_passes (the transpose variant,
// at the end of this file).
//
// We use the "flip" form of the network: in stage k (block size k = 2, 4, ..., N) the first pass
// compares i with its mirror i ^ (k - 1), the later passes compare i with i ^ j (j = k/4 ... 1), and
// every comparator puts the smaller key at the lower index. Because no comparator ever sorts
// downwards, indices >= n behave as +inf that never move: comparators reaching past n are simply
// skipped (or padded with the largest sortable value, which strict comparisons never displace), so
// nothing outside [0, n) of the caller's range is read or written.
//
// Keys are compared through key_to_sortable (unsigned compare; floats by total order, descending by
// inverted bits), so the network is a correct sort for NaN and -0.0 too.

#define SK K_UNSIGNED
#if K_BITS == 32
#define SK_MAX 0xffffffffu
#else
#define SK_MAX 0xfffffffffffffffful
#endif

inline SK load_sortable(__global const K* keys, ulong i) { return key_to_sortable(keys[i]); }

// Compare-exchange of two registers: the smaller sortable key goes to a.
#ifdef SORT_HAS_VALUES
#define CMPX(ka, kb, va, vb)                                                                        \
    do {                                                                                            \
        if ((ka) > (kb)) {                                                                          \
            SK tk_ = (ka); (ka) = (kb); (kb) = tk_;                                                 \
            V tv_ = (va); (va) = (vb); (vb) = tv_;                                                  \
        }                                                                                           \
    } while (0)
#else
#define CMPX(ka, kb, va, vb)                                                                        \
    do {                                                                                            \
        if ((ka) > (kb)) { SK tk_ = (ka); (ka) = (kb); (kb) = tk_; }                                \
    } while (0)
#endif

// Two programs come from this file: with BITONIC_REG_BITS the fused variant's (its group kernels only),
// without it the other variants' (everything else): each build compiles only what it runs.
#ifndef BITONIC_REG_BITS

// ---------------------------------------------------------------------------------------------
// Global passes. Each work-item owns 2^M elements whose indices differ in the M distance bits
// j, j/2, ..., j >> (M-1), loads them into
// registers, runs M consecutive passes of stage k and stores them: M passes for one read and one
// write of the data. With M = 1 this is the textbook kernel (one comparator per work-item).
// When flip is set the first pass is stage k's mirror pass (j == k/2): the upper half of the group
// is then addressed mirrored, so the mirror partner of element t is element t + 2^(M-1), and the
// later passes run in reverse index order there.
// ---------------------------------------------------------------------------------------------
#define BITONIC_GLOBAL_KERNEL(M)                                                                    \
__kernel void bitonic_global_m##M(__global K* keys, ulong koff, __global V* vals, ulong voff,      \
                                  ulong n, ulong k, ulong j, uint flip, ulong groups)               \
{                                                                                                   \
    keys += koff;                                                                                   \
    vals += voff;                                                                                   \
    const ulong g = get_global_id(0);                                                               \
    if (g >= groups) return;                                                                        \
    const uint cnt = 1u << M;                                                                       \
    const ulong lo_dist = j >> (M - 1);                                                             \
    /* insert M zero bits at the distance bits */                                                   \
    const ulong base = ((g & ~(lo_dist - 1)) << M) | (g & (lo_dist - 1));                          \
    ulong idx[1 << M];                                                                              \
    SK kr[1 << M];                                                                                  \
    V vr[1 << M];                                                                                   \
    _Pragma("unroll")                                                                               \
    for (uint t = 0; t < cnt; ++t) {                                                                \
        ulong i = base | ((ulong)t * lo_dist);                                                      \
        if (flip && (t >> (M - 1))) i ^= (k >> 1) - 1;                                              \
        idx[t] = i;                                                                                 \
        kr[t] = i < n ? load_sortable(keys, i) : SK_MAX;                                            \
        V_LOAD(vr[t], i);                                                                           \
    }                                                                                               \
    _Pragma("unroll")                                                                               \
    for (uint s = 0; s < M; ++s) {                                                                  \
        const uint d = 1u << (M - 1 - s);                                                           \
        _Pragma("unroll")                                                                           \
        for (uint t = 0; t < cnt; ++t) {                                                            \
            if (t & d) continue;                                                                    \
            const uint u = t | d;                                                                   \
            /* mirrored upper half: the higher register holds the lower index */                   \
            if (flip && s > 0 && (t >> (M - 1))) CMPX(kr[u], kr[t], vr[u], vr[t]);                  \
            else CMPX(kr[t], kr[u], vr[t], vr[u]);                                                  \
        }                                                                                           \
    }                                                                                               \
    _Pragma("unroll")                                                                               \
    for (uint t = 0; t < cnt; ++t) {                                                                \
        if (idx[t] < n) {                                                                           \
            keys[idx[t]] = sortable_to_key(kr[t]);                                                  \
            V_STORE(vr[t], idx[t]);                                                                 \
        }                                                                                           \
    }                                                                                               \
}

#ifdef SORT_HAS_VALUES
#define V_LOAD(dst, i) do { if ((i) < n) (dst) = vals[i]; } while (0)
#define V_STORE(src, i) vals[i] = (src)
#else
#define V_LOAD(dst, i) (dst) = (V)0
#define V_STORE(src, i) do { } while (0)
#endif

// Only M = 1 is instantiated (the textbook kernel); the fused variant's kernels below go
// further: 2^m rows of a work-group's columns instead of 2^M elements of one work-item.
BITONIC_GLOBAL_KERNEL(1)

// ---------------------------------------------------------------------------------------------
// Local-memory helpers of the tile kernels. A tile is `count` consecutive elements from base,
// held as sortable keys; indices >= n become +inf (the largest sortable value) and are never
// written back. Work-item lid moves elements lid, lid + wg, ...: coalesced.
// ---------------------------------------------------------------------------------------------
inline void tile_load(__global const K* keys, __global const V* vals, ulong n, ulong base, uint count,
                      __local SK* lk, __local V* lv)
{
    (void)vals; (void)lv;
    const uint lid = get_local_id(0), wg = get_local_size(0);
    for (uint l = lid; l < count; l += wg) {
        const ulong i = base + l;
        lk[l] = i < n ? load_sortable(keys, i) : SK_MAX;
#ifdef SORT_HAS_VALUES
        if (i < n) lv[l] = vals[i];
#endif
    }
}

inline void tile_store(__global K* keys, __global V* vals, ulong n, ulong base, uint count,
                       __local const SK* lk, __local const V* lv)
{
    (void)vals; (void)lv;
    const uint lid = get_local_id(0), wg = get_local_size(0);
    for (uint l = lid; l < count; l += wg) {
        const ulong i = base + l;
        if (i < n) {
            keys[i] = sortable_to_key(lk[l]);
#ifdef SORT_HAS_VALUES
            vals[i] = lv[l];
#endif
        }
    }
}

// Compare-exchange of local elements i < p: the smaller sortable key goes to i.
inline void local_cmpx(__local SK* lk, __local V* lv, uint i, uint p)
{
    (void)lv;
    const SK a = lk[i], b = lk[p];
    if (a > b) {
        lk[i] = b;
        lk[p] = a;
#ifdef SORT_HAS_VALUES
        const V t = lv[i]; lv[i] = lv[p]; lv[p] = t;
#endif
    }
}

// ---------------------------------------------------------------------------------------------
// One pass in local memory (the local variant): a work-group loads its tile of 2 x local size
// consecutive elements, runs the single pass of stage k with distance j < tile (the mirror pass
// i <-> i ^ (k - 1) when j == k/2, else i <-> i + j), one comparator per work-item, and writes the
// tile back. Both elements of every comparator lie in the tile (j < tile, and a mirror pass has
// k <= tile). Indices >= n are +inf in local memory and never written.
// ---------------------------------------------------------------------------------------------
__kernel void bitonic_local_pass(__global K* keys, ulong koff, __global V* vals, ulong voff, ulong n,
                                 ulong k, ulong j, __local SK* lk, __local V* lv)
{
    keys += koff;
    vals += voff;
    (void)lv;
    const uint lid = get_local_id(0);
    const uint wg = get_local_size(0);
    const ulong base = (ulong)get_group_id(0) * (2 * wg);

    tile_load(keys, vals, n, base, 2 * wg, lk, lv);
    barrier(CLK_LOCAL_MEM_FENCE);
    const uint d = (uint)j;
    const uint i = ((lid & ~(d - 1)) << 1) | (lid & (d - 1));
    local_cmpx(lk, lv, i, j * 2 == k ? (i ^ (uint)(k - 1)) : (i | d));
    barrier(CLK_LOCAL_MEM_FENCE);
    tile_store(keys, vals, n, base, 2 * wg, lk, lv);
}

// ---------------------------------------------------------------------------------------------
// Tile kernel (the fused variant): a work-group holds a tile of T = local size * BITONIC_ELEMS
// consecutive elements in local memory and runs stages k_lo..k_hi on it. For a stage k <= T that
// is the whole stage; for k > T only its passes with distance < T (the host ran the larger ones
// with the global kernels).
// Passes with distance >= BITONIC_ELEMS run in local memory (one comparator per work-item per
// round, barrier after each pass); the last log2(BITONIC_ELEMS) passes of a stage only pair
// elements inside aligned blocks of BITONIC_ELEMS, so each work-item runs them in registers on its
// own block, without barriers.
// ---------------------------------------------------------------------------------------------
#define E BITONIC_ELEMS

// Passes of stage k with distance < E on one block of E registers (k may be <= E: then the first
// of them is the mirror pass).
inline void bitonic_block_passes(SK* kr, V* vr, ulong k)
{
    (void)vr;
#pragma unroll
    for (uint j = E / 2; j > 0; j >>= 1) {
        if ((ulong)j * 2 > k) continue;
        const bool mirror = (ulong)j * 2 == k;
#pragma unroll
        for (uint a = 0; a < E; ++a) {
            if (a & j) continue;
            if (mirror) CMPX(kr[a], kr[a ^ (2 * j - 1)], vr[a], vr[a ^ (2 * j - 1)]);
            else CMPX(kr[a], kr[a | j], vr[a], vr[a | j]);
        }
    }
}

__kernel void bitonic_tile(__global K* keys, ulong koff, __global V* vals, ulong voff, ulong n,
                           ulong k_lo, ulong k_hi, __local SK* lk, __local V* lv)
{
    keys += koff;
    vals += voff;
    (void)lv;
    const uint lid = get_local_id(0);
    const uint wg = get_local_size(0);
    const uint tile = wg * E;
    const ulong base = (ulong)get_group_id(0) * tile;

    tile_load(keys, vals, n, base, tile, lk, lv);
    barrier(CLK_LOCAL_MEM_FENCE);

    SK kr[E];
    V vr[E];
    for (ulong k = k_lo; k <= k_hi; k <<= 1) {
        // Passes with distance E..tile/2 in local memory; the first is the mirror pass if the
        // whole stage fits the tile.
        ulong j = k <= tile ? k >> 1 : tile >> 1;
        for (; j >= E; j >>= 1) {
            const bool mirror = j * 2 == k;
            for (uint c = lid; c < tile / 2; c += wg) {
                const uint i = ((c & ~(uint)(j - 1)) << 1) | (c & (uint)(j - 1));
                local_cmpx(lk, lv, i, mirror ? (i ^ (uint)(k - 1)) : (i | (uint)j));
            }
            barrier(CLK_LOCAL_MEM_FENCE);
        }
        // The remaining passes inside this work-item's block of E.
#pragma unroll
        for (uint a = 0; a < E; ++a) {
            kr[a] = lk[lid * E + a];
#ifdef SORT_HAS_VALUES
            vr[a] = lv[lid * E + a];
#endif
        }
        bitonic_block_passes(kr, vr, k);
#pragma unroll
        for (uint a = 0; a < E; ++a) {
            lk[lid * E + a] = kr[a];
#ifdef SORT_HAS_VALUES
            lv[lid * E + a] = vr[a];
#endif
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }

    tile_store(keys, vals, n, base, tile, lk, lv);
}
#undef E

#endif // !BITONIC_REG_BITS

#ifdef BITONIC_REG_BITS
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

#endif // BITONIC_REG_BITS

#ifndef BITONIC_REG_BITS
// ---------------------------------------------------------------------------------------------
// The transpose variant (the matrix formulation of the bitonic sort). View the padded range of
// N = 2^B elements as a matrix of rows of R = 2^L elements (R = the tile of bitonic_tile, which
// fits a work-group's local memory). Every pass of a stage whose distance is below R pairs
// elements of one row, so it runs in local memory (bitonic_tile). A distance of R or more pairs
// elements of different rows: instead of one sweep over global memory per such distance (the
// global variant), the host transposes the matrix so that those distance bits become column
// bits, runs all of them as in-row passes in local memory (bitonic_transposed_passes), and
// transposes back. The trade: two extra sweeps (out and back) per transposed stage, against
// one global sweep per row-spanning distance; the transposes themselves are tiled through local
// memory so that both their reads and their writes are coalesced.
//
// In index terms a "transpose" swaps the bit field [lo, lo + w) of the index (w row-spanning
// distance bits, lo >= L >= w) with the field [0, w): for fixed other bits the elements form a
// 2^w x 2^w matrix with row stride 2^lo, and that matrix is transposed. A stage k = 2^s with more
// than L row-spanning distance bits takes two (or more) transposes of up to L bits each.
//
// The flip form's first pass of stage k pairs i with i ^ (k - 1), which flips every bit below
// s, so a transpose alone would not make it an in-row pair. The transposed layout therefore also
// reflects the upper half of every k-block (i ^ (k/2 - 1) when bit s-1 of i is set): the mirror
// partner then differs from i in bit s-1 only, and the later passes (i ^ j, j < k/2) are
// unchanged pairs. Each comparator in the transposed layout puts the smaller key at whichever
// position holds the lower original index: exactly the comparator of the network.
//
// Padding: the transposed layout lives in a scratch buffer of N elements; positions whose
// original index is >= n hold the largest sortable value there (they never move, as in the
// other variants) and are never written back to the caller's range.
// ---------------------------------------------------------------------------------------------

// Swaps the bit fields [0, w) and [lo, lo + w) of v (lo >= w): the transpose of index bits.
inline ulong swap_fields(ulong v, uint lo, uint w)
{
    const ulong t = ((v >> lo) ^ v) & ((1ul << w) - 1);
    return v ^ t ^ (t << lo);
}

// Reflects the upper half of each block of 2^s elements (an involution).
inline ulong reflect_upper(ulong i, uint s)
{
    const ulong upper = 1ul << (s - 1);
    return (i & upper) ? i ^ (upper - 1) : i;
}

inline ulong to_transposed(ulong i, uint s, uint lo, uint w) { return swap_fields(reflect_upper(i, s), lo, w); }
inline ulong from_transposed(ulong q, uint s, uint lo, uint w) { return reflect_upper(swap_fields(q, lo, w), s); }

// Tiled transpose between the caller's range and the scratch layout (back = 0: caller -> scratch,
// back = 1: scratch -> caller). A work-group moves one tile of 2^(c + a) elements: those whose
// source index has free bits [0, c) (the source's contiguous run) and [lo, lo + a) (a <= c, a <= w;
// after the swap these become the destination's contiguous run [0, c)). The tile is read in
// source order and written in destination order through local memory, at padded positions
// (TPAD: one slot per 32) so that the column-wise reads of the second phase hit distinct banks.
#define TPAD(l) ((l) + ((l) >> 5))
__kernel void bitonic_transpose(__global K* keys, ulong koff, __global V* vals, ulong voff, ulong n,
                                __global SK* sk, __global V* sv, uint s, uint lo, uint w, uint c, uint a,
                                uint back, __local SK* lk, __local V* lv)
{
    keys += koff;
    vals += voff;
    (void)vals; (void)sv; (void)lv;
    const uint lid = get_local_id(0), wg = get_local_size(0);
    const uint count = 1u << (c + a);
    const ulong g = get_group_id(0);
    // The tile's fixed source bits: the group id deposited into bits [c, lo) and [lo + a, B).
    const ulong fixed = ((g & ((1ul << (lo - c)) - 1)) << c) | ((g >> (lo - c)) << (lo + a));
    const uint cmask = (1u << c) - 1, amask = (1u << a) - 1;

    // Source order: local index l = y << c | (bits [0, c) of the source index); y = bits [lo, lo + a).
    for (uint l = lid; l < count; l += wg) {
        const ulong src = fixed | ((ulong)(l >> c) << lo) | (l & cmask);
        if (back) {
            lk[TPAD(l)] = sk[src];
#ifdef SORT_HAS_VALUES
            lv[TPAD(l)] = sv[src];
#endif
        } else {
            lk[TPAD(l)] = src < n ? load_sortable(keys, src) : SK_MAX;
#ifdef SORT_HAS_VALUES
            lv[TPAD(l)] = src < n ? vals[src] : (V)0;
#endif
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    // Destination order: m = x << c | z << a | y, where the source's bits [0, c) are z << a | x.
    for (uint m = lid; m < count; m += wg) {
        const uint y = m & amask, z = (m & cmask) >> a, x = m >> c;
        const uint l = (y << c) | (z << a) | x;
        const ulong src = fixed | ((ulong)y << lo) | (l & cmask);
        if (back) {
            const ulong dst = from_transposed(src, s, lo, w);
            if (dst < n) {
                keys[dst] = sortable_to_key(lk[TPAD(l)]);
#ifdef SORT_HAS_VALUES
                vals[dst] = lv[TPAD(l)];
#endif
            }
        } else {
            const ulong dst = to_transposed(src, s, lo, w);
            sk[dst] = lk[TPAD(l)];
#ifdef SORT_HAS_VALUES
            sv[dst] = lv[TPAD(l)];
#endif
        }
    }
}
#undef TPAD

// The row-spanning passes of stage 2^s with distances 2^(lo + w - 1) ... 2^lo (the first of them
// the mirror pass when lo + w == s), run on the transposed layout, where they are the in-row
// distances 2^(w-1) ... 1: a work-group loads one row of R = `row` elements (the tile of
// bitonic_tile), runs the w passes in local memory (barrier after each) and stores the row.
__kernel void bitonic_transposed_passes(__global SK* sk, __global V* sv, uint row, uint s, uint lo, uint w,
                                        __local SK* lk, __local V* lv)
{
    (void)sv; (void)lv;
    const uint lid = get_local_id(0), wg = get_local_size(0);
    const ulong base = (ulong)get_group_id(0) * row;
    for (uint l = lid; l < row; l += wg) {
        lk[l] = sk[base + l];
#ifdef SORT_HAS_VALUES
        lv[l] = sv[base + l];
#endif
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int t = (int)w - 1; t >= 0; --t) {
        const uint d = 1u << t;
        for (uint c = lid; c < row / 2; c += wg) {
            const uint p = ((c & ~(d - 1)) << 1) | (c & (d - 1)), q = p | d;
            // The smaller key goes to the position of the lower original index.
            if (from_transposed(base + p, s, lo, w) < from_transposed(base + q, s, lo, w)) local_cmpx(lk, lv, p, q);
            else local_cmpx(lk, lv, q, p);
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    for (uint l = lid; l < row; l += wg) {
        sk[base + l] = lk[l];
#ifdef SORT_HAS_VALUES
        sv[base + l] = lv[l];
#endif
    }
}

#endif // !BITONIC_REG_BITS
