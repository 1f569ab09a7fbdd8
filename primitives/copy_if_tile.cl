// The single-pass copy_if's pieces (copy_if_lookback.cl has the kernel and what it is): the
// tile scan, the warp votes, the full-tile load, the fallback's count of a tile, the look-backs
// (the work-group's window, scan_window_lookback.cl, or NVIDIA's warp walk) and the tile index.
//
// Required: T, CLPRIM_PRED(x) or CPY_UNIQUE, CPY_ITEMS (copy_if_lookback.cl lists the options), and
// workgroup_scan.cl, lookback.cl and scan_window_lookback.cl joined before this file.
#ifndef T
#error "copy_if_tile.cl needs T"
#endif
#if !defined(CLPRIM_PRED) && !defined(CPY_UNIQUE)
#error "copy_if_tile.cl needs CLPRIM_PRED (a generated predicate source joined in front) or CPY_UNIQUE"
#endif
#if defined(CPY_UNIQUE) && !defined(T_UNSIGNED)
#error "copy_if_tile.cl: CPY_UNIQUE needs T_UNSIGNED (type_options)"
#endif
#ifndef CPY_ITEMS
#error "copy_if_tile.cl needs CPY_ITEMS"
#endif
#if CPY_ITEMS > 32
#error "copy_if_tile.cl: CPY_ITEMS is at most 32 (one mask bit per element)"
#endif
#ifndef WG_SCAN_SCRATCH
#error "copy_if_tile.cl needs workgroup_scan.cl joined before it"
#endif
#ifndef LB_WINDOW_LOOK_BACK_DEFINE
#error "copy_if_tile.cl needs lookback.cl and scan_window_lookback.cl joined before it"
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
#error "copy_if_tile.cl: CPY_ITEMS must be a multiple of CPY_VEC"
#endif

// Whether element i of the tile at src (element base + i of the range) is kept: the predicate,
// or with CPY_UNIQUE (clprim::unique through this kernel) whether it starts a run of equal bits:
// the first element of the range, or one whose bits differ from the element before it (read
// again from global memory, in this tile or the one before: a cache hit).
#ifdef CPY_UNIQUE
#define CPY_BITS(x) CLPRIM_CAT(as_, T_UNSIGNED)(x)
#define CPY_BITS_T T_UNSIGNED
#define CPY_KEEP(x, src, base, i) ((base) + (i) == 0 || CPY_BITS(x) != CPY_BITS((src)[(long)(i) - 1]))
#else
#define CPY_KEEP(x, src, base, i) CLPRIM_PRED(x)
#endif

// CPY_LOAD_HINT (NVIDIA, CPY_SHFL, 4-byte T, by rows without vectors; measurements): the rows'
// loads as PTX ld.global with a cache hint: 1 .nc (the read-only path), 2 .cs (streaming: evict
// first), 3 .lu (last use). 0 (default): plain loads.
#ifndef CPY_LOAD_HINT
#define CPY_LOAD_HINT 0
#endif
#if CPY_LOAD_HINT && defined(CPY_SHFL)
#if CPY_LOAD_HINT == 1
#define CPY_LD_OP "ld.global.nc.u32 %0, [%1];"
#elif CPY_LOAD_HINT == 2
#define CPY_LD_OP "ld.global.cs.u32 %0, [%1];"
#else
#define CPY_LD_OP "ld.global.lu.u32 %0, [%1];"
#endif
inline T cpy_ld(__global const T* p)
{
    uint v;
    asm(CPY_LD_OP : "=r"(v) : "l"(p));
    return CLPRIM_CAT(as_, T)(v);
}
#else
#define cpy_ld(p) (*(p))
#endif

// CPY_STORE_HINT (NVIDIA, CPY_SHFL, 4-byte T; measurements, through CLPRIM_COPY_IF_OPTIONS): the
// kept elements' stores as PTX st.global.cs (streaming). CPY_FULL_FAST (measurements): by rows,
// full tiles load without clamping the index.
#ifndef CPY_FULL_FAST
#define CPY_FULL_FAST 0
#endif
#if defined(CPY_STORE_HINT) && defined(CPY_SHFL)
inline void cpy_st(__global T* p, T v)
{
    asm volatile("st.global.cs.u32 [%0], %1;" ::"l"(p), "r"(CLPRIM_CAT(as_, uint)(v)) : "memory");
}
#else
#define cpy_st(p, v) (*(p) = (v))
#endif

// CPY_UNIQUE_PREV (unique by rows; default 0): 1, the element before a work-item's register j is
// the previous lane's register j (cpy_lane_prev), lane 0 reads it from memory; 0, every element's
// predecessor read again from global memory (a cache hit, but a load per element; on the H100 the
// faster of the two by far).
#ifndef CPY_UNIQUE_PREV
#define CPY_UNIQUE_PREV 0
#endif

