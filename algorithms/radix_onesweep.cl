// One-sweep LSD radix sort (Adinets & Merrill, "Onesweep: A Faster Least Significant Digit Radix
// Sort for GPUs", 2022): one kernel per digit, each reading and writing every key once.
//
//   onesweep_histogram  reads the keys once and counts the digits of EVERY pass at once; the last
//                       work-group to finish turns each pass's counts into digit starts (the
//                       position of the first key of each digit in that pass's output).
//   onesweep_pass       per pass: a tile ranks its keys by digit in local memory (stable), then
//                       finds, per digit, how many keys of that digit the earlier tiles hold by a
//                       decoupled look-back (lookback.cl, one look-back per digit: work-item d
//                       looks back over digit d's slots), then writes each key to
//                       digit start + keys of its digit in earlier tiles + its rank in the tile.
// The textbook pass (radix_sort.cl: count, scan the digit table, scatter) reads the keys twice and
// needs three launches; here a pass is one launch and one read.
//
// Ranking (stable): the tile is split into warps of 32 work-items; warp w owns the 32*KPT keys
// [w*32*KPT, (w+1)*32*KPT) and ranks them 32 at a time (key k*32 + lane at step k). At each step
// the keys of one digit in the warp ("peers") are ranked among themselves by lane, the last of
// them adds the peer count to the warp's counter of that digit, and each peer's rank is the
// counter before that plus the peers on lower lanes. Afterwards a scan over warps (per digit) and
// over digits (per tile) turns the warp counters into positions in the tile.
// - MATCH_RANK (NVIDIA, where the host found the compiler takes inline PTX): peers come from
//   RADIX_BITS warp votes (vote.sync.ballot, one per digit bit; PEERS_MATCH_ANY: one
//   match.any.sync instead, which is slower on the H100), the counter is broadcast with
//   shfl.sync, and bar.warp.sync orders the counter updates between steps: no work-group barrier
//   inside the ranking loop.
// - otherwise (portable): peers are found by comparing the warp's 32 digits through local memory,
//   with work-group barriers between the steps. Slower, but correct on any OpenCL device.
//
// Build macros: K... (key type), WG (work-group size, a multiple of 32, >= RADIX), KPT (keys per
// work-item), RADIX_BITS, PASSES, HAS_VALUES with V, V_BYTES (values only move, as bits: uchar to
// ulong, uint4 or uint8 for 16- and 32-byte vector values) and V_PIECE_BYTES (the values go
// through local memory in pieces of this many bytes, V_BYTES by default), MATCH_RANK;
// for measurements only: PEERS_MATCH_ANY (NVIDIA ranking by match.any.sync) and LB_TRACE (a
// per-tile timeline, see below). Needs sort_key_order.cl, workgroup_scan.cl, lookback.cl and
// radix_onesweep_layout.cl joined before it.
#ifndef ONESWEEP_INFO_STRIDE
#error "radix_onesweep.cl needs radix_onesweep_layout.cl joined before it"
#endif
#ifndef K_UNSIGNED
#error "radix_onesweep.cl needs K (the key type's macros)"
#endif
#ifndef WG
#error "radix_onesweep.cl needs WG"
#endif
#ifndef KPT
#error "radix_onesweep.cl needs KPT"
#endif
#ifndef RADIX_BITS
#error "radix_onesweep.cl needs RADIX_BITS"
#endif
#ifndef PASSES
#error "radix_onesweep.cl needs PASSES"
#endif

