// Single-pass copy_if (stream compaction in one launch): every element is read once and every kept
// one written once. The three-pass copy_if of copy_if.cl reads the input twice (count, then
// scatter) and launches three times; here a tile learns where its output starts from the tiles
// before it by the decoupled look-back (lookback.cl) over their counts of kept elements.
//
// Per tile (one work-group, CPY_ITEMS elements per work-item, numbered in the order the groups
// start, or by group id with CPY_GROUP_ORDER):
//   1. load the tile coalesced into local memory (16-byte vectors where it can); each work-item
//      takes its CPY_ITEMS consecutive elements from there, evaluates the predicate (a bit mask)
//      and counts them;
//   2. an exclusive work-group scan of the counts: each work-item's first slot within the tile,
//      and the tile's total (warp shuffles on NVIDIA, CPY_SHFL);
//   3. publish the total at once, so that successors wait on nothing more;
//   4. compact the kept elements within local memory: their values moved down in place
//      (CPY_COMPACT=1), or their positions (CPY_COMPACT=0, gathered in the store);
//   5. look back over the earlier tiles' counts (with the decoupled fallback: a stalled
//      predecessor's count is recomputed from its input), publish the inclusive count;
//   6. one contiguous store of the kept elements from the tile's output start: coalesced,
//      whatever was kept;
//   7. the last tile writes the total count (the host reads it, or it stays on the device).
//
// Required: T (type_options), CLPRIM_PRED(x) (a generated predicate, operator_source.hpp),
// CPY_ITEMS (1..32: one mask bit per element), and workgroup_scan.cl (wg_exclusive_scan_uint),
// lookback.cl and scan_window_lookback.cl joined before this file. Optional (the host's
// copy_if_policy.hpp picks them): CPY_COMPACT (0 gather through positions, 1 in place, 2 by
// rows with warp votes (work-groups a multiple of 32; portable but slow without CPY_SHFL);
// default 0), CPY_VEC (elements per 16-byte load of a full tile, 1 for none; CPY_ITEMS a multiple of it),
// CPY_SHFL (NVIDIA only, work-groups a multiple of 32: the tile scan by warp shuffles, PTX),
// CPY_GROUP_ORDER (1: tile index = group id instead of the start-order counter; default 0),
// CPY_WARP_LOOKBACK (NVIDIA, with CPY_SHFL: the look-back walked by one warp).
#ifndef T
#error "copy_if_lookback.cl needs T"
#endif
#ifndef CLPRIM_PRED
#error "copy_if_lookback.cl needs CLPRIM_PRED (a generated predicate source joined in front)"
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

// One pad slot every 32 elements: item-major accesses (stride CPY_ITEMS) spread over the banks.
#define CPY1_PAD(i) ((i) + ((i) >> 5))

#ifndef CPY_COMPACT
#define CPY_COMPACT 0
#endif
#ifndef CPY_VEC
#define CPY_VEC 1
#endif
#ifndef CPY_GROUP_ORDER
#define CPY_GROUP_ORDER 0
#endif
#if CPY_ITEMS % CPY_VEC != 0
#error "copy_if_lookback.cl: CPY_ITEMS must be a multiple of CPY_VEC"
#endif

// An exclusive sum over the work-group of one uint per work-item, and the total (every work-item
// calls it; it starts with a barrier, so scratch may be reused right before it).
#ifdef CPY_SHFL
// NVIDIA (warps of 32 consecutive work-items, work-groups a multiple of 32): each warp scans its
// 32 values in five shuffle steps with no barrier; the warps' totals go through local memory,
// and each work-item adds those of the warps before its own: two barriers where the local-memory
// scan (Hillis & Steele over the group) takes log2(local size) + 2.
inline uint cpy_exclusive_scan(uint x, __local uint* scratch, uint* total)
{
    const uint lid = (uint)get_local_id(0);
    const uint lane = lid & 31u, warp = lid >> 5, warps = (uint)get_local_size(0) >> 5;
    uint inc = x;
    for (uint d = 1; d < 32u; d <<= 1) {
        uint y;
        asm volatile("shfl.sync.up.b32 %0, %1, %2, 0x0, 0xffffffff;" : "=r"(y) : "r"(inc), "r"(d));
        if (lane >= d) inc += y;
    }
    barrier(CLK_LOCAL_MEM_FENCE); // the caller may still be reading scratch
    if (lane == 31u) scratch[warp] = inc;
    barrier(CLK_LOCAL_MEM_FENCE);
    uint before = 0, sum = 0;
    for (uint w = 0; w < warps; ++w) {
        const uint s = scratch[w];
        before += w < warp ? s : 0u;
        sum += s;
    }
    *total = sum;
    return before + inc - x;
}
#else
inline uint cpy_exclusive_scan(uint x, __local uint* scratch, uint* total)
{
    return wg_exclusive_scan_uint(x, scratch, total);
}
#endif

