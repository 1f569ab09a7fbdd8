// Bitonic sorting network for any n: the global, local and transpose variants (the fused variant
// is bitonic_fused.cl). Joined after sort_key_order.cl and bitonic_common.cl (the key and value
// macros, SK, CMPX); needs BITONIC_ELEMS (elements per work-item of the transpose variant's tile
// kernel, a power of two >= 2).
// Kernels: bitonic_global_m1 (one pass per launch: the global variant, and the local variant's
// large distances), bitonic_local_pass (one pass whose distance fits a tile, in local memory: the
// local variant), bitonic_tile + bitonic_transpose + bitonic_transposed_passes (the transpose
// variant, at the end of this file).
#ifndef BITONIC_ELEMS
#error "bitonic_sort.cl needs BITONIC_ELEMS"
#endif
#ifdef BITONIC_REG_BITS
#error "bitonic_sort.cl is not the fused program: build bitonic_fused.cl with BITONIC_REG_BITS"
#endif


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