#define RADIX (1u << RADIX_BITS)
#define DIGIT_MASK (RADIX - 1u)
#define TILE (WG * KPT)
#define WARP 32u
#define WARPS (WG / WARP)
#define WARP_KEYS (WARP * KPT)
#ifndef DIGITS_PER_WORD // digits of the written keys kept per register (1: unpacked, measurements)
#define DIGITS_PER_WORD (32u / RADIX_BITS)
#endif
#define OUT_WORDS ((KPT + DIGITS_PER_WORD - 1u) / DIGITS_PER_WORD)
#ifdef HAS_VALUES
#ifndef V_PIECE_BYTES
#define V_PIECE_BYTES V_BYTES
#endif
#if V_PIECE_BYTES == V_BYTES
#define V_PIECE V
#elif V_PIECE_BYTES == 4
#define V_PIECE uint
#elif V_PIECE_BYTES == 8
#define V_PIECE uint2
#elif V_PIECE_BYTES == 16
#define V_PIECE uint4
#else
#error "V_PIECE_BYTES: 4, 8, 16 or V_BYTES"
#endif
#define V_PIECES (V_BYTES / V_PIECE_BYTES)
#endif

#if WG % 32 != 0 || WG < RADIX
#error "onesweep needs a work-group size that is a multiple of 32 and at least RADIX"
#endif

// info[] layout (uints; radix_onesweep_layout.cl, shared with the host): counts[PASSES][RADIX],
// starts[PASSES][RADIX], the histogram's done counter, one tile counter per pass, then one flag per
// pass. Zero at launch except what the kernels write: the host keeps two halves per queue, and
// each call's histogram clears the half the next call uses.
#define INFO_COUNTS ONESWEEP_INFO_COUNTS
#define INFO_STARTS ONESWEEP_INFO_STARTS(PASSES, RADIX)
#define INFO_DONE ONESWEEP_INFO_DONE(PASSES, RADIX)
#define INFO_TILE_COUNTER(p) ONESWEEP_INFO_TILE_COUNTER(PASSES, RADIX, p)
#define INFO_TRIVIAL(p) ONESWEEP_INFO_TRIVIAL(PASSES, RADIX, p)

typedef K_UNSIGNED bits_t;

#ifndef HIST_KEYS
#define HIST_KEYS ONESWEEP_HIST_KEYS // keys per work-item per round of onesweep_histogram
#endif

inline uint os_digit(bits_t u, uint shift) { return (uint)(u >> shift) & DIGIT_MASK; }