// The value x of the previous work-item of this one's row of 32 (lane 0 gets its own back);
// every work-item calls it. NVIDIA: one or two warp shuffles; elsewhere through local memory
// (xch: 2 uints per work-item) between barriers, a stand-in for tests.
inline ulong cpy_lane_prev(ulong x, __local uint* xch)
{
#ifdef CPY_SHFL
    (void)xch;
    uint lo = (uint)x, hi = (uint)(x >> 32);
    asm volatile("shfl.sync.up.b32 %0, %1, 1, 0x0, 0xffffffff;" : "=r"(lo) : "r"(lo));
    if (sizeof(T) == 8) asm volatile("shfl.sync.up.b32 %0, %1, 1, 0x0, 0xffffffff;" : "=r"(hi) : "r"(hi));
    return ((ulong)hi << 32) | lo;
#else
    const uint lid = (uint)get_local_id(0);
    barrier(CLK_LOCAL_MEM_FENCE); // every work-item has read the previous exchange
    xch[2 * lid] = (uint)x;
    xch[2 * lid + 1] = (uint)(x >> 32);
    barrier(CLK_LOCAL_MEM_FENCE);
    return (lid & 31u) ? ((ulong)xch[2 * lid - 1] << 32) | xch[2 * lid - 2] : x;
#endif
}

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

// By rows (CPY_COMPACT=2): a work-item holds CPY_RROWS registers of CPY_VEC elements each
// (CPY_RT), element k of one is CPY_RGET(v, k); cpy_rload gathers one element by element (k
// past `last` loads element `last` again).
#if CPY_VEC > 1
#define CPY_RT CLPRIM_CAT(T, CPY_VEC)
#else
#define CPY_RT T
#endif
#define CPY_RROWS (CPY_ITEMS / CPY_VEC)
#if CPY_VEC == 4
#define CPY_RGET(v, k) ((k) == 0 ? (v).s0 : (k) == 1 ? (v).s1 : (k) == 2 ? (v).s2 : (v).s3)
#define CPY_RBITS 3
inline CPY_RT cpy_rload(__global const T* src, uint e, uint last)
{
    return (CPY_RT)(src[min(e, last)], src[min(e + 1u, last)], src[min(e + 2u, last)], src[min(e + 3u, last)]);
}
#elif CPY_VEC == 2
#define CPY_RGET(v, k) ((k) == 0 ? (v).s0 : (v).s1)
#define CPY_RBITS 2
inline CPY_RT cpy_rload(__global const T* src, uint e, uint last)
{
    return (CPY_RT)(src[min(e, last)], src[min(e + 1u, last)]);
}
#else
#define CPY_RGET(v, k) (v)
#define CPY_RBITS 1
#endif

// This warp's start in row j: with CPY_SHFL lane j holds it in `mine` (one shuffle), else the
// table has it.
inline uint cpy_row_start(uint mine, uint j, __local const uint* table, uint warps, uint warp)
{
#ifdef CPY_SHFL
    (void)table;
    (void)warps;
    (void)warp;
    uint start;
    asm volatile("shfl.sync.idx.b32 %0, %1, %2, 0x1f, 0xffffffff;" : "=r"(start) : "r"(mine), "r"(j));
    return start;
#else
    (void)mine;
    return table[j * warps + warp];
#endif
}

// The kept elements of this work-item's register j (0 .. CPY_VEC).
inline uint cpy_row_count(uint mask, uint j)
{
    return popcount((mask >> (j * CPY_VEC)) & ((1u << CPY_VEC) - 1u));
}

// Ranks a row of a warp: c is this work-item's count in it (0 .. CPY_VEC); *before gets the
// counts of the warp's work-items before this one, *all the warp's. One vote per bit of c (a
// count below 2^CPY_RBITS): the sum over earlier lanes is sum_b 2^b popcount(vote_b & earlier).
inline void cpy_rank_row(uint c, uint before_lane, __local uint* words, uint* before, uint* all)
{
    uint b_sum = 0, a_sum = 0;
    #pragma unroll
    for (uint bit = 0; bit < CPY_RBITS; ++bit) {
        const uint b = cpy_row_ballot((c >> bit) & 1u, words);
        b_sum += (uint)popcount(b & before_lane) << bit;
        a_sum += (uint)popcount(b) << bit;
    }
    *before = b_sum;
    *all = a_sum;
}

