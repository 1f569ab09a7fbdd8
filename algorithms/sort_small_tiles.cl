// The radix sort's path for inputs of a few tiles (sort_small_tiles.cpp): the one-sweep sort
// (Adinets & Merrill's Onesweep, as radix_onesweep.cl) without its histogram launch. One launch
// per 8-bit digit, nothing else: at 2^16 uint keys four launches instead of five, where each
// launch, not the memory, is the time.
//
// Ideas:
// - A digit's start (the keys of smaller digits in the whole input) needs every tile's count.
//   The one-sweep path counts them in an extra launch before the first pass. Here pass 0 finds
//   them by a second decoupled look-back per digit, from past the LAST tile (lookback.cl): once
//   the last tile has published its inclusive prefix, that is the digit's total. A tile so waits
//   on later tiles too, which is safe for the same reason a look-back is: every tile publishes its
//   own count before it waits on anybody, and a tile that waits too long (one that has not even
//   started, on a device that gives no forward progress) counts the stalled tile's digits from
//   its keys itself (the decoupled fallback).
// - Pass 0 also counts every later pass's digits of its keys (local atomics, then one global add
//   per digit and tile), so passes 1.. find their totals in memory when they start.
// - Within a pass, as in radix_onesweep.cl: each tile ranks its keys by digit (stable, warp by
//   warp), publishes its per-digit counts, looks back for the counts of earlier tiles, orders its
//   keys by digit in local memory and writes each digit's run where it belongs.
//
// Status words (uints, host layout in sort_small_tiles.cpp): two halves of later-pass counts
// [ST_MAX_PASSES][RADIX] and per-pass tile counters, used by alternate calls (pass 0 clears the
// other half), and two regions
// of look-back slots [ST_MAX_TILES][RADIX], pass p uses region p % 2 and clears region
// (p + 1) % 2's rows for the pass after it; the number of passes is even, so region 0 is clear
// again between calls.
//
// Required macros: K... and V... (sort_key_order.cl's key type, the values' type, SORT_HAS_VALUES,
// SORT_DESCENDING), ST_WG (work-group size, a multiple of 32, >= 256), ST_KPT (keys per
// work-item), ST_PASSES (8-bit digits of the key: 2, 4 or 8). Needs sort_key_order.cl,
// workgroup_scan.cl, lookback.cl and warp_rank.cl (WARP_RANK_BITS 8; WARP_RANK_VOTES: NVIDIA's
// warp votes for the ranking, else a portable ranking through local memory) joined before it.
#ifndef ST_WG
#error "sort_small_tiles.cl needs ST_WG"
#endif
#ifndef ST_KPT
#error "sort_small_tiles.cl needs ST_KPT"
#endif
#ifndef ST_PASSES
#error "sort_small_tiles.cl needs ST_PASSES"
#endif
#ifndef LB_PREFIX
#error "sort_small_tiles.cl needs lookback.cl joined before it"
#endif
#ifndef K_UNSIGNED
#error "sort_small_tiles.cl needs the key type's macros"
#endif
#if !defined(WARP_RANK_BITS) || WARP_RANK_BITS != 8
#error "sort_small_tiles.cl needs warp_rank.cl joined before it, with 8-bit digits"
#endif

#define ST_RADIX 256u
#define ST_MAX_PASSES 8u // a half of later-pass counts holds this many passes (64-bit keys)
#define ST_COUNTER(p) (ST_MAX_PASSES * ST_RADIX + (p)) // in a half, after the counts: pass p's tile counter
#define ST_HALF_WORDS (ST_MAX_PASSES * ST_RADIX + ST_MAX_PASSES)
#define ST_TILE (ST_WG * ST_KPT)
#define ST_WARPS (ST_WG / 32u)
#define ST_WARP_KEYS (32u * ST_KPT)
#if ST_WG % 32 != 0 || ST_WG < 256
#error "sort_small_tiles.cl: ST_WG a multiple of 32, at least 256"
#endif

inline uint st_digit(K_UNSIGNED u, uint pass) { return (uint)(u >> (8u * pass)) & 0xFFu; }

// The digit counts of tile f of this pass's input, into hist[ST_RADIX] (all work-items call it).
inline void st_count_tile(__global const K_UNSIGNED* src, uint f, uint n, uint pass, uint convert,
                          __local uint* hist)
{
    const uint lid = get_local_id(0);
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint i = lid; i < ST_RADIX; i += ST_WG) hist[i] = 0u;
    barrier(CLK_LOCAL_MEM_FENCE);
    const uint base = f * ST_TILE, m = min((uint)ST_TILE, n - base);
    for (uint i = lid; i < m; i += ST_WG) {
        K_UNSIGNED u = src[base + i];
        if (convert) u = key_to_sortable(K_AS_KEY(u));
        atomic_inc(&hist[st_digit(u, pass)]);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
}

