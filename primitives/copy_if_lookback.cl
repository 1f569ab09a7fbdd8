// Single-pass copy_if (stream compaction in one launch): every element is read once and every kept
// one written once. The three-pass copy_if of copy_if.cl reads the input twice (count, then
// scatter) and launches three times; here a tile learns where its output starts from the tiles
// before it by the decoupled look-back (lookback.cl) over their counts of kept elements.
//
// Per tile (one work-group, CPY_ITEMS elements per work-item, numbered in the order the groups
// start, or by group id with CPY_GROUP_ORDER):
//   1. load the tile coalesced, evaluate the predicate once per element;
//   2. rank the kept elements within the tile and get the tile's total: either the tile staged
//      in local memory, each work-item taking CPY_ITEMS consecutive elements and a work-group
//      scan of their counts (warp shuffles on NVIDIA, CPY_SHFL), or by rows (CPY_COMPACT=2):
//      registers straight from the coalesced loads, a warp vote per row of 32, a scan of the
//      warps' counts per row;
//   3. publish the total at once, so that successors wait on nothing more;
//   4. compact the kept elements within local memory: values moved down in place
//      (CPY_COMPACT=1), positions (CPY_COMPACT=0, gathered in the store), or each value written
//      once to its place (by rows);
//   5. look back over the earlier tiles' counts (with the decoupled fallback: a stalled
//      predecessor's count is recomputed from its input): the work-group's window
//      (scan_window_lookback.cl) or one warp's walk (CPY_WARP_LOOKBACK); publish the inclusive
//      count;
//   6. one contiguous store of the kept elements from the tile's output start: coalesced,
//      whatever was kept;
//   7. the last tile writes the total count (the host reads it, or it stays on the device).
//
// Required: T (type_options), CLPRIM_PRED(x) (a generated predicate, operator_source.hpp) or
// CPY_UNIQUE (keep the first element of every run of equal bits: clprim::unique; T_UNSIGNED),
// CPY_ITEMS (1..32: one mask bit per element), and workgroup_scan.cl (wg_exclusive_scan_uint),
// lookback.cl, scan_window_lookback.cl and copy_if_tile.cl (the kernel's pieces) joined before
// this file. Optional (the host's copy_if_policy.hpp picks them): CPY_COMPACT (0 gather through
// positions, 1 in place, 2 by rows with warp votes: work-groups a multiple of 32, portable but
// slow without CPY_SHFL; default 0), CPY_VEC (elements per 16-byte load, 1 for none; CPY_ITEMS a
// multiple of it), CPY_SHFL (NVIDIA only, work-groups a multiple of 32: warp shuffles and votes,
// PTX), CPY_GROUP_ORDER (1: tile index = group id instead of the start-order counter),
// CPY_WARP_LOOKBACK (NVIDIA, with CPY_SHFL: the look-back walked by one warp), CPY_WALK_READS
// (the warp walk's slots per lane per round: 1, 2 or 4; default 1), CPY_EARLY_WALK
// (measurements), CPY_PARTITION (partition_copy: the elements not kept go to out2, in order,
// after the others of the tiles before), CPY_PARTITION_IN_PLACE (with CPY_PARTITION, one tile:
// stable_partition in place, the others right after the kept ones), CPY_UNIQUE_PREV and
// CPY_LOAD_HINT (copy_if_tile.cl).
#ifndef T
#error "copy_if_lookback.cl needs T"
#endif
#if !defined(CLPRIM_PRED) && !defined(CPY_UNIQUE)
#error "copy_if_lookback.cl needs CLPRIM_PRED (a generated predicate source joined in front) or CPY_UNIQUE"
#endif
#ifndef CPY_ITEMS
#error "copy_if_lookback.cl needs CPY_ITEMS"
#endif
#if CPY_ITEMS > 32
#error "copy_if_lookback.cl: CPY_ITEMS is at most 32 (one mask bit per element)"
#endif
#ifndef WG_SCAN_SCRATCH
#error "copy_if_lookback.cl needs workgroup_scan.cl joined before it"
#endif
#ifndef LB_WINDOW_LOOK_BACK_DEFINE
#error "copy_if_lookback.cl needs lookback.cl and scan_window_lookback.cl joined before it"
#endif
#ifndef CPY1_PAD
#error "copy_if_lookback.cl needs copy_if_tile.cl joined before it"
#endif
// CPY_EARLY_WALK=1 (by rows with the warp look-back; measurements): warp 0 walks back before its
// part of the compaction, overlapping the walk's round trips with the other warps' compaction,
// at the price of holding its row values through the walk (more registers).
#ifndef CPY_EARLY_WALK
#define CPY_EARLY_WALK 0
#endif
#if CPY_EARLY_WALK && !(CPY_COMPACT == 2 && defined(CPY_WARP_LOOKBACK)) // (only there)
#undef CPY_EARLY_WALK
#define CPY_EARLY_WALK 0
#endif