// The bits of a 32-work-item row (a warp: work-items 32w .. 32w+31) whose flag is set, in every
// work-item of the row (every work-item calls it; work-groups a multiple of 32). NVIDIA: one
// warp vote; elsewhere through a local word per row with barriers (a portable stand-in for
// tests, slow). words: one uint per row.
#ifdef CPY_SHFL
inline uint cpy_ballot(uint pred)
{
    uint m;
    asm volatile("{\n\t.reg .pred p;\n\tsetp.ne.u32 p, %1, 0;\n\tvote.sync.ballot.b32 %0, p, 0xffffffff;\n\t}"
                 : "=r"(m)
                 : "r"(pred));
    return m;
}
inline uint cpy_row_ballot(uint flag, __local uint* words)
{
    (void)words;
    return cpy_ballot(flag);
}
#else
inline uint cpy_row_ballot(uint flag, __local uint* words)
{
    const uint lid = (uint)get_local_id(0);
    barrier(CLK_LOCAL_MEM_FENCE); // every work-item has read the previous ballot
    if ((lid & 31u) == 0) words[lid >> 5] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (flag) atomic_or(&words[lid >> 5], 1u << (lid & 31u));
    barrier(CLK_LOCAL_MEM_FENCE);
    return words[lid >> 5];
}
#endif

// A full tile from src (its first element at index start of the buffer) into local memory,
// coalesced: work-item lid takes elements j * local size + lid, or with CPY_VEC > 1 and src on a
// 16-byte boundary, the CPY_VEC-element vectors j * local size + lid (a quarter of the load
// instructions for 4-byte types; a vector's elements stay contiguous under CPY1_PAD, as a pad
// falls only every 32 elements). Loads all issued before the first store.
inline void cpy_load_full(__global const T* src, ulong start, __local T* tile)
{
    const uint lid = (uint)get_local_id(0);
    const uint wg = (uint)get_local_size(0);
#if CPY_VEC > 1
    if (start % CPY_VEC == 0) { // the same for every tile of the launch (tiles are multiples of CPY_VEC)
        __global const CLPRIM_CAT(T, CPY_VEC)* s = (__global const CLPRIM_CAT(T, CPY_VEC)*)src;
        CLPRIM_CAT(T, CPY_VEC) r[CPY_ITEMS / CPY_VEC];
        #pragma unroll
        for (uint j = 0; j < CPY_ITEMS / CPY_VEC; ++j) r[j] = s[j * wg + lid];
        #pragma unroll
        for (uint j = 0; j < CPY_ITEMS / CPY_VEC; ++j)
            CLPRIM_CAT(vstore, CPY_VEC)(r[j], 0, tile + CPY1_PAD((j * wg + lid) * CPY_VEC));
        return;
    }
#endif
    T r[CPY_ITEMS];
    #pragma unroll
    for (uint j = 0; j < CPY_ITEMS; ++j) r[j] = src[j * wg + lid];
    #pragma unroll
    for (uint j = 0; j < CPY_ITEMS; ++j) tile[CPY1_PAD(j * wg + lid)] = r[j];
}