// Counts the digits of every pass of every key (one read of the keys); the last work-group done
// scans each pass's counts into starts. Any number of work-groups of WG items (grid-stride loop).
// Also clears, for the commands after it, the words [clear_a, +a_words) and [clear_b, +b_words)
// of the status buffer: the other info half (the next call's) and pass 0's look-back slots (the
// host's layout, radix_onesweep.cpp). Its own info half (info_all + info_off) is zero at launch.
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void onesweep_histogram(__global const bits_t* src, ulong src_off, uint n, __global uint* info_all, ulong info_off,
                        ulong clear_a, ulong a_words, ulong clear_b, ulong b_words)
{
    __local uint bins[PASSES * RADIX];
    __local uint scratch[WG_SCAN_SCRATCH(WG)];
    __local uint is_last;
    __global uint* info = info_all + info_off;
    const uint lid = get_local_id(0);
    for (ulong i = get_global_id(0); i < a_words; i += get_global_size(0)) info_all[clear_a + i] = 0u;
    for (ulong i = get_global_id(0); i < b_words; i += get_global_size(0)) info_all[clear_b + i] = 0u;
    for (uint i = lid; i < PASSES * RADIX; i += WG) bins[i] = 0u;
    barrier(CLK_LOCAL_MEM_FENCE);
    // HIST_KEYS keys per work-item per round, all loaded before any is counted: a load issued
    // after a local atomic waits for it, and one key at a time left this kernel latency-bound.
    const uint stride = get_global_size(0);
    for (uint i0 = get_group_id(0) * WG * HIST_KEYS + lid; i0 < n; i0 += stride * HIST_KEYS) {
        bits_t keys[HIST_KEYS];
#pragma unroll
        for (uint k = 0; k < HIST_KEYS; ++k) {
            const uint i = i0 + k * WG;
            keys[k] = i < n ? src[src_off + i] : 0;
        }
#pragma unroll
        for (uint k = 0; k < HIST_KEYS; ++k) {
            if (i0 + k * WG < n) {
                const bits_t u = key_to_sortable(K_AS_KEY(keys[k]));
#pragma unroll
                for (uint p = 0; p < PASSES; ++p) atomic_inc(&bins[p * RADIX + os_digit(u, p * RADIX_BITS)]);
            }
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint i = lid; i < PASSES * RADIX; i += WG)
        if (bins[i] != 0u) atomic_add(&info[INFO_COUNTS + i], bins[i]);

    // The last work-group to get here sees every other group's counts (each work-item's adds are
    // fenced at device scope before its group takes a ticket) and writes the starts: no second
    // launch.
    clprim_device_fence();
    barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
    if (lid == 0) is_last = atomic_inc(&info[INFO_DONE]) == get_num_groups(0) - 1;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (!is_last) return;
    clprim_device_fence();
    // Every pass's count of digit lid read at once (one round trip, not one per pass), then scanned.
    uint counts[PASSES];
#pragma unroll
    for (uint p = 0; p < PASSES; ++p) counts[p] = lid < RADIX ? atomic_add(&info[INFO_COUNTS + p * RADIX + lid], 0u) : 0u;
    for (uint p = 0; p < PASSES; ++p) {
        const uint c = counts[p];
        uint total;
        const uint start = wg_exclusive_scan_uint(c, scratch, &total);
        if (lid < RADIX) info[INFO_STARTS + p * RADIX + lid] = start;
        if (lid < RADIX && c == n) info[INFO_TRIVIAL(p)] = 1u;
    }
}

#ifdef LB_TRACE
// Measurement only (NVIDIA builds: PTX timers): each tile records when it started, took its id,
// had its keys (warp 0), had ranked them (warp 0), published its counts, began and ended its look-back and finished, on which SM, and how many
// look-back rounds its slowest digit took; the host writes the records out
// (CLPRIM_ONESWEEP_TRACE). They go at trace_off (after the look-back slots): 10 ulongs per tile and pass.
#ifndef MATCH_RANK
#error "LB_TRACE reads NVIDIA's timers: only with MATCH_RANK"
#endif
#define TRACE_WORDS ONESWEEP_TRACE_WORDS
inline ulong os_now(void)
{
    ulong t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}
inline uint os_smid(void)
{
    uint s;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(s));
    return s;
}
#endif

#ifdef MATCH_RANK
// The lanes of this warp whose d equals this lane's (a bit mask by lane).
#ifdef PEERS_MATCH_ANY
// One match.any.sync instruction: short to write, but slow on the H100: a 256 x 16 tile's ranking
// took 8.4 us of its 17.4 us in the pass, against 4.9 us with the votes below (measured with
// CLPRIM_ONESWEEP_TRACE); measurement builds only.
inline uint os_peers(uint d, uint lane, __local uint* ldigits)
{
    (void)lane;
    (void)ldigits;
    uint m;
    asm volatile("match.any.sync.b32 %0, %1, 0xffffffff;" : "=r"(m) : "r"(d));
    return m;
}
#else
// One warp vote per digit bit: the lanes whose bit b equals this lane's are the ballot of bit b
// or its complement, and the peers are the lanes that agree on every bit (RADIX_BITS ballots).
inline uint os_peers(uint d, uint lane, __local uint* ldigits)
{
    (void)lane;
    (void)ldigits;
    uint m = 0xffffffffu;
#pragma unroll
    for (uint b = 0; b < RADIX_BITS; ++b) {
        const uint bit = (d >> b) & 1u;
        uint ones;
        asm volatile("{\n\t.reg .pred p;\n\tsetp.ne.u32 p, %1, 0;\n\tvote.sync.ballot.b32 %0, p, 0xffffffff;\n\t}"
                     : "=r"(ones)
                     : "r"(bit));
        m &= bit ? ones : ~ones;
    }
    return m;
}
#endif
#else
inline uint os_peers(uint d, uint lane, __local uint* ldigits)
{
    barrier(CLK_LOCAL_MEM_FENCE); // the last step's digits have been read
    ldigits[get_local_id(0)] = d;
    barrier(CLK_LOCAL_MEM_FENCE);
    __local const uint* warp_digits = ldigits + (get_local_id(0) - lane);
    uint m = 0;
    for (uint j = 0; j < WARP; ++j) m |= (warp_digits[j] == d ? 1u : 0u) << j;
    return m;
}
#endif