// Looks back over digit lid's slots (stride ST_RADIX) from tile *j - 1 down, adding counts to
// *acc, with the decoupled fallback: while some digit is stalled by a tile that has published
// nothing, the work-group counts that tile's digits from src, publishes them where the slot is
// still empty and goes on. All work-items call it; work-items >= ST_RADIX take no digit.
inline void st_look_back(__global volatile uint* slots, __global const K_UNSIGNED* src, uint n, uint pass,
                         uint convert, uint* j, uint* acc, __local uint* hist, __local uint* flags)
{
    const uint lid = get_local_id(0);
#ifdef LB_FALLBACK_FIRST // tests: every look-back counts the tile before it first
    uint resolved = lid >= ST_RADIX || *j == 0u;
#else
    uint resolved = lid < ST_RADIX ? lb32_look_back_bounded(slots + lid, ST_RADIX, j, acc) : 1u;
#endif
    barrier(CLK_LOCAL_MEM_FENCE);
    if (lid == 0) flags[0] = 0u;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (!resolved) flags[0] = 1u; // a digit is stalled
    barrier(CLK_LOCAL_MEM_FENCE);
    while (flags[0]) {
        barrier(CLK_LOCAL_MEM_FENCE); // every work-item has read flags[0]
        if (lid == 0) {
            flags[0] = 0u;
            flags[1] = 0u; // the stalling tile + 1, the nearest to the end first
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        if (!resolved) atomic_max(&flags[1], *j);
        barrier(CLK_LOCAL_MEM_FENCE);
        const uint f = flags[1] - 1u; // a tile of this pass's input: its keys are all there
        st_count_tile(src, f, n, pass, convert, hist);
        if (!resolved && *j - 1u == f) {
            const uint c = hist[lid];
            lb32_publish_fallback(&slots[(ulong)f * ST_RADIX + lid], f == 0 ? LB_PREFIX : LB_AGGREGATE, c);
            *acc += c;
            *j = f;
            resolved = f == 0 ? 1u : lb32_look_back_bounded(slots + lid, ST_RADIX, j, acc);
        }
        if (!resolved) flags[0] = 1u;
        barrier(CLK_LOCAL_MEM_FENCE);
    }
}

// One pass over digit `pass` of tile get_group_id(0). status: the host's words (see the top);
// counts_off: this call's half of later-pass counts, clear_counts_off: the other half (pass 0
// clears it); slots_off: this pass's look-back region; clear_off: the next pass's (~0: none).
__kernel __attribute__((reqd_work_group_size(ST_WG, 1, 1)))
void sort_small_tiles_pass(__global const K_UNSIGNED* src, ulong src_off, __global K_UNSIGNED* dst, ulong dst_off,
                           __global const V* vsrc, ulong vsrc_off, __global V* vdst, ulong vdst_off, uint n, uint pass,
                           __global uint* status, ulong counts_off, ulong clear_counts_off, ulong slots_off,
                           ulong clear_off)
{
    __local K_UNSIGNED lkeys[ST_TILE];
#ifdef SORT_HAS_VALUES
    __local V lvals[ST_TILE];
#endif
    __local uint warp_counts[ST_WARPS * ST_RADIX];
    __local uint tile_start[ST_RADIX];
    __local uint global_base[ST_RADIX];
    __local uint scratch[WG_SCAN_SCRATCH(ST_WG)];
    __local uint hist[ST_RADIX];
    __local uint flags[2];
#if ST_PASSES > 1
    __local uint later[(ST_PASSES - 1) * ST_RADIX];
#endif
    const uint lid = get_local_id(0), lane = lid % 32u, warp = lid / 32u;
    __local uint tile_id;
    const uint tiles = get_num_groups(0);
    const uint convert_in = pass == 0, convert_out = pass + 1 == ST_PASSES;
    src += src_off;
    dst += dst_off;
    vsrc += vsrc_off;
    vdst += vdst_off;
    __global volatile uint* slots = (__global volatile uint*)(status + slots_off);
    __global uint* counts = status + counts_off;
    // Tiles are numbered in the order work-groups start (lookback.cl: a tile then waits only on
    // tiles that have started, except for pass 0's totals, which the fallback covers).
    if (lid == 0) tile_id = atomic_inc(&counts[ST_COUNTER(pass)]);
    barrier(CLK_LOCAL_MEM_FENCE);
    const uint t = tile_id;
    if (clear_off != ~0ul && lid < ST_RADIX) status[clear_off + (ulong)t * ST_RADIX + lid] = 0u;
    if (pass == 0) // the whole half: the last call that used it may have had more passes
        for (uint i = t * ST_WG + lid; i < ST_HALF_WORDS; i += tiles * ST_WG) status[clear_counts_off + i] = 0u;
    // This pass's digit totals, counted by pass 0 (the launches before this one have finished).
    const uint total_in = pass > 0 && lid < ST_RADIX ? counts[pass * ST_RADIX + lid] : 0u;

    // Warp-blocked load (coalesced rows of 32); the last tile's missing keys are all-ones (digit
    // 255, after every real key) and are never written.
    const uint base = t * ST_TILE, m = min((uint)ST_TILE, n - base), seg = warp * ST_WARP_KEYS;
    K_UNSIGNED keys[ST_KPT];
#pragma unroll
    for (uint k = 0; k < ST_KPT; ++k) {
        const uint j = seg + k * 32u + lane;
        keys[k] = j < m ? src[base + j] : (K_UNSIGNED) ~(K_UNSIGNED)0;
        if (convert_in && j < m) keys[k] = key_to_sortable(K_AS_KEY(keys[k]));
    }
#ifdef SORT_HAS_VALUES
    V vals[ST_KPT];
#pragma unroll
    for (uint k = 0; k < ST_KPT; ++k) {
        const uint j = seg + k * 32u + lane;
        if (j < m) vals[k] = vsrc[base + j];
    }
#endif
    // Passes after the first: the digits' starts from the totals, while the keys arrive.
    uint all, digit_start = 0;
    if (pass > 0) digit_start = wg_exclusive_scan_uint(total_in, scratch, &all);
    for (uint i = lid; i < ST_WARPS * ST_RADIX; i += ST_WG) warp_counts[i] = 0u;
#if ST_PASSES > 1
    if (pass == 0)
        for (uint i = lid; i < (ST_PASSES - 1) * ST_RADIX; i += ST_WG) later[i] = 0u;
#endif
    barrier(CLK_LOCAL_MEM_FENCE);

    // 1. Stable rank within the warp's segment: the peers of a key (same digit, same step) are
    //    ranked by lane; the highest peer adds their number to the warp's counter of the digit.
    uint rank[ST_KPT];
    __local uint* my_counts = warp_counts + warp * ST_RADIX;
#pragma unroll
    for (uint k = 0; k < ST_KPT; ++k) {
        const uint d = st_digit(keys[k], pass);
        rank[k] = warp_rank_step(d, warp_peers(d, scratch), my_counts);
    }
#if ST_PASSES > 1
    if (pass == 0) { // every later pass's digits of this tile's real keys
#pragma unroll
        for (uint k = 0; k < ST_KPT; ++k)
            if (seg + k * 32u + lane < m)
                for (uint q = 1; q < ST_PASSES; ++q) atomic_inc(&later[(q - 1) * ST_RADIX + st_digit(keys[k], q)]);
    }
#endif
    barrier(CLK_LOCAL_MEM_FENCE);

    // 2. Per digit: the warps' offsets within it and the tile's count, published at once.
    uint count = 0;
    if (lid < ST_RADIX) {
        for (uint w = 0; w < ST_WARPS; ++w) {
            const uint c = warp_counts[w * ST_RADIX + lid];
            warp_counts[w * ST_RADIX + lid] = count;
            count += c;
        }
        lb32_publish(&slots[(ulong)t * ST_RADIX + lid], t == 0 ? LB_PREFIX : LB_AGGREGATE, count);
    }
#if ST_PASSES > 1
    if (pass == 0 && lid < ST_RADIX)
        for (uint q = 1; q < ST_PASSES; ++q) {
            const uint c = later[(q - 1) * ST_RADIX + lid];
            if (c) atomic_add(&counts[q * ST_RADIX + lid], c);
        }
#endif
    uint tile_total;
    const uint start_in_tile = wg_exclusive_scan_uint(count, scratch, &tile_total);
    if (lid < ST_RADIX) tile_start[lid] = start_in_tile;
    barrier(CLK_LOCAL_MEM_FENCE);

    // 3. The tile ordered by digit in local memory (rank becomes the position in the tile).
#pragma unroll
    for (uint k = 0; k < ST_KPT; ++k) {
        const uint d = st_digit(keys[k], pass);
        rank[k] += tile_start[d] + warp_counts[warp * ST_RADIX + d];
        lkeys[rank[k]] = keys[k];
#ifdef SORT_HAS_VALUES
        lvals[rank[k]] = vals[k];
#endif
    }

    // 4. Keys of this digit in earlier tiles (look-back), then this tile's inclusive prefix.
    uint j = t, before = 0;
    st_look_back(slots, src, n, pass, convert_in, &j, &before, hist, flags);
    if (t > 0 && lid < ST_RADIX) lb32_publish(&slots[(ulong)t * ST_RADIX + lid], LB_PREFIX, before + count);
    // Pass 0: the digit's total, looking back from past the last tile (the last tile has it).
    if (pass == 0) {
        uint total = before + count;
        if (t + 1 < tiles) {
            uint jt = tiles;
            total = 0;
            st_look_back(slots, src, n, pass, convert_in, &jt, &total, hist, flags);
        }
        digit_start = wg_exclusive_scan_uint(lid < ST_RADIX ? total : 0u, scratch, &all);
    }
    if (lid < ST_RADIX) global_base[lid] = digit_start + before - start_in_tile;
    barrier(CLK_LOCAL_MEM_FENCE);

    // 5. Write out in tile order: consecutive work-items write consecutive keys of a digit's run.
#pragma unroll
    for (uint k = 0; k < ST_KPT; ++k) {
        const uint i = k * ST_WG + lid;
        if (i < m) {
            const K_UNSIGNED u = lkeys[i];
            const uint at = global_base[st_digit(u, pass)] + i;
            dst[at] = convert_out ? K_AS_UNSIGNED(sortable_to_key(u)) : u;
#ifdef SORT_HAS_VALUES
            vdst[at] = lvals[i];
#endif
        }
    }
}
