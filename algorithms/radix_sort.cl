// LSD radix sort, one pass per RADIX_BITS-wide digit (Zagha & Blelloch): radix_count counts the
// digits of each tile with the work-group histogram, the host scans the digit-major
// (digit x tile) table with the device-wide scan, radix_scatter ranks each tile by digit in
// local memory (work-group scan, stable) and writes it out in contiguous runs per digit.
//
// Keys travel as their sortable bits (key_to_sortable, sort_key_order.cl); the first pass reads
// the caller's keys (convert_in) and the last writes keys back (convert_out).
// Build macros: K... (key type), WG (work-group size), KPT (keys per work-item), RADIX_BITS
// (a multiple of RANK_BITS), HAS_VALUES and V (uint or ulong: values only move, as bits).
// Variants (the host picks them, CLPRIM_RADIX_VARIANT overrides): RANK_PACKED keeps two 16-bit
// rank counters per table word (bins b and b + RANK_BINS/2: half the table to clear and scan);
// STAGE_VALUES (only where V is no wider than the key bits) reads each tile's values coalesced
// into local memory, over the keys' tile once the keys are written, and gathers them from there.
// BLOCKED_LOAD reads each work-item's KPT consecutive keys straight from global memory into the
// first rank sub-pass (vload4 on full tiles) instead of through the local tile: one local round
// trip and one barrier fewer.
// Needs sort_key_order.cl, workgroup_scan.cl and workgroup_histogram.cl joined before it.

#define RADIX (1u << RADIX_BITS)
#define DIGIT_MASK (RADIX - 1u)
#define TILE (WG * KPT)
// The tile is ranked in sub-passes of RANK_BITS bits: a (RANK_BINS x WG) counter table fits in
// local memory where a (RADIX x WG) one would not.
#define RANK_BITS 4
#define RANK_BINS (1u << RANK_BITS)
#ifdef RANK_PACKED
#define RANK_LANES (RANK_BINS / 2u) // table words per work-item column
#if WG * KPT >= 65536
#error "RANK_PACKED needs tiles of fewer than 65536 keys (16-bit counters)"
#endif
#else
#define RANK_LANES RANK_BINS
#endif
// One spare word per 32 so the scan over each work-item's RANK_BINS consecutive table entries
// does not hit the same bank from every work-item.
#define PAD(i) ((i) + ((i) >> 5))
#define TABLE_SIZE (PAD(RANK_LANES * WG) + 1)
// The tile is padded the same way: work-item lid reads positions lid*KPT+k, a stride of KPT
// words that would otherwise put a whole warp on one or two banks.
#define TILE_SIZE (PAD(TILE) + 1)

typedef K_UNSIGNED bits_t;

inline bits_t sortable_bits(bits_t u, uint convert)
{
    return convert ? key_to_sortable(K_AS_KEY(u)) : u;
}

inline bits_t load_sortable(__global const bits_t* src, ulong i, uint convert)
{
    return sortable_bits(src[i], convert);
}

inline uint digit_of(bits_t u, uint shift) { return (uint)(u >> shift) & DIGIT_MASK; }