// The count of kept elements of tile `tile`, from its input: the decoupled fallback's work (the
// same integer its owner publishes). Every work-item calls it; the value in all.
inline uint cpy_tile_count(__global const T* in, ulong n, uint tile, __local uint* scratch)
{
    const uint lid = (uint)get_local_id(0);
    const uint wg = (uint)get_local_size(0);
    const ulong base = (ulong)tile * wg * CPY_ITEMS;
    const uint count = (uint)min((ulong)wg * CPY_ITEMS, n - base);
    uint c = 0;
#pragma unroll 1
    for (uint j = 0; j < CPY_ITEMS; ++j) { // a loop, not unrolled: the cold path takes no registers
        const uint i = j * wg + lid;
        if (i < count && CLPRIM_PRED(in[base + i])) ++c;
    }
    uint total;
    (void)cpy_exclusive_scan(c, scratch, &total);
    return total;
}

// The tile index in the order the work-groups start (scan_window_lookback.cl's
// lb_take_tile_index), but a launch of one work-group (a small input) takes 0 without the
// counter's atomic round trip to L2.
inline uint cpy_take_tile_index(__global volatile ulong* status, __local uint* id)
{
    if (get_local_id(0) == 0) {
        uint v = 0;
        if (get_num_groups(0) > 1) {
            v = atomic_inc((__global volatile uint*)status);
            if (v == (uint)get_num_groups(0) - 1u) atomic_xchg((__global volatile uint*)status, 0u);
        }
        *id = v;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    return *id;
}

// A tile's slot: one 64-bit word (lookback.cl: epoch, flag, a 32-bit count).
inline uint cpy_read(__global volatile ulong* slots, uint epoch, uint tile, uint* count)
{
    return lb64_read(slots + tile, epoch, count);
}
inline void cpy_publish(__global volatile ulong* slots, uint epoch, uint tile, uint flag, uint count)
{
    lb64_publish(slots + tile, epoch, flag, count);
}
#define CPY_ADD(a, b) ((a) + (b))

// The number of elements kept by every tile before tile t (scan_window_lookback.cl: a window of
// predecessors' slots per round trip; the decoupled fallback counts a stalled tile's kept
// elements from its input with cpy_tile_count, the same integer its owner publishes).
LB_WINDOW_LOOK_BACK_DEFINE(cpy_look_back, uint, CPY_ADD, 0u, cpy_read, cpy_publish, cpy_tile_count, T, uint)

#ifdef CPY_WARP_LOOKBACK
// The same look-back walked by one warp (NVIDIA, CPY_WARP_LOOKBACK with CPY_SHFL's conditions):
// lane k reads the slot of tile j-1-k, two warp votes find the nearest empty slot and the nearest
// inclusive prefix, and a five-step shuffle reduction adds the counts before whichever comes
// first. A window of 32 slots costs one round trip to L2 and a few instructions, where the
// window look-back above combines its window one slot at a time in one work-item between two
// work-group barriers (a walk of tens of tiles behind the nearest prefix is common when hundreds
// of tiles run at once). The rest of the work-group waits at one barrier. The decoupled
// fallback is the same: after LB_FALLBACK_POLLS empty rounds in a row the warp stops, the whole
// group counts the stalled tile's kept elements from its input (cpy_tile_count), publishes them
// where the slot still reads empty, and the warp walks on; with LB_FALLBACK_FIRST every tile
// does that first for its predecessor. state: 4 uints of local memory.
inline uint cpy_warp_sum(uint x)
{
    for (uint d = 16; d > 0; d >>= 1) {
        uint y;
        asm volatile("shfl.sync.bfly.b32 %0, %1, %2, 0x1f, 0xffffffff;" : "=r"(y) : "r"(x), "r"(d));
        x += y;
    }
    return x;
}
// The index of the lowest set bit of m != 0.
inline uint cpy_lowest(uint m) { return popcount((m & (0u - m)) - 1u); }

inline uint cpy_look_back_warp(__global volatile ulong* slots, uint epoch, uint t, __global const T* in, ulong n,
                               __local uint* scratch, __local uint* state)
{
    const uint lid = (uint)get_local_id(0);
    // state: [0] tiles t-1 .. state[0] - 1 ... still to add (the next slot is state[0] - 1),
    // [1] the sum so far, [2] done, [3] stalled (the group counts tile state[0] - 1 itself)
    if (lid == 0) {
        state[0] = t;
        state[1] = 0;
        state[2] = t == 0;
        state[3] = LB_WINDOW_FALLBACK_FIRST && t > 0;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (;;) {
        const uint finished = state[2], stall = state[3];
        barrier(CLK_LOCAL_MEM_FENCE); // every work-item has read the state before it changes
        if (finished) break;
        if (LB_FALLBACK && stall) {
            const uint j = state[0];
            const uint agg = cpy_tile_count(in, n, j - 1, scratch);
            barrier(CLK_GLOBAL_MEM_FENCE);
            if (lid == 0) {
                uint v;
                uint flag = lb64_read(slots + (j - 1), epoch, &v);
                if (flag == LB_EMPTY || LB_WINDOW_FALLBACK_FIRST) {
                    if (flag == LB_EMPTY) lb64_publish(slots + (j - 1), epoch, j - 1 == 0 ? LB_PREFIX : LB_AGGREGATE, agg);
                    v = agg;
                    flag = j - 1 == 0 ? LB_PREFIX : LB_AGGREGATE; // tile 0's count is its prefix
                }
                state[1] += v;
                state[0] = j - 1;
                state[2] = flag == LB_PREFIX;
                state[3] = 0;
            }
            barrier(CLK_LOCAL_MEM_FENCE);
            continue;
        }
        if (lid < 32u) { // warp 0: whole-warp votes and shuffles, the loop's exits uniform in it
            const uint lane = lid;
            uint j = state[0], acc = state[1], polls = 0, done = 0, stalled = 0;
            for (;;) {
                uint v = 0, flag = LB_PREFIX; // past tile 0: never reached (tile 0 reads PREFIX or EMPTY)
                if (lane < j) flag = lb64_read(slots + (j - 1 - lane), epoch, &v);
                const uint empty = cpy_ballot(flag == LB_EMPTY);
                const uint prefix = cpy_ballot(flag == LB_PREFIX);
                const uint first_empty = empty ? cpy_lowest(empty) : 32u;
                const uint first_prefix = prefix ? cpy_lowest(prefix) : 32u;
                uint used = first_prefix < first_empty ? first_prefix + 1u : first_empty;
                used = min(used, j);
                acc += cpy_warp_sum(lane < used ? v : 0u);
                j -= used;
                if (first_prefix < first_empty || j == 0) {
                    done = 1;
                    break;
                }
                if (used == 0) {
                    if (LB_FALLBACK && ++polls > LB_FALLBACK_POLLS) {
                        stalled = 1;
                        break;
                    }
                    LB_BACKOFF();
                } else {
                    polls = 0;
                }
            }
            if (lane == 0) {
                state[0] = j;
                state[1] = acc;
                state[2] = done;
                state[3] = stalled;
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    return state[1];
}
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
                                  ulong capacity, __global ulong* count_out, ulong count_off,
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

    const bool full = count == tile_n; // every tile but the last: no bounds checks
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
        T r[CPY_ITEMS];
        uint mask = 0;
        if (full) {
            #pragma unroll
            for (uint j = 0; j < CPY_ITEMS; ++j) r[j] = src[j * wg + lid];
            #pragma unroll
            for (uint j = 0; j < CPY_ITEMS; ++j) mask |= (CLPRIM_PRED(r[j]) ? 1u : 0u) << j;
        } else {
            #pragma unroll
            for (uint j = 0; j < CPY_ITEMS; ++j) {
                const uint i = j * wg + lid;
                r[j] = i < count ? src[i] : (T)0;
                mask |= (i < count && CLPRIM_PRED(r[j]) ? 1u : 0u) << j;
            }
        }
        #pragma unroll
        for (uint j = 0; j < CPY_ITEMS; ++j) {
            const uint b = cpy_row_ballot((mask >> j) & 1u, words);
            if (lane == 0) table[j * warps + warp] = popcount(b);
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        const uint parts = CPY_ITEMS * warps; // at most wg (CPY_ITEMS <= 32)
        const uint part = lid < parts ? table[lid] : 0u;
        const uint start = cpy_exclusive_scan(part, scratch, &total);
        if (lid < parts) table[lid] = start;
        if (lid == 0) lb64_publish(slots + t, epoch, t == 0 ? LB_PREFIX : LB_AGGREGATE, total);
        barrier(CLK_LOCAL_MEM_FENCE);
#ifdef CPY_SHFL
        // Lane j holds its warp's start in row j, handed round by a shuffle per row (a load of
        // the table per row would be hoisted: a register per row).
        const uint mine = lane < CPY_ITEMS ? table[lane * warps + warp] : 0u;
#endif
        #pragma unroll
        for (uint j = 0; j < CPY_ITEMS; ++j) {
            const uint f = (mask >> j) & 1u;
            const uint b = cpy_row_ballot(f, words);
#ifdef CPY_SHFL
            uint row_start;
            asm volatile("shfl.sync.idx.b32 %0, %1, %2, 0x1f, 0xffffffff;" : "=r"(row_start) : "r"(mine), "r"(j));
#else
            const uint row_start = table[j * warps + warp];
#endif
            if (f) tile[row_start + popcount(b & before_lane)] = r[j];
        }
    }
#else
    // 1. Coalesced load into local memory (16-byte vectors where the tile starts on a 16-byte
    // boundary); each work-item evaluates the predicate on its consecutive elements there: a bit
    // mask.
    if (full) {
        cpy_load_full(src, in_off + base, tile);
    } else {
        for (uint j = 0; j < CPY_ITEMS; ++j) {
            const uint i = j * wg + lid;
            if (i < count) tile[CPY1_PAD(i)] = src[i];
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE); // (outside the branches: PoCL mishandles barriers inside them)
    uint mask = 0;
    if (full) {
        for (uint j = 0; j < CPY_ITEMS; ++j) mask |= (CLPRIM_PRED(tile[CPY1_PAD(lid * CPY_ITEMS + j)]) ? 1u : 0u) << j;
    } else {
        for (uint j = 0; j < CPY_ITEMS; ++j) {
            const uint i = lid * CPY_ITEMS + j;
            if (i < count) mask |= (CLPRIM_PRED(tile[CPY1_PAD(i)]) ? 1u : 0u) << j;
        }
    }

    // 2. Where this work-item's kept elements start within the tile, and the tile's count.
    const uint pos = cpy_exclusive_scan(popcount(mask), scratch, &total);

    // 3. Publish the count at once (tile 0: its inclusive count), so that successors looking back
    // wait on nothing more.
    if (lid == 0) lb64_publish(slots + t, epoch, t == 0 ? LB_PREFIX : LB_AGGREGATE, total);

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
        }
    }
#endif
#endif // CPY_COMPACT == 2

    // 5. Look back over the earlier tiles' counts, publish the inclusive count.
#ifdef CPY_DIAG_SKIP_LOOKBACK // measurement only (wrong results): a tile without its look-back's wait
    barrier(CLK_LOCAL_MEM_FENCE);
    const uint before = t * (tile_n / 2);
#elif defined(CPY_WARP_LOOKBACK)
    const uint before = cpy_look_back_warp(slots, epoch, t, in + in_off, n, scratch, lb_state);
#else
    const uint before =
        cpy_look_back(slots, epoch, t, in + in_off, n, false, scratch, lb_flag, lb_val, lb_state, &lb_acc);
#endif
    if (lid == 0 && t > 0) lb64_publish(slots + t, epoch, LB_PREFIX, before + total);

    // 6. One contiguous, coalesced store of the kept elements.
    const ulong first = before;
    __global T* dst = out + out_off + first;
    const ulong room = capacity > first ? capacity - first : 0;
    const uint stored = (uint)min((ulong)total, room);
#if CPY_COMPACT == 2
    for (uint i = lid; i < stored; i += wg) dst[i] = tile[i];
#elif CPY_COMPACT == 1
    for (uint i = lid; i < stored; i += wg) dst[i] = tile[CPY1_PAD(i)];
#else
    for (uint i = lid; i < stored; i += wg) dst[i] = tile[CPY1_PAD(idx[i])];
#endif

    // 7. The count.
    if (lid == 0 && t == (uint)get_num_groups(0) - 1u) count_out[count_off] = first + total;
}
