// The merge sort's tile sort, (1) of merge_sort.cl: joined after merge_sort.cl by the sort
// (merge_sort.cpp), which needs it; the public merge (merge.cpp, -DMERGE_TWO_RANGES) does not
// join it. Build macros: those of merge_sort.cl (K, V, SORT_HAS_VALUES, MERGE_ELEMS,
// MERGE_COMPARATOR), and MERGE_SORT_WG (optional: adds merge_tile_sort_wide). Uses merge_sort.cl's
// SK, SK_MAX, E, caller_to_sortable, co_rank_local and merge_serial.
#ifndef MERGE_ELEMS
#error "merge_sort_tile.cl needs MERGE_ELEMS"
#endif
#ifndef SK_MAX
#error "merge_sort_tile.cl needs merge_sort.cl joined before it"
#endif
#ifdef MERGE_TWO_RANGES
#error "merge_sort_tile.cl is the sort's: not built with MERGE_TWO_RANGES"
#endif
#define E MERGE_ELEMS // as in merge_sort.cl, which leaves it undefined after its rounds
// (1) Sorts each tile of wg * E keys (values by the final index, see above). lmem holds the keys
// (tile + 1, the serial merge's look-ahead slot), then the indices (tile, with values); later the
// values (tile), over both.
inline void tile_sort(__global const SK* in, ulong in_off, __global const V* vin, ulong vin_off,
                      __global SK* out, ulong out_off, __global V* vout, ulong vout_off, ulong n,
                      uint out_convert, __local ulong* lmem)
{
    (void)vin; (void)vout; (void)vin_off; (void)vout_off;
    in += in_off;
    out += out_off;
    const uint lid = get_local_id(0);
    const uint wg = get_local_size(0);
    const uint tile = wg * E;
    const ulong base = (ulong)get_group_id(0) * tile;
    const uint valid = (uint)min((ulong)tile, n - base); // padding from there on
    __local SK* lk = (__local SK*)lmem;
#ifdef SORT_HAS_VALUES
    vin += vin_off;
    vout += vout_off;
    // The indices right after the keys (and their look-ahead slot). After 8/16-bit keys that place
    // is rounded up to 4 bytes (a misaligned uint access faults on the H100); after wider keys it is
    // left exactly as it is: rounding it to 8 bytes made the H100's tile sort of uint pairs 35%
    // slower (1.23 -> 1.66 ms at 2^26; docs/RESULTS.md, "#26 before and after").
#if K_BITS >= 32
    __local uint* li = (__local uint*)(lk + tile + 1);
#else
    __local uint* li = (__local uint*)((__local uchar*)lmem + (((tile + 1) * sizeof(SK) + 3) & ~3u));
#endif
    __local V* lv = (__local V*)lmem;
#endif

    // Coalesced load (work-item lid reads lid, lid + wg, ...), converted to sortable bits.
#pragma unroll
    for (uint r = 0; r < E; ++r) {
        const uint l = lid + r * wg;
        const ulong i = base + l;
        lk[l] = i < n ? caller_to_sortable(in[i]) : SK_MAX;
    }
    barrier(CLK_LOCAL_MEM_FENCE);

    // Blocked into registers: E consecutive keys per work-item, sorted by E rounds of odd/even
    // neighbour exchange (ir: where each key sits in the tile, for the values).
    const uint o = lid * E;
    SK kr[E];
    uint ir[E];
#pragma unroll
    for (uint a = 0; a < E; ++a) {
        kr[a] = lk[o + a];
        ir[a] = o + a;
    }
#pragma unroll
    for (uint p = 0; p < E; ++p) {
#pragma unroll
        for (uint a = p & 1; a + 1 < E; a += 2) {
#ifdef MERGE_COMPARATOR
            if (ir[a + 1] < valid && (ir[a] >= valid || SK_LESS(kr[a + 1], kr[a]))) {
#else
            if (kr[a] > kr[a + 1]) {
#endif
                const SK t = kr[a]; kr[a] = kr[a + 1]; kr[a + 1] = t;
                const uint u = ir[a]; ir[a] = ir[a + 1]; ir[a + 1] = u;
            }
        }
    }

    // Runs of `span` work-items (span * E keys) merged pairwise, until one run fills the tile.
    for (uint span = 1; span < wg; span <<= 1) {
        barrier(CLK_LOCAL_MEM_FENCE); // the last pass's reads are done
#pragma unroll
        for (uint a = 0; a < E; ++a) {
            lk[o + a] = kr[a];
#ifdef SORT_HAS_VALUES
            li[o + a] = ir[a];
#endif
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        const uint L = span * E;
        const uint pair = (lid & ~(2 * span - 1)) * E;
        const uint d = o - pair;
        const uint took_a = co_rank_local(lk, pair, L, pair + L, L, d, valid);
        uint ix[E];
        merge_serial(lk, pair + took_a, pair + L, pair + L + d - took_a, pair + 2 * L, kr, ix, valid);
#ifdef SORT_HAS_VALUES
#pragma unroll
        for (uint a = 0; a < E; ++a) ir[a] = li[ix[a]];
#endif
    }

    // Back through local memory for coalesced stores.
    barrier(CLK_LOCAL_MEM_FENCE);
#pragma unroll
    for (uint a = 0; a < E; ++a) lk[o + a] = kr[a];
    barrier(CLK_LOCAL_MEM_FENCE);
#pragma unroll
    for (uint r = 0; r < E; ++r) {
        const uint l = lid + r * wg;
        const ulong i = base + l;
        if (i < n) out[i] = out_convert ? sortable_to_caller(lk[l]) : lk[l];
    }
#ifdef SORT_HAS_VALUES
    // The values, once: loaded coalesced, gathered by ir, stored coalesced.
    barrier(CLK_LOCAL_MEM_FENCE);
#pragma unroll
    for (uint r = 0; r < E; ++r) {
        const uint l = lid + r * wg;
        if (base + l < n) lv[l] = vin[base + l];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    V vr[E];
#pragma unroll
    for (uint a = 0; a < E; ++a) vr[a] = lv[ir[a]];
    barrier(CLK_LOCAL_MEM_FENCE);
#pragma unroll
    for (uint a = 0; a < E; ++a) lv[o + a] = vr[a];
    barrier(CLK_LOCAL_MEM_FENCE);
#pragma unroll
    for (uint r = 0; r < E; ++r) {
        const uint l = lid + r * wg;
        if (base + l < n) vout[base + l] = lv[l];
    }
#endif
}

#define TILE_SORT_PARAMS                                                                              \
    __global const SK* in, ulong in_off, __global const V* vin, ulong vin_off, __global SK* out,          \
    ulong out_off, __global V* vout, ulong vout_off, ulong n, uint out_convert, __local ulong4* lmem4
// (lmem declared as ulong4: a dynamic __local argument is aligned for its pointee type, and vector
// values of 16 and 32 bytes are staged from its start)
#define TILE_SORT_ARGS in, in_off, vin, vin_off, out, out_off, vout, vout_off, n, out_convert, (__local ulong*)lmem4

__kernel void merge_tile_sort(TILE_SORT_PARAMS) { tile_sort(TILE_SORT_ARGS); }

// The same with its work-group size declared (MERGE_SORT_WG, set by the host where its policy
// wants a tile sort wider than the rounds): declared, NVIDIA's compiler budgets registers for it,
// and the host launches it only at that size (after a probe where the driver's query says less).
#ifdef MERGE_SORT_WG
__kernel __attribute__((reqd_work_group_size(MERGE_SORT_WG, 1, 1))) void merge_tile_sort_wide(TILE_SORT_PARAMS)
{
    tile_sort(TILE_SORT_ARGS);
}
#endif
#undef E