// A tile of count elements from src (its first element at index start of the buffer) into local
// memory, coalesced: work-item lid takes elements j * local size + lid, or, for a full tile on a
// 16-byte boundary with CPY_VEC > 1, the CPY_VEC-element vectors j * local size + lid (a quarter
// of the load instructions for 4-byte types; a vector's elements stay contiguous under
// CPY1_PAD, as a pad falls only every 32 elements). Loads all issued before the first store;
// past count a work-item loads the last element again (one path for full and partial tiles, no
// address kept per load), which the predicate pass then ignores.
inline void cpy_load(__global const T* src, ulong start, uint count, __local T* tile)
{
    const uint lid = (uint)get_local_id(0);
    const uint wg = (uint)get_local_size(0);
#if CPY_VEC > 1
    if (count == wg * CPY_ITEMS && start % CPY_VEC == 0) { // aligned alike in every full tile of a launch
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
    for (uint j = 0; j < CPY_ITEMS; ++j) r[j] = src[min(j * wg + lid, count - 1u)];
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
        if (i < count && CPY_KEEP(in[base + i], in + base, base, i)) ++c;
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

// Warp 0 only (work-items 0..31, no barrier inside): walks back from tile state[0] - 1 adding to
// state[1] until an inclusive prefix (state[2] = 1) or LB_FALLBACK_POLLS empty rounds in a row
// (state[3] = 1: the group counts tile state[0] - 1 itself). Each round reads CPY_WALK_READS x 32
// slots at once (lane k reads the slots k, 32 + k, ... behind the nearest unread one: all loads
// in flight together, one round trip to L2), then takes them 32 at a time in order of distance:
// with hundreds of tiles running, the nearest prefix is often more than 32 tiles back, and a
// round trip per 32 slots made the walk the longest wait of a tile.
#ifndef CPY_WALK_READS
#define CPY_WALK_READS 1
#endif
inline void cpy_warp_walk(__global volatile ulong* slots, uint epoch, __local uint* state)
{
    const uint lane = (uint)get_local_id(0);
    uint j = state[0], acc = state[1], polls = 0, done = 0, stalled = 0;
    for (;;) {
        uint v[CPY_WALK_READS], flag[CPY_WALK_READS];
        #pragma unroll
        for (uint k = 0; k < CPY_WALK_READS; ++k) {
            const uint d = k * 32u + lane; // distance behind the nearest unread slot
            v[k] = 0;
            flag[k] = LB_PREFIX; // past tile 0: ends the walk there (a count of 0)
            if (d < j) flag[k] = lb64_read(slots + (j - 1 - d), epoch, &v[k]);
        }
        uint used_here = 0, more = 1; // more: the slots read so far were all taken (alike in the warp)
        #pragma unroll
        for (uint k = 0; k < CPY_WALK_READS; ++k) {
            if (more) {
                const uint empty = cpy_ballot(flag[k] == LB_EMPTY);
                const uint prefix = cpy_ballot(flag[k] == LB_PREFIX);
                const uint first_empty = empty ? cpy_lowest(empty) : 32u;
                const uint first_prefix = prefix ? cpy_lowest(prefix) : 32u;
                const uint used = lb_walk_used(first_empty, first_prefix, j, &done);
                acc += cpy_warp_sum(lane < used ? v[k] : 0u);
                j -= used;
                used_here += used;
                more = !done && used == 32u; // else an empty slot: read again from it next round
            }
        }
        if (done) break;
        if (lb_walk_stalled(used_here, &polls)) {
            stalled = 1;
            break;
        }
    }
    if (lane == 0) { // (every lane read the state before the votes above)
        state[0] = j;
        state[1] = acc;
        state[2] = done;
        state[3] = stalled;
    }
}

// The state's start for tile t (work-item 0 writes it; a barrier must follow before it is read).
inline void cpy_walk_init(uint t, __local uint* state)
{
    if (get_local_id(0) == 0) {
        state[0] = t;       // tiles t-1 .. state[0] - 1 are still to add
        state[1] = 0;       // the sum so far
        state[2] = t == 0;  // done
        state[3] = LB_WINDOW_FALLBACK_FIRST && t > 0; // stalled: the group counts tile state[0] - 1
    }
}

// The whole look-back (every work-item calls it): warp 0 walks, the group takes the fallback
// where the walk stalls. With init 0 the caller has set the state up (cpy_walk_init) and may
// have let warp 0 walk already (overlapping the walk's round trips with other work); the
// barrier at the start makes that visible.
inline uint cpy_look_back_warp(__global volatile ulong* slots, uint epoch, uint t, __global const T* in, ulong n,
                               __local uint* scratch, __local uint* state, int init)
{
    const uint lid = (uint)get_local_id(0);
    if (init) cpy_walk_init(t, state);
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
        if (lid < 32u) cpy_warp_walk(slots, epoch, state); // whole warp 0: votes, shuffles
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    return state[1];
}
#endif