// counts[d * num_groups + g] = keys of tile g whose digit at shift is d. With want_mask, also
// folds OR and AND of every key's sortable bits into mask[0..1] / mask[2..3] (low, high word):
// the bits where they differ tell the host which digits are not the same for every key.
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void radix_count(__global const bits_t* src, ulong src_off, uint n, uint convert, uint shift,
                 __global uint* counts, __global uint* mask, uint want_mask)
{
    __local uint bins[WG_HIST_LOCAL_SIZE(RADIX)];
    __local uint lmask[4];
    const uint lid = get_local_id(0);
    const uint g = get_group_id(0);
    const uint base = g * TILE;
    if (lid == 0) {
        lmask[0] = 0u; lmask[1] = 0u; lmask[2] = ~0u; lmask[3] = ~0u;
    }
    wg_hist_clear(bins, RADIX); // ends with a barrier: lmask is set too
    // All KPT loads are issued before the first count: a load after a local atomic waits for it,
    // and KPT memory latencies in a row made this kernel latency-bound on the H100. (After the
    // barrier, not before it: PoCL keeps private arrays that live across a barrier in memory.)
    bits_t keys[KPT];
#pragma unroll
    for (uint k = 0; k < KPT; ++k) {
        const uint i = base + k * WG + lid; // strided: the group reads its tile coalesced
        keys[k] = i < n ? src[src_off + i] : 0;
    }
    bits_t any = 0, all = ~(bits_t)0;
#pragma unroll
    for (uint k = 0; k < KPT; ++k) {
        if (base + k * WG + lid < n) {
            const bits_t u = sortable_bits(keys[k], convert);
            wg_hist_add(bins, RADIX, digit_of(u, shift));
            any |= u;
            all &= u;
        }
    }
    if (want_mask) {
        atomic_or(&lmask[0], (uint)any);
        atomic_and(&lmask[2], (uint)all);
#if K_BITS == 64
        atomic_or(&lmask[1], (uint)(any >> 32));
        atomic_and(&lmask[3], (uint)(all >> 32));
#endif
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    wg_hist_flush_digit_major(bins, RADIX, counts, g, get_num_groups(0));
    if (want_mask && lid == 0) {
        atomic_or(&mask[0], lmask[0]);
        atomic_or(&mask[1], lmask[1]);
        atomic_and(&mask[2], lmask[2]);
        atomic_and(&mask[3], lmask[3]);
    }
}

// Ranks tile g by its digit at shift (stable) and writes key j of the ranked tile to
// offsets[d * num_groups + g] + (j - first position of digit d in the ranked tile), where
// offsets is the exclusive scan of radix_count's table.
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void radix_scatter(__global const bits_t* src, ulong src_off, __global bits_t* dst, ulong dst_off,
                   uint n, uint convert_in, uint convert_out, uint shift,
                   __global const uint* offsets
#ifdef HAS_VALUES
                   , __global const V* vsrc, ulong vsrc_off, __global V* vdst, ulong vdst_off
#endif
                   )
{
    __local bits_t lkeys[TILE_SIZE];
#ifdef HAS_VALUES
    __local ushort lidx[TILE_SIZE]; // where in the tile each key came from: its value is gathered at the end
#endif
    __local uint table[TABLE_SIZE];
    __local uint scratch[WG_SCAN_SCRATCH(WG)];
    __local uint run_base[RADIX];

    const uint lid = get_local_id(0);
    const uint g = get_group_id(0);
    const uint num_groups = get_num_groups(0);
    const uint base = g * TILE;
    const uint m = min((uint)TILE, n - base); // keys in this tile

    // Coalesced load. Missing keys of the last tile become all-ones: they rank after every real
    // key (largest digit, and after real keys of that digit by stability) and are never written.
#ifndef BLOCKED_LOAD
    for (uint k = 0; k < KPT; ++k) {
        const uint j = k * WG + lid;
        lkeys[PAD(j)] = (j < m) ? load_sortable(src, src_off + base + j, convert_in) : ~(bits_t)0;
#ifdef HAS_VALUES
        lidx[PAD(j)] = (ushort)j;
#endif
    }
    barrier(CLK_LOCAL_MEM_FENCE);
#endif

    // Local LSD over the digit, RANK_BITS at a time. Work-item lid owns tile positions
    // [lid*KPT, lid*KPT+KPT) and column lid of the digit-major table, so the scanned table gives
    // every key the number of keys before it in (sub-digit, work-item, position) order: stable.
#pragma unroll
    for (uint sub = 0; sub < RADIX_BITS; sub += RANK_BITS) {
        bits_t keys[KPT];
#ifdef HAS_VALUES
        ushort idx[KPT];
#endif
        for (uint b = 0; b < RANK_LANES; ++b) table[PAD(b * WG + lid)] = 0;
#ifdef BLOCKED_LOAD
        if (sub == 0) {
            const uint j0 = lid * KPT;
#if KPT % 4 == 0
            if (m == TILE) {
                for (uint k = 0; k < KPT; k += 4) {
                    const CLPRIM_CAT(K_UNSIGNED, 4) v = vload4(0, src + src_off + base + j0 + k);
                    keys[k] = sortable_bits(v.x, convert_in);
                    keys[k + 1] = sortable_bits(v.y, convert_in);
                    keys[k + 2] = sortable_bits(v.z, convert_in);
                    keys[k + 3] = sortable_bits(v.w, convert_in);
                }
            } else
#endif
            {
                for (uint k = 0; k < KPT; ++k)
                    keys[k] = (j0 + k < m) ? load_sortable(src, src_off + base + j0 + k, convert_in) : ~(bits_t)0;
            }
        }
#endif
        for (uint k = 0; k < KPT; ++k) {
#ifdef BLOCKED_LOAD
            if (sub == 0) {
#ifdef HAS_VALUES
                idx[k] = (ushort)(lid * KPT + k);
#endif
            } else
#endif
            {
                keys[k] = lkeys[PAD(lid * KPT + k)];
#ifdef HAS_VALUES
                idx[k] = lidx[PAD(lid * KPT + k)];
#endif
            }
            const uint b = (uint)(keys[k] >> (shift + sub)) & (RANK_BINS - 1u);
            // own column: no other work-item touches it
#ifdef RANK_PACKED
            table[PAD((b & (RANK_LANES - 1u)) * WG + lid)] += 1u << ((b / RANK_LANES) * 16u);
#else
            table[PAD(b * WG + lid)] += 1u;
#endif
        }
        barrier(CLK_LOCAL_MEM_FENCE);

        // Exclusive scan of the table in digit-major order: each work-item sums RANK_LANES
        // consecutive entries, the work-group scan gives the sums before them. Packed, the low
        // halves never carry (they add up to at most TILE < 65536 keys); the high halves (bins
        // RANK_LANES..) start after every key of the low bins: the low half of the total.
        uint sum = 0;
        for (uint t = 0; t < RANK_LANES; ++t) sum += table[PAD(lid * RANK_LANES + t)];
        uint total;
        uint prefix = wg_exclusive_scan_uint(sum, scratch, &total);
#ifdef RANK_PACKED
        prefix += (total & 0xFFFFu) << 16;
#endif
        for (uint t = 0; t < RANK_LANES; ++t) {
            const uint c = table[PAD(lid * RANK_LANES + t)];
            table[PAD(lid * RANK_LANES + t)] = prefix;
            prefix += c;
        }
        barrier(CLK_LOCAL_MEM_FENCE); // table scanned; every work-item has its keys in registers

        for (uint k = 0; k < KPT; ++k) {
            const uint b = (uint)(keys[k] >> (shift + sub)) & (RANK_BINS - 1u);
#ifdef RANK_PACKED
            const uint w = PAD((b & (RANK_LANES - 1u)) * WG + lid);
            const uint hs = (b / RANK_LANES) * 16u;
            const uint tw = table[w];
            const uint pos = (tw >> hs) & 0xFFFFu;
            table[w] = tw + (1u << hs);
#else
            const uint pos = table[PAD(b * WG + lid)]++;
#endif
            lkeys[PAD(pos)] = keys[k];
#ifdef HAS_VALUES
            lidx[PAD(pos)] = idx[k];
#endif
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }

    // The ranked tile is sorted by digit: where a digit's run starts, record where its keys go.
    // Each work-item keeps its keys (in the order it writes them) and their digits in registers.
    bits_t out_keys[KPT];
    uint out_digits[KPT];
    for (uint k = 0; k < KPT; ++k) {
        const uint j = k * WG + lid;
        const bits_t u = lkeys[PAD(j)];
        const uint d = digit_of(u, shift);
        out_keys[k] = u;
        out_digits[k] = d;
        if (j < m && (j == 0 || digit_of(lkeys[PAD(j - 1)], shift) != d))
            run_base[d] = offsets[d * num_groups + g] - j;
    }
    barrier(CLK_LOCAL_MEM_FENCE);

    // Consecutive work-items write consecutive positions of a digit's run: coalesced writes.
#if defined(HAS_VALUES) && defined(STAGE_VALUES)
    uint vpos[KPT];
#endif
    for (uint k = 0; k < KPT; ++k) {
        const uint j = k * WG + lid;
        if (j < m) {
            const bits_t u = out_keys[k];
            const uint pos = run_base[out_digits[k]] + j;
            dst[dst_off + pos] = convert_out ? K_AS_UNSIGNED(sortable_to_key(u)) : u;
#ifdef HAS_VALUES
#ifdef STAGE_VALUES
            vpos[k] = pos;
#else
            vdst[vdst_off + pos] = vsrc[vsrc_off + base + lidx[PAD(j)]];
#endif
#endif
        }
    }
#if defined(HAS_VALUES) && defined(STAGE_VALUES)
    // The keys are out: their local tile holds the values now, read coalesced, then each value
    // goes where its key went. (No barrier first: nobody has read lkeys since the last one.)
    __local V* lvals = (__local V*)lkeys;
    for (uint k = 0; k < KPT; ++k) {
        const uint j = k * WG + lid;
        if (j < m) lvals[PAD(j)] = vsrc[vsrc_off + base + j];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint k = 0; k < KPT; ++k) {
        const uint j = k * WG + lid;
        if (j < m) vdst[vdst_off + vpos[k]] = lvals[PAD(lidx[PAD(j)])];
    }
#endif
}
