// clprim::segmented_sort, segments longer than a work-group's tile: an LSD radix sort of all of
// them at once, in which every segment keeps its own digit counts (a segmented Zagha & Blelloch:
// count, scan, scatter per digit), so a thousand long segments cost one sort of 4-byte keys and
// not a sort of (segment, key) words nor a thousand calls.
//
// The long segments are cut into tiles of SSR_TILE keys, a segment's tiles numbered from its
// first tile F (tile_seg[t] names its segment; seg[r] = (begin, length, packed start P, F)).
// Per digit:
//   ssr_count    tile i of segment r counts its digits into counts[F*RADIX + d*T + i] (T: the
//                segment's tiles): segment-major, digit-major inside a segment.
//   (host)       clprim's exclusive scan of the table: as every segment's counts add up to its
//                length, entry (r, d, i) becomes P + (keys of r before digit d's keys of tile i).
//   ssr_scatter  ranks the tile by digit in local memory (stable) and writes key j of digit d to
//                position scanned(r, d, i) - P + (j - first j of digit d) of its segment.
// Passes alternate between the caller's range (keys at begin) and a packed temporary (keys at
// P), an even number of them, so the last writes the caller's range.
//
// Required macros (besides K's type macros; sort_key_order.cl, workgroup_scan.cl and
// workgroup_histogram.cl joined before this file):
//   SSR_WG         work-items per group
//   SSR_KPT        keys per work-item (SSR_TILE = SSR_WG * SSR_KPT < 65536)
//   SSR_BITS       digit width (a multiple of 4)
//   SSR_HAS_VALUES (optional) values travel with their keys, moved as SSR_V (their bytes)
#ifndef SSR_WG
#error "segmented_sort_lsd.cl needs SSR_WG"
#endif
#ifndef SSR_KPT
#error "segmented_sort_lsd.cl needs SSR_KPT"
#endif
#ifndef SSR_BITS
#error "segmented_sort_lsd.cl needs SSR_BITS"
#endif
#if defined(SSR_HAS_VALUES) && !defined(SSR_V)
#error "segmented_sort_lsd.cl needs SSR_V with SSR_HAS_VALUES"
#endif

#define SSR_RADIX (1u << SSR_BITS)
#define SSR_TILE (SSR_WG * SSR_KPT)
#if SSR_TILE >= 65536
#error "segmented_sort_lsd.cl: tiles of fewer than 65536 keys (16-bit local indices)"
#endif
#define SSR_SUB_BITS 4 // the tile is ranked 4 bits at a time: a (16 x SSR_WG) counter table
#define SSR_SUB_BINS (1u << SSR_SUB_BITS)
#define SSR_PAD(i) ((i) + ((i) >> 5)) // a spare word per 32 against bank conflicts

typedef K_UNSIGNED ssr_bits;
#ifdef SSR_HAS_VALUES
#define LIDX_ARG lidx
#else
#define LIDX_ARG 0 // no origins to move
#endif

// Tile t's place: its segment's record s, its number i inside the segment, its key count m, its
// first key in the source (the caller's range or the packed temporary).
#define SSR_TILE_INFO(src_packed)                                                                  \
    const uint t = get_group_id(0);                                                                \
    const uint4 s = seg[tile_seg[t]]; /* begin, length, packed start, first tile */               \
    const uint i = t - s.w;                                                                        \
    const uint T = (s.y + SSR_TILE - 1) / SSR_TILE;                                                \
    const uint m = min((uint)SSR_TILE, s.y - i * SSR_TILE);                                        \
    const ulong first = (ulong)((src_packed) ? s.z : s.x) + (ulong)i * SSR_TILE

inline ssr_bits ssr_load(__global const ssr_bits* src, ulong i, uint convert)
{
    const ssr_bits u = src[i];
    return convert ? key_to_sortable(K_AS_KEY(u)) : u;
}

inline uint ssr_digit(ssr_bits u, uint shift) { return (uint)(u >> shift) & (SSR_RADIX - 1u); }

// The MSD form's digit where the host passes SSR_SHIFT_FROM_SPAN: the SSR_BITS bits that end at
// the highest bit in which some long segment's keys differ (ssr_span's word; the lowest digit
// where they differ in fewer bits, any digit where they do not differ at all).
#define SSR_SHIFT_FROM_SPAN 0xffffffffu
inline uint ssr_shift(uint shift, __global const uint* span)
{
    if (shift != SSR_SHIFT_FROM_SPAN) return shift;
    const ulong d = ((ulong)span[1] << 32) | span[0];
    const uint top = d == 0 ? 0u : 64u - (uint)clz(d); // bits up to the highest differing one
    return top > SSR_BITS ? top - SSR_BITS : 0u;
}