// By rows, loops whose body votes or exchanges between lanes: unrolled with NVIDIA's warp
// instructions; elsewhere (the portable stand-ins: barriers in every step) kept as loops, which
// compile far faster on CPU devices (tests).
#ifdef CPY_SHFL
#define CPY_ROWS_UNROLL _Pragma("unroll")
#else
#define CPY_ROWS_UNROLL _Pragma("unroll 1")
#endif

// One work-group per tile of CPY_ITEMS * local size elements, numbered in the order the groups
// start (status[0] counts them; the tile that takes the last index sets it back to zero for the
// next launch), then one 64-bit slot per tile tagged with this launch's epoch. Kept elements go
// to out[out_off + k] for k < capacity (writes past the caller's room are dropped: the host
// reports that), the count to count_out[count_off]. The tile stays in local memory from load to
// store, so no work-item holds element values in registers across the look-back (fewer
// registers, more work-groups per compute unit to hide the look-back's wait). The tile's count is
// published as soon as the tile scan has it, before the compaction, so successors never wait on
// more than the load, the predicate and the scan. Two compactions (CPY_COMPACT):
//   0 (gather): the kept elements' tile positions (idx, ushort, tile_n <= 65536) are compacted,
//     the store gathers the values through them;
//   1 (in place): the kept values themselves move down within the tile memory (every one to a
//     slot at or before its own, read before any is written), the store copies a contiguous run;
//     no idx array: about a third less local memory per work-group, so more groups per compute
//     unit.
__kernel void copy_if_single_pass(__global const T* in, ulong in_off, ulong n, __global T* out, ulong out_off,
                                  ulong capacity, __global T* out2, ulong out2_off, ulong capacity2,
                                  __global ulong* count_out, ulong count_off,
                                  __global volatile ulong* status, uint epoch, __local T* tile,
                                  __local uint* scratch, __local ushort* idx)
{
    __local uint tile_id;
    __local uint lb_flag[LB_WINDOW], lb_val[LB_WINDOW], lb_state[4], lb_acc;
    const uint lid = (uint)get_local_id(0);
    const uint wg = (uint)get_local_size(0);
    const uint tile_n = wg * CPY_ITEMS;
#if CPY_GROUP_ORDER
    // Tiles by group id: no counter, the loads start at once. Correct under any scheduling only
    // because of the decoupled fallback (a tile that waits on one not yet run counts it itself).
    const uint t = (uint)get_group_id(0);
#else
    const uint t = cpy_take_tile_index(status, &tile_id);
#endif
    const ulong base = (ulong)t * tile_n;
    const uint count = (uint)min((ulong)tile_n, n - base);
    __global const T* src = in + in_off + base;

    __global volatile ulong* slots = status + 1;
    uint total;
#if CPY_COMPACT == 2
    // 1-4 by rows (CPY_COMPACT=2): work-item lid holds elements j * wg + lid (coalesced loads
    // straight into registers, no staging), so row j of a warp is 32 consecutive elements. A warp
    // vote per row ranks the kept elements within the warp's part of the row; the warps' counts,
    // table[j * warps + w], scanned in tile order give each part's start; the kept values go
    // straight to their places in local memory (consecutive lanes, consecutive slots), the tile's
    // first `total` slots. Local memory holds only the compacted elements; each element is
    // loaded once and the predicate evaluated once.
    {
        const uint lane = lid & 31u, warp = lid >> 5, warps = wg >> 5;
        const uint before_lane = (1u << lane) - 1u;
        __local uint* table = scratch + WG_SCAN_SCRATCH(wg); // CPY_ITEMS * warps counts
        __local uint* words = table + CPY_ITEMS * warps;      // the portable ballot's words
#if CPY_VEC > 1
        // Work-item lid holds the CPY_VEC-element vectors j * wg + lid (CPY_VEC 1: elements): a
        // row of a warp is 32 x CPY_VEC consecutive elements. Full tiles on a 16-byte boundary
        // load whole vectors; otherwise element by element, and past the end a work-item loads the
        // tile's last element again (always in range, count >= 1) and takes none. Element k of
        // vector j is mask bit j * CPY_VEC + k.
        CPY_RT r[CPY_RROWS];
        uint mask = 0;
        if (count == tile_n && (in_off + base) % CPY_VEC == 0) { // alike in every full tile of a launch
            #pragma unroll
            for (uint j = 0; j < CPY_RROWS; ++j) r[j] = ((__global const CPY_RT*)src)[j * wg + lid];
        } else {
            #pragma unroll
            for (uint j = 0; j < CPY_RROWS; ++j) r[j] = cpy_rload(src, (j * wg + lid) * CPY_VEC, count - 1u);
        }
        #pragma unroll
        for (uint j = 0; j < CPY_RROWS; ++j)
            #pragma unroll
            for (uint k = 0; k < CPY_VEC; ++k)
                mask |= ((j * wg + lid) * CPY_VEC + k < count && CPY_KEEP(CPY_RGET(r[j], k), src, base, (j * wg + lid) * CPY_VEC + k) ? 1u : 0u)
                        << (j * CPY_VEC + k);
        #pragma unroll
        for (uint j = 0; j < CPY_RROWS; ++j) {
            uint before_me, in_warp;
            cpy_rank_row(cpy_row_count(mask, j), before_lane, words, &before_me, &in_warp);
            if (lane == 0) table[j * warps + warp] = in_warp;
        }
#else
        // One path for full and partial tiles: past the end a work-item loads the tile's last
        // element again (always in range, count >= 1) and takes none.
        T r[CPY_ITEMS];
        uint mask = 0;
#if CPY_FULL_FAST
        if (count == tile_n) { // measurements: full tiles without the clamp
            #pragma unroll
            for (uint j = 0; j < CPY_ITEMS; ++j) r[j] = cpy_ld(src + j * wg + lid);
        } else {
            #pragma unroll
            for (uint j = 0; j < CPY_ITEMS; ++j) r[j] = cpy_ld(src + min(j * wg + lid, count - 1u));
        }
#else
        #pragma unroll
        for (uint j = 0; j < CPY_ITEMS; ++j) r[j] = cpy_ld(src + min(j * wg + lid, count - 1u));
#endif
        CPY_ROWS_UNROLL
        for (uint j = 0; j < CPY_ITEMS; ++j) {
#if defined(CPY_UNIQUE) && CPY_UNIQUE_PREV
            // unique: the element before j * wg + lid is the previous lane's register j (a
            // shuffle); lane 0 reads it from memory (the previous warp's, row's or tile's last).
            const uint i = j * wg + lid;
            ulong prev = cpy_lane_prev(CPY_BITS(r[j]), scratch);
            if (lane == 0 && base + min(i, count - 1u) != 0) prev = CPY_BITS(src[(long)min(i, count - 1u) - 1]);
            mask |= (i < count && (base + i == 0 || (ulong)CPY_BITS(r[j]) != prev) ? 1u : 0u) << j;
#else
            mask |= (j * wg + lid < count && CPY_KEEP(r[j], src, base, j * wg + lid) ? 1u : 0u) << j;
#endif
        }
        CPY_ROWS_UNROLL
        for (uint j = 0; j < CPY_ITEMS; ++j) {
            const uint b = cpy_row_ballot((mask >> j) & 1u, words);
            if (lane == 0) table[j * warps + warp] = popcount(b);
        }
#endif
        barrier(CLK_LOCAL_MEM_FENCE);
        const uint parts = CPY_RROWS * warps; // at most wg (CPY_ITEMS <= 32)
        const uint part = lid < parts ? table[lid] : 0u;
        const uint start = cpy_exclusive_scan(part, scratch, &total);
        if (lid < parts) table[lid] = start;
        if (lid == 0 && get_num_groups(0) > 1) lb64_publish(slots + t, epoch, t == 0 ? LB_PREFIX : LB_AGGREGATE, total);
#if CPY_EARLY_WALK
        cpy_walk_init(t, lb_state);
#endif
        barrier(CLK_LOCAL_MEM_FENCE);
#if CPY_EARLY_WALK
        // Warp 0 starts the look-back now: its round trips to L2 overlap the other warps'
        // compaction (warp 0 compacts its part after).
        if (lid < 32u && !lb_state[2] && !lb_state[3]) cpy_warp_walk(slots, epoch, lb_state);
#endif
#ifdef CPY_SHFL
        // Lane j holds its warp's start in row j, handed round by a shuffle per row (a load of
        // the table per row would be hoisted: a register per row).
        const uint mine = lane < CPY_RROWS ? table[lane * warps + warp] : 0u;
#else
        const uint mine = 0;
#endif
#ifdef CPY_PARTITION
        const uint in_rows = count > lid ? (count - lid + wg - 1u) / wg : 0u; // rows j with j * wg + lid < count
#endif
#if CPY_VEC > 1
        #pragma unroll
        for (uint j = 0; j < CPY_RROWS; ++j) {
            uint before_me, in_warp;
            cpy_rank_row(cpy_row_count(mask, j), before_lane, words, &before_me, &in_warp);
            const uint row_start = cpy_row_start(mine, j, table, warps, warp);
            uint d = row_start + before_me; // kept elements before this one in the tile
            #pragma unroll
            for (uint k = 0; k < CPY_VEC; ++k) {
                if ((mask >> (j * CPY_VEC + k)) & 1u) tile[d++] = CPY_RGET(r[j], k);
#ifdef CPY_PARTITION
                else if ((j * wg + lid) * CPY_VEC + k < count) tile[total + (j * wg + lid) * CPY_VEC + k - d] = CPY_RGET(r[j], k);
#endif
            }
        }
#else
        CPY_ROWS_UNROLL
        for (uint j = 0; j < CPY_ITEMS; ++j) {
            const uint f = (mask >> j) & 1u;
            const uint b = cpy_row_ballot(f, words);
            const uint row_start = cpy_row_start(mine, j, table, warps, warp);
            const uint d = row_start + popcount(b & before_lane); // kept elements before this one
#ifdef CPY_PARTITION
            // The others after the kept ones, in order (one store either way).
            if (j < in_rows) tile[f ? d : total + j * wg + lid - d] = r[j];
#else
            if (f) tile[d] = r[j];
#endif
        }
#endif
    }
#else
    // 1. Coalesced load into local memory (16-byte vectors where the tile starts on a 16-byte
    // boundary); each work-item evaluates the predicate on its consecutive elements there: a bit
    // mask.
    cpy_load(src, in_off + base, count, tile);
    barrier(CLK_LOCAL_MEM_FENCE);
    uint mask = 0;
#ifdef CPY_UNIQUE
    // unique: a work-item's elements are consecutive, so the element before each is the one
    // before it in this loop; only the first's comes from the staged tile (the tile's first
    // element's from memory: the previous tile's last).
    {
        const uint i0 = lid * CPY_ITEMS;
        CPY_BITS_T prev = 0;
        if (i0 < count && base + i0 != 0) // (each side converted alone: a conditional promotes char and short)
            prev = i0 > 0 ? CPY_BITS(tile[CPY1_PAD(i0 - 1u)]) : CPY_BITS(src[-1]);
        for (uint j = 0; j < CPY_ITEMS; ++j) {
            const uint i = i0 + j;
            const CPY_BITS_T x = i < count ? CPY_BITS(tile[CPY1_PAD(i)]) : prev;
            mask |= (i < count && (base + i == 0 || x != prev) ? 1u : 0u) << j;
            prev = x;
        }
    }
#else
    for (uint j = 0; j < CPY_ITEMS; ++j) {
        const uint i = lid * CPY_ITEMS + j;
        mask |= (i < count && CPY_KEEP(tile[CPY1_PAD(i)], src, base, i) ? 1u : 0u) << j;
    }
#endif

    // 2. Where this work-item's kept elements start within the tile, and the tile's count.
    const uint pos = cpy_exclusive_scan(popcount(mask), scratch, &total);

    // 3. Publish the count at once (tile 0: its inclusive count), so that successors looking back
    // wait on nothing more. A launch of one work-group has no successors and publishes nothing
    // (the host passes no status words then).
    if (lid == 0 && get_num_groups(0) > 1) lb64_publish(slots + t, epoch, t == 0 ? LB_PREFIX : LB_AGGREGATE, total);

    // 4. Compact within the tile (the look-back below starts with a barrier, so the compaction is
    // complete before the store reads it).
#if CPY_COMPACT == 1
    {
        T v[CPY_ITEMS];
        #pragma unroll
        for (uint j = 0; j < CPY_ITEMS; ++j) v[j] = tile[CPY1_PAD(lid * CPY_ITEMS + j)];
        barrier(CLK_LOCAL_MEM_FENCE); // every value read before any moves down over it
        uint p = pos;
        #pragma unroll
        for (uint j = 0; j < CPY_ITEMS; ++j) {
            if (mask & (1u << j)) {
                tile[CPY1_PAD(p)] = v[j];
                ++p;
            }
#ifdef CPY_PARTITION
            else if (lid * CPY_ITEMS + j < count) tile[CPY1_PAD(total + lid * CPY_ITEMS + j - p)] = v[j];
#endif
        }
    }
#else
    {
        uint p = pos;
        for (uint j = 0; j < CPY_ITEMS; ++j) {
            if (mask & (1u << j)) {
                idx[p] = (ushort)(lid * CPY_ITEMS + j);
                ++p;
            }
#ifdef CPY_PARTITION
            else if (lid * CPY_ITEMS + j < count) idx[total + lid * CPY_ITEMS + j - p] = (ushort)(lid * CPY_ITEMS + j);
#endif
        }
    }
#endif
#endif // CPY_COMPACT == 2

    // 5. Look back over the earlier tiles' counts, publish the inclusive count.
#ifdef CPY_DIAG_SKIP_LOOKBACK // measurement only (wrong results): a tile without its look-back's wait
    barrier(CLK_LOCAL_MEM_FENCE);
    const uint before = t * (tile_n / 2);
#elif defined(CPY_WARP_LOOKBACK)
    const uint before = cpy_look_back_warp(slots, epoch, t, in + in_off, n, scratch, lb_state, !CPY_EARLY_WALK);
#else
    const uint before =
        cpy_look_back(slots, epoch, t, in + in_off, n, false, scratch, lb_flag, lb_val, lb_state, &lb_acc);
#endif
    if (lid == 0 && t > 0) lb64_publish(slots + t, epoch, LB_PREFIX, before + total);

    // 6. One contiguous, coalesced store of the kept elements.
    const ulong first = before;
    __global T* dst = out + out_off + first;
#if CPY_COMPACT == 2
#define CPY_STAGED(i) tile[i]
#elif CPY_COMPACT == 1
#define CPY_STAGED(i) tile[CPY1_PAD(i)]
#else
#define CPY_STAGED(i) tile[CPY1_PAD(idx[i])]
#endif
#ifdef CPY_PARTITION
    // partition_copy: the tile's elements in local memory are its kept ones, then its others,
    // each group in input order. The others go to out2 after the others of the tiles before
    // (base - before of them: the same look-back gives both starts). CPY_PARTITION_IN_PLACE
    // (stable_partition of a range of one tile, out2 = out = in): every element of the tile is
    // in registers or local memory (barriers since the loads) before the first store.
    {
#ifdef CPY_PARTITION_IN_PLACE
        const ulong rfirst = total; // one tile (the host's promise): the others right after the kept ones
#else
        const ulong rfirst = base - first;
#endif
        __global T* dst2 = out2 + out2_off + rfirst;
        const ulong room = capacity > first ? capacity - first : 0;
        const ulong room2 = capacity2 > rfirst ? capacity2 - rfirst : 0;
        const uint stored = (uint)min((ulong)total, room), others = count - total;
        const uint stored2 = (uint)min((ulong)others, room2);
        for (uint i = lid; i < stored; i += wg) dst[i] = CPY_STAGED(i);
        for (uint i = lid; i < stored2; i += wg) dst2[i] = CPY_STAGED(total + i);
    }
#else
    const ulong room = capacity > first ? capacity - first : 0;
    const uint stored = (uint)min((ulong)total, room);
    for (uint i = lid; i < stored; i += wg) cpy_st(dst + i, CPY_STAGED(i));
#endif
#undef CPY_STAGED

    // 7. The count.
    if (lid == 0 && t == (uint)get_num_groups(0) - 1u) count_out[count_off] = first + total;
}
