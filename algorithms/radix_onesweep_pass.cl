// The one-sweep radix sort's pass kernel (radix_onesweep.cl has the idea, the ranking and the
// histogram): moved here whole, one function as it was (a split into step functions ran 15-43%
// slower on the H100: docs/RESULTS.md).
//
// Portions (ONESWEEP_PORTIONS, radix_onesweep.cpp): a pass over more keys than a look-back slot
// counts (2^30 - 1) is one launch per portion of whole tiles, in order on the queue. src and n
// are the portion's keys; tiles are numbered and chained within their portion (the pass's tile
// counter runs on across its launches: tile_base is the portion's first tile); the digit starts
// come from info[starts_in] (the histogram's for the first portion), and the portion's last tile,
// which knows every digit's count in the portion once its look-back ends, writes the next
// portion's starts (its starts + those counts) to info[starts_out] (~0: the last portion). Only
// the build with ONESWEEP_PORTIONS reads these arguments: the build for one portion (every sort
// below 2^30 keys) is the kernel as it was, argument for argument.
//
// Build macros: those of radix_onesweep.cl and warp_rank.cl (both joined before this file),
// ONESWEEP_PORTIONS, and V_OVER_KEYS (values wider than the keys staged over the keys' local
// array instead of one of their own: radix_policy.hpp).
#ifndef TILE
#error "radix_onesweep_pass.cl needs radix_onesweep.cl joined before it"
#endif
#if !defined(WARP_RANK_BITS) || WARP_RANK_BITS != RADIX_BITS
#error "radix_onesweep_pass.cl needs warp_rank.cl joined before it, with WARP_RANK_BITS = RADIX_BITS"
#endif
#ifndef ONESWEEP_INFO_CARRY
#error "radix_onesweep_pass.cl needs radix_onesweep_layout.cl"
#endif

#ifdef ONESWEEP_PORTIONS
#define OS_TILE_BASE tile_base
#define OS_STARTS_IN starts_in
// The last tile of a portion writes the next portion's digit starts.
#define OS_CARRY(before)                                                                            \
    if (starts_out != ~0ul && t + 1u == get_num_groups(0)) info[starts_out + lid] = digit_start + (before) + count
#else
#define OS_TILE_BASE 0u
#define OS_STARTS_IN (INFO_STARTS + pass * RADIX)
#define OS_CARRY(before)
#endif