// Ranks the tile in lkeys (and the origins in lidx) stably by the SSR_BITS-bit digit at shift, in
// place, 4 bits at a time: work-item w counts its SSR_KPT consecutive keys into column w of a
// sub-digit-major table; the table's exclusive scan gives every key the number of keys before it
// in (sub-digit, position) order. Starts after and ends with a barrier.
inline void ssr_rank(__local ssr_bits* lkeys, __local ushort* lidx, __local uint* table, __local uint* scratch,
                     uint shift)
{
    const uint lid = get_local_id(0);
    for (uint sub = 0; sub < SSR_BITS; sub += SSR_SUB_BITS) {
        ssr_bits keys[SSR_KPT];
#ifdef SSR_HAS_VALUES
        ushort idx[SSR_KPT];
#endif
        for (uint b = 0; b < SSR_SUB_BINS; ++b) table[SSR_PAD(b * SSR_WG + lid)] = 0;
        for (uint k = 0; k < SSR_KPT; ++k) {
            keys[k] = lkeys[SSR_PAD(lid * SSR_KPT + k)];
#ifdef SSR_HAS_VALUES
            idx[k] = lidx[SSR_PAD(lid * SSR_KPT + k)];
#endif
            table[SSR_PAD(((uint)(keys[k] >> (shift + sub)) & (SSR_SUB_BINS - 1u)) * SSR_WG + lid)] += 1u;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        uint sum = 0;
        for (uint q = 0; q < SSR_SUB_BINS; ++q) sum += table[SSR_PAD(lid * SSR_SUB_BINS + q)];
        uint total;
        uint prefix = wg_exclusive_scan_uint(sum, scratch, &total);
        for (uint q = 0; q < SSR_SUB_BINS; ++q) {
            const uint c = table[SSR_PAD(lid * SSR_SUB_BINS + q)];
            table[SSR_PAD(lid * SSR_SUB_BINS + q)] = prefix;
            prefix += c;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        for (uint k = 0; k < SSR_KPT; ++k) {
            const uint pos = table[SSR_PAD(((uint)(keys[k] >> (shift + sub)) & (SSR_SUB_BINS - 1u)) * SSR_WG + lid)]++;
            lkeys[SSR_PAD(pos)] = keys[k];
#ifdef SSR_HAS_VALUES
            lidx[SSR_PAD(pos)] = idx[k];
#endif
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
}

// One tile's digit counts (work-group histogram in local memory), stored segment-major.
__kernel __attribute__((reqd_work_group_size(SSR_WG, 1, 1)))
void ssr_count(__global const ssr_bits* src, ulong src_off, uint src_packed, uint convert, uint shift_arg,
               __global const uint* tile_seg, __global const uint4* seg, __global uint* counts,
               __global const uint* span)
{
    __local uint bins[WG_HIST_LOCAL_SIZE(SSR_RADIX)];
    SSR_TILE_INFO(src_packed);
    const uint shift = ssr_shift(shift_arg, span);
    const uint lid = get_local_id(0);
    wg_hist_clear(bins, SSR_RADIX);
    ssr_bits keys[SSR_KPT]; // every load issued before the first local atomic
    for (uint k = 0; k < SSR_KPT; ++k) {
        const uint j = k * SSR_WG + lid;
        keys[k] = j < m ? src[src_off + first + j] : 0;
    }
    for (uint k = 0; k < SSR_KPT; ++k)
        if (k * SSR_WG + lid < m)
            wg_hist_add(bins, SSR_RADIX, ssr_digit(convert ? key_to_sortable(K_AS_KEY(keys[k])) : keys[k], shift));
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint d = lid; d < SSR_RADIX; d += SSR_WG) counts[s.w * SSR_RADIX + d * T + i] = wg_hist_count(bins, d);
}

// Ranks the tile stably by its digit at shift (4 bits at a time: work-item w counts its SSR_KPT
// consecutive keys into column w of a sub-digit-major table; the table's exclusive scan gives
// every key the number of keys before it in (sub-digit, position) order) and writes every key
// (and value) to its place in its segment: coalesced runs per digit.
__kernel __attribute__((reqd_work_group_size(SSR_WG, 1, 1)))
void ssr_scatter(__global const ssr_bits* src, ulong src_off, uint src_packed, __global ssr_bits* dst, ulong dst_off,
                 uint dst_packed, uint convert_in, uint convert_out, uint shift_arg, __global const uint* tile_seg,
                 __global const uint4* seg, __global const uint* scanned, __global const uint* span
#ifdef SSR_HAS_VALUES
                 , __global const SSR_V* vsrc, ulong vsrc_off, __global SSR_V* vdst, ulong vdst_off
#endif
                 )
{
    __local ssr_bits lkeys[SSR_PAD(SSR_TILE) + 1];
#ifdef SSR_HAS_VALUES
    __local ushort lidx[SSR_PAD(SSR_TILE) + 1]; // where in the tile each ranked key came from
#endif
    __local uint table[SSR_PAD(SSR_SUB_BINS * SSR_WG) + 1];
    __local uint scratch[WG_SCAN_SCRATCH(SSR_WG)];
    __local uint run_base[SSR_RADIX];
    SSR_TILE_INFO(src_packed);
    const uint lid = get_local_id(0);
    const uint shift = ssr_shift(shift_arg, span);

    // Missing keys of a segment's last tile are all-ones: they rank after every real key.
    for (uint k = 0; k < SSR_KPT; ++k) {
        const uint j = k * SSR_WG + lid;
        lkeys[SSR_PAD(j)] = j < m ? ssr_load(src, src_off + first + j, convert_in) : ~(ssr_bits)0;
#ifdef SSR_HAS_VALUES
        lidx[SSR_PAD(j)] = (ushort)j;
#endif
    }
    barrier(CLK_LOCAL_MEM_FENCE);

    ssr_rank(lkeys, LIDX_ARG, table, scratch, shift);

    // Where each digit's run of the ranked tile starts in the segment (real keys are j < m).
    for (uint k = 0; k < SSR_KPT; ++k) {
        const uint j = k * SSR_WG + lid;
        if (j < m) {
            const uint d = ssr_digit(lkeys[SSR_PAD(j)], shift);
            if (j == 0 || ssr_digit(lkeys[SSR_PAD(j - 1)], shift) != d)
                run_base[d] = scanned[s.w * SSR_RADIX + d * T + i] - s.z - j;
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    const ulong out = dst_off + (dst_packed ? s.z : s.x);
    for (uint k = 0; k < SSR_KPT; ++k) {
        const uint j = k * SSR_WG + lid;
        if (j < m) {
            const ssr_bits u = lkeys[SSR_PAD(j)];
            const ulong pos = out + (run_base[ssr_digit(u, shift)] + j);
            dst[pos] = convert_out ? K_AS_UNSIGNED(sortable_to_key(u)) : u;
#ifdef SSR_HAS_VALUES
            vdst[vdst_off + pos - dst_off] = vsrc[vsrc_off + first + lidx[SSR_PAD(j)]];
#endif
        }
    }
}

// The MSD form's digit (by policy): the OR over every key of the long segments of its sortable
// bits XOR its segment's first key's, into span[0] (low 32 bits) and span[1] (high), zeroed
// before: a work-group's OR in local memory, then one atomic per word.
__kernel __attribute__((reqd_work_group_size(SSR_WG, 1, 1)))
void ssr_span(__global const ssr_bits* src, ulong src_off, __global const uint* tile_seg, __global const uint4* seg,
              __global uint* span)
{
    __local uint part[2];
    SSR_TILE_INFO(0);
    const uint lid = get_local_id(0);
    if (lid < 2) part[lid] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    const ssr_bits ref = ssr_load(src, src_off + s.x, 1);
    ssr_bits acc = 0;
    for (uint k = 0; k < SSR_KPT; ++k) {
        const uint j = k * SSR_WG + lid;
        if (j < m) acc |= ssr_load(src, src_off + first + j, 1) ^ ref;
    }
    const ulong wide = (ulong)acc;
    if ((uint)wide != 0) atomic_or(&part[0], (uint)wide);
    if ((uint)(wide >> 32) != 0) atomic_or(&part[1], (uint)(wide >> 32));
    barrier(CLK_LOCAL_MEM_FENCE);
    if (lid < 2 && part[lid] != 0) atomic_or(span + lid, part[lid]);
}

// The MSD form (segmented_msd_sort): after one pass on the top digit into the packed temporary,
// digit d of long segment r is the sub-segment starting at scanned(r, d, 0) (the exclusive scan
// of the segment-major table from 0 makes that P + keys of r with a smaller digit); one offsets
// list of count * SSR_RADIX + 1 entries in packed positions, ending at m, for the second level.
__kernel void ssr_bucket_offsets(__global const uint4* seg, uint count, __global const uint* scanned, uint m,
                                 __global uint* sub)
{
    const uint g = get_global_id(0);
    if (g > count * SSR_RADIX) return;
    if (g == count * SSR_RADIX) {
        sub[g] = m;
        return;
    }
    const uint4 s = seg[g / SSR_RADIX];
    const uint T = (s.y + SSR_TILE - 1) / SSR_TILE;
    sub[g] = scanned[s.w * SSR_RADIX + (g % SSR_RADIX) * T];
}

// The MSD form's last step: every tile of the packed temporary back to its segment's place in the
// caller's range (a copy per tile, used where the long segments are not one run there).
__kernel __attribute__((reqd_work_group_size(SSR_WG, 1, 1)))
void ssr_unpack(__global const ssr_bits* src, __global ssr_bits* dst, ulong dst_off, __global const uint* tile_seg,
                __global const uint4* seg
#ifdef SSR_HAS_VALUES
                , __global const SSR_V* vsrc, __global SSR_V* vdst, ulong vdst_off
#endif
                )
{
    SSR_TILE_INFO(1);
    const ulong out = (ulong)s.x + (ulong)i * SSR_TILE;
    for (uint k = 0; k < SSR_KPT; ++k) {
        const uint j = k * SSR_WG + get_local_id(0);
        if (j < m) {
            dst[dst_off + out + j] = src[first + j];
#ifdef SSR_HAS_VALUES
            vdst[vdst_off + out + j] = vsrc[first + j];
#endif
        }
    }
}
