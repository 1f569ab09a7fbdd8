// One-sweep LSD radix sort (Adinets & Merrill, "Onesweep: A Faster Least Significant Digit Radix
// Sort for GPUs", 2022): one kernel per digit, each reading and writing every key once.
//
//   onesweep_histogram  reads the keys once and counts the digits of EVERY pass at once; the last
//                       work-group to finish turns each pass's counts into digit starts (the
//                       position of the first key of each digit in that pass's output).
//   onesweep_pass       (radix_onesweep_pass.cl) per pass: a tile ranks its keys by digit in
//                       local memory (stable), then finds, per digit, how many keys of that
//                       digit the earlier tiles hold by a
//                       decoupled look-back (lookback.cl, one look-back per digit: work-item d
//                       looks back over digit d's slots), then writes each key to
//                       digit start + keys of its digit in earlier tiles + its rank in the tile.
// The textbook pass (radix_sort.cl: count, scan the digit table, scatter) reads the keys twice and
// needs three launches; here a pass is one launch and one read.
//
// Ranking (stable): the tile is split into warps of 32 work-items; warp w owns the 32*KPT keys
// [w*32*KPT, (w+1)*32*KPT) and ranks them 32 at a time (key k*32 + lane at step k) with
// warp_rank.cl (warp votes on NVIDIA: MATCH_RANK brings WARP_RANK_VOTES; a portable ranking
// through local memory elsewhere). Afterwards a scan over warps (per digit) and over digits (per
// tile) turns the warp counters into positions in the tile.
//
// Build macros: K... (key type), WG (work-group size, a multiple of 32, >= RADIX), KPT (keys per
// work-item), RADIX_BITS, PASSES, HAS_VALUES with V, V_BYTES (values only move, as bits: uchar to
// ulong, uint4 or uint8 for 16- and 32-byte vector values) and V_PIECE_BYTES (the values go
// through local memory in pieces of this many bytes, V_BYTES by default), MATCH_RANK;
// for measurements only: WARP_RANK_MATCH_ANY (NVIDIA ranking by match.any.sync) and LB_TRACE (a
// per-tile timeline, see below). Needs sort_key_order.cl, workgroup_scan.cl, lookback.cl and
// radix_onesweep_layout.cl joined before it. The pass kernel is radix_onesweep_pass.cl (after
// warp_rank.cl, with WARP_RANK_BITS = RADIX_BITS), and the 8-bit counting sort radix_counting.cl,
// joined after it.
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