// Ranks one pass's digit of a tile, looks back for its global offsets and scatters it. The status
// words (one buffer, the host's layout): this call's info half at info_off, this pass's look-back
// slots at lookback_off ([tile][digit], zero at launch), and at clear_off the next pass's slots,
// which tile t clears row t of (~0: none; the pass before the next one has finished, so nothing
// reads them now; with portions, rows [0, clear_rows): the next launch's tiles). starts_in,
// starts_out, tile_base: the portions' (above). trace_off: LB_TRACE's records of this launch.
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void onesweep_pass(__global const bits_t* src, ulong src_off, __global bits_t* dst, ulong dst_off, uint n,
                   uint pass, uint convert_in, uint convert_out, __global uint* info_all, ulong info_off,
                   ulong starts_in, ulong starts_out, __global volatile uint* lookback_all, ulong lookback_off,
                   ulong clear_off, uint clear_rows, uint tile_base, ulong trace_off
#ifdef HAS_VALUES
                   , __global const V* vsrc, ulong vsrc_off, __global V* vdst, ulong vdst_off
#endif
                   )
{
#if defined(HAS_VALUES) && (V_PIECE_BYTES > K_BITS / 8) && defined(V_OVER_KEYS)
    // Pieces wider than the keys staged over the keys' own local array, sized for the pieces (the
    // keys have been written out by then): a larger tile in the same local memory.
    __local V_PIECE lstage[TILE];
    __local bits_t* lkeys = (__local bits_t*)lstage;
#else
    __local bits_t lkeys[TILE];
#if defined(HAS_VALUES) && (V_PIECE_BYTES > K_BITS / 8)
    __local V_PIECE lvals_own[TILE]; // one piece of every value (declared with its type: aligned)
#endif
#endif
    __local uint warp_counts[WARPS * RADIX]; // per warp and digit: keys ranked so far, then offsets
    __local uint tile_start[RADIX];          // first position of each digit in the ranked tile
    __local uint global_base[RADIX];         // where position j of digit d's run goes: base[d] + j
    __local uint scratch[WG_SCAN_SCRATCH(WG)];
    __local uint tile_id, trivial;
    __local uint fb_stalled, fb_tile; // the look-back's fallback: a digit waits on tile fb_tile
#ifndef MATCH_RANK
    __local uint ldigits[WG];
#else
    __local uint* ldigits = 0;
#endif

    __global volatile uint* lookback = lookback_all + lookback_off; // this pass's slots: [tile][digit]
    __global uint* info = info_all + info_off;
    (void)trace_off;
    (void)starts_in;
    (void)starts_out;
    (void)clear_rows;
    (void)tile_base;
    const uint lid = get_local_id(0);
    const uint lane = lid % WARP;
    const uint warp = lid / WARP;
    const uint shift = pass * RADIX_BITS;
#ifdef LB_TRACE
    __local uint trace_batches, trace_waits;
    ulong trace_time[8];
    trace_time[0] = os_now();
    if (lid == 0) trace_batches = trace_waits = 0u;
#endif
    // Tiles are numbered in the order work-groups start (lookback.cl: forward progress). The
    // reads that do not depend on the tile (this pass's digit starts, whether it moves anything)
    // are issued together with that atomic, so a tile waits for one round trip, not three.
    if (lid == 0) {
        tile_id = atomic_inc(&info[INFO_TILE_COUNTER(pass)]) - OS_TILE_BASE;
        fb_stalled = 0u;
    }
#ifdef MATCH_RANK
    if (lid == 0) trivial = info[INFO_TRIVIAL(pass)];
#endif
    const uint digit_start = lid < RADIX ? info[OS_STARTS_IN + lid] : 0u;
    barrier(CLK_LOCAL_MEM_FENCE);
    const uint t = tile_id;
#ifdef ONESWEEP_PORTIONS
    if (clear_off != ~0ul && lid < RADIX)
        for (uint row = t; row < clear_rows; row += get_num_groups(0)) lookback_all[clear_off + (ulong)row * RADIX + lid] = 0u;
#else
    if (clear_off != ~0ul && lid < RADIX) lookback_all[clear_off + (ulong)t * RADIX + lid] = 0u;
#endif
#ifdef LB_TRACE
    trace_time[1] = os_now();
#endif
    const uint base = t * TILE;
    const uint m = min((uint)TILE, n - base); // keys in this tile

    // Warp-blocked load: key k*32 + lane of the warp's segment (coalesced 128-byte rows). Missing
    // keys of the last tile are all-ones: digit RADIX-1 and after every real key, never written.
    const uint seg = warp * WARP_KEYS;
    bits_t keys[KPT];
#pragma unroll
    for (uint k = 0; k < KPT; ++k) {
        const uint j = seg + k * WARP + lane;
        keys[k] = j < m ? src[src_off + base + j] : ~(bits_t)0;
        if (convert_in && j < m) keys[k] = key_to_sortable(K_AS_KEY(keys[k]));
    }
#ifdef HAS_VALUES
    V vals[KPT];
#pragma unroll
    for (uint k = 0; k < KPT; ++k) {
        const uint j = seg + k * WARP + lane;
        vals[k] = j < m ? vsrc[vsrc_off + base + j] : (V)0;
    }
#endif

    for (uint i = lid; i < WARPS * RADIX; i += WG) warp_counts[i] = 0u;
#ifdef MATCH_RANK
    // A pass whose digit is the same for every key moves nothing: copy the tile (the host does not
    // know which passes these are without waiting for the histogram; the device does). Only in
    // the NVIDIA build: PoCL mishandles barriers after a branch like this (it reorders the keys),
    // so the portable build ranks such a pass like any other (correct, just not skipped).
    barrier(CLK_LOCAL_MEM_FENCE);
    if (trivial) {
#pragma unroll
        for (uint k = 0; k < KPT; ++k) {
            const uint j = seg + k * WARP + lane;
            if (j < m) {
                dst[dst_off + base + j] = convert_out ? K_AS_UNSIGNED(sortable_to_key(keys[k])) : keys[k];
#ifdef HAS_VALUES
                vdst[vdst_off + base + j] = vals[k];
#endif
            }
        }
        return;
    }
#else
    barrier(CLK_LOCAL_MEM_FENCE);
#endif
    {
        // 1. Rank within the warp: rank[k] = keys of the same digit earlier in the warp's segment.
        uint rank[KPT];
        __local uint* my_counts = warp_counts + warp * RADIX;
#ifdef LB_TRACE
        {   // when every key of warp 0 has arrived (warp 0 waits for them here; the others do not)
            uint x = 0;
            if (warp == 0)
                for (uint k = 0; k < KPT; ++k) x ^= (uint)keys[k];
            asm volatile("" ::"r"(x));
            trace_time[2] = os_now();
        }
#endif
#pragma unroll
        for (uint k = 0; k < KPT; ++k) {
            const uint d = os_digit(keys[k], shift);
            rank[k] = warp_rank_step(d, warp_peers(d, ldigits), my_counts);
        }
#ifdef LB_TRACE
        trace_time[3] = os_now();
#endif
        barrier(CLK_LOCAL_MEM_FENCE);

        // 2. Per digit (work-item d): exclusive scan over warps -> the warp's offset within the digit,
        //    and the tile's count of the digit, published at once (the earlier it is out, the shorter
        //    later tiles wait).
        uint count = 0;
        if (lid < RADIX) {
            for (uint w = 0; w < WARPS; ++w) {
                const uint c = warp_counts[w * RADIX + lid];
                warp_counts[w * RADIX + lid] = count;
                count += c;
            }
            if (t == 0) lb32_publish(&lookback[lid], LB_PREFIX, count);
            else lb32_publish(&lookback[(ulong)t * RADIX + lid], LB_AGGREGATE, count);
        }
#ifdef LB_TRACE
        trace_time[4] = os_now();
#endif
        uint total;
        const uint start = wg_exclusive_scan_uint(count, scratch, &total); // ends with a barrier
        if (lid < RADIX) tile_start[lid] = start;
        barrier(CLK_LOCAL_MEM_FENCE);

        // 3. Local scatter: the tile, ordered by digit (stable), in local memory. (rank[k] becomes
        //    the key's position in the tile: one register array fewer, more work-groups per SM.)
#pragma unroll
        for (uint k = 0; k < KPT; ++k) {
            const uint d = os_digit(keys[k], shift);
            rank[k] += tile_start[d] + warp_counts[warp * RADIX + d];
            lkeys[rank[k]] = keys[k];
        }

        // 4. Look back (work-item d for digit d) while the local scatter settles.
#ifdef LB_TRACE
        trace_time[5] = os_now();
#endif
#if defined(LB_TRACE) || !LB_FALLBACK
        if (lid < RADIX) {
            uint before = 0;
            if (t > 0) {
#ifndef LB_TRACE
                before = lb32_exclusive_prefix(lookback + lid, t, RADIX);
#else
                uint batches, waits;
                before = lb32_exclusive_prefix_counted(lookback + lid, t, RADIX, &batches, &waits);
                atomic_max(&trace_batches, batches);
                atomic_max(&trace_waits, waits);
#endif
                lb32_publish(&lookback[(ulong)t * RADIX + lid], LB_PREFIX, before + count);
            }
            global_base[lid] = digit_start + before - start;
            OS_CARRY(before);
        }
#else
        // Bounded look-back per digit; where a predecessor stalls it, the decoupled fallback
        // (lookback.cl): the work-group counts that tile's digits from its keys (this pass reads
        // src and writes dst, so its input is whole), publishes the counts where still empty and
        // looks back on from the tile before. tile_start is free from here on: its histogram.
        uint before = 0, jb = t;
#ifdef LB_FALLBACK_FIRST
        uint resolved = lid >= RADIX || t == 0; // tests: every tile counts its predecessor first
#else
        uint resolved = lid < RADIX ? lb32_look_back_bounded(lookback + lid, RADIX, &jb, &before) : 1u;
#endif
        if (lid < RADIX && resolved) {
            if (t > 0) lb32_publish(&lookback[(ulong)t * RADIX + lid], LB_PREFIX, before + count);
            global_base[lid] = digit_start + before - start;
            OS_CARRY(before);
        }
        if (!resolved) fb_stalled = 1u;
#endif
        barrier(CLK_LOCAL_MEM_FENCE); // the only one when no tile stalls
#if !defined(LB_TRACE) && LB_FALLBACK
        while (fb_stalled) {
            barrier(CLK_LOCAL_MEM_FENCE); // every work-item has read fb_stalled
            if (lid == 0) {
                fb_stalled = 0u;
                fb_tile = 0u;
            }
            if (lid < RADIX) tile_start[lid] = 0u;
            barrier(CLK_LOCAL_MEM_FENCE);
            if (!resolved) atomic_max(&fb_tile, jb - 1u); // the nearest stalled tile first
            barrier(CLK_LOCAL_MEM_FENCE);
            const uint f = fb_tile; // < t: a whole tile
#pragma unroll 1
            for (uint k = 0; k < KPT; ++k) { // a loop, not unrolled: the cold path costs no registers
                bits_t u = src[src_off + (ulong)f * TILE + k * WG + lid];
                if (convert_in) u = key_to_sortable(K_AS_KEY(u));
                atomic_inc(&tile_start[os_digit(u, shift)]);
            }
            barrier(CLK_LOCAL_MEM_FENCE);
            if (!resolved && jb - 1u == f) {
                const uint c = tile_start[lid];
                lb32_publish_fallback(&lookback[(ulong)f * RADIX + lid], f == 0 ? LB_PREFIX : LB_AGGREGATE, c);
                before += c;
                jb = f;
                resolved = f == 0 ? 1u : lb32_look_back_bounded(lookback + lid, RADIX, &jb, &before);
                if (resolved) {
                    lb32_publish(&lookback[(ulong)t * RADIX + lid], LB_PREFIX, before + count);
                    global_base[lid] = digit_start + before - start;
                    OS_CARRY(before);
                }
            }
            if (!resolved) fb_stalled = 1u;
            barrier(CLK_LOCAL_MEM_FENCE);
        }
#endif
#ifdef LB_TRACE
        trace_time[6] = os_now();
#endif

        // 5. Write out in tile order: consecutive work-items write consecutive keys of a digit's run.
#ifdef HAS_VALUES
        uint out_digit[OUT_WORDS]; // the written keys' digits, packed: the values go to the same runs
#pragma unroll
        for (uint w = 0; w < OUT_WORDS; ++w) out_digit[w] = 0u;
#endif
#pragma unroll
        for (uint k = 0; k < KPT; ++k) {
            const uint j = k * WG + lid;
            const bits_t u = lkeys[j];
            const uint d = os_digit(u, shift);
#ifdef HAS_VALUES
            out_digit[k / DIGITS_PER_WORD] |= d << (RADIX_BITS * (k % DIGITS_PER_WORD));
#endif
            if (j < m) dst[dst_off + global_base[d] + j] = convert_out ? K_AS_UNSIGNED(sortable_to_key(u)) : u;
        }

#ifdef HAS_VALUES
        // 6. Values follow their keys through the same local positions, a piece of V_PIECE_BYTES
        //    at a time (wide vector values: local memory holds one piece per key, not the value).
#if V_PIECE_BYTES > K_BITS / 8 && !defined(V_OVER_KEYS)
        __local V_PIECE* lvals = lvals_own;
#else
        __local V_PIECE* lvals = (__local V_PIECE*)lkeys;
#endif
#pragma unroll
        for (uint w = 0; w < V_PIECES; ++w) {
#if V_PIECE_BYTES <= K_BITS / 8 || V_PIECES > 1 || defined(V_OVER_KEYS)
            barrier(CLK_LOCAL_MEM_FENCE); // every key (the last piece) has been read out of lvals
#endif
#pragma unroll
            for (uint k = 0; k < KPT; ++k) lvals[rank[k]] = ((V_PIECE*)&vals[k])[w];
            barrier(CLK_LOCAL_MEM_FENCE);
#pragma unroll
            for (uint k = 0; k < KPT; ++k) {
                const uint j = k * WG + lid;
                const uint d = (out_digit[k / DIGITS_PER_WORD] >> (RADIX_BITS * (k % DIGITS_PER_WORD))) & DIGIT_MASK;
                if (j < m) ((__global V_PIECE*)(vdst + vdst_off + global_base[d] + j))[w] = lvals[j];
            }
        }
#endif
#ifdef LB_TRACE
        if (lid == 0) {
            trace_time[7] = os_now();
            __global ulong* rec = (__global ulong*)(lookback_all + trace_off) + (ulong)t * TRACE_WORDS;
            for (uint i = 0; i < 8; ++i) rec[i] = trace_time[i];
            rec[8] = os_smid();
            rec[9] = ((ulong)trace_batches << 32) | trace_waits;
        }
#endif
    }
}