// Ranks one pass's digit of a tile, looks back for its global offsets and scatters it. The status
// words (one buffer, the host's layout): this call's info half at info_off, this pass's look-back
// slots at lookback_off ([tile][digit], zero at launch), and at clear_off the next pass's slots,
// which tile t clears row t of (~0: none; the pass before the next one has finished, so nothing
// reads them now). trace_off: LB_TRACE's records.
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void onesweep_pass(__global const bits_t* src, ulong src_off, __global bits_t* dst, ulong dst_off, uint n,
                   uint pass, uint convert_in, uint convert_out, __global uint* info_all, ulong info_off,
                   __global volatile uint* lookback_all, ulong lookback_off, ulong clear_off, ulong trace_off
#ifdef HAS_VALUES
                   , __global const V* vsrc, ulong vsrc_off, __global V* vdst, ulong vdst_off
#endif
                   )
{
    __local bits_t lkeys[TILE];
#if defined(HAS_VALUES) && (V_PIECE_BYTES > K_BITS / 8)
    __local V_PIECE lvals_own[TILE]; // one piece of every value (declared with its type: aligned)
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
        tile_id = atomic_inc(&info[INFO_TILE_COUNTER(pass)]);
        fb_stalled = 0u;
    }
#ifdef MATCH_RANK
    if (lid == 0) trivial = info[INFO_TRIVIAL(pass)];
#endif
    const uint digit_start = lid < RADIX ? info[INFO_STARTS + pass * RADIX + lid] : 0u;
    barrier(CLK_LOCAL_MEM_FENCE);
    const uint t = tile_id;
    if (clear_off != ~0ul && lid < RADIX) lookback_all[clear_off + (ulong)t * RADIX + lid] = 0u;
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
        const uint lanes_below = (1u << lane) - 1u;
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
            const uint peers = os_peers(d, lane, ldigits);
            const uint leader = 31u - clz(peers); // the highest peer lane updates the counter
#ifdef MATCH_RANK
            uint before = 0;
            if (lane == leader) {
                before = my_counts[d];
                my_counts[d] = before + popcount(peers);
            }
            asm volatile("shfl.sync.idx.b32 %0, %1, %2, 0x1f, 0xffffffff;" : "=r"(before) : "r"(before), "r"(leader));
            asm volatile("bar.warp.sync 0xffffffff;" ::: "memory"); // the update is seen at the next step
#else
            const uint before = my_counts[d];
            barrier(CLK_LOCAL_MEM_FENCE); // every peer has read the counter
            if (lane == leader) my_counts[d] = before + popcount(peers);
#endif
            rank[k] = before + popcount(peers & lanes_below);
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
#if V_PIECE_BYTES > K_BITS / 8
        __local V_PIECE* lvals = lvals_own;
#else
        __local V_PIECE* lvals = (__local V_PIECE*)lkeys;
#endif
#pragma unroll
        for (uint w = 0; w < V_PIECES; ++w) {
#if V_PIECE_BYTES <= K_BITS / 8 || V_PIECES > 1
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
            const ulong tiles = get_num_groups(0);
            __global ulong* rec = (__global ulong*)(lookback_all + trace_off) + ((ulong)pass * tiles + t) * TRACE_WORDS;
            for (uint i = 0; i < 8; ++i) rec[i] = trace_time[i];
            rec[8] = os_smid();
            rec[9] = ((ulong)trace_batches << 32) | trace_waits;
        }
#endif
    }
}
