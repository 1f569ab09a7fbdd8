// clprim::segmented_sort's CPU path (CPU devices by policy, or CLPRIM_SEGMENTED_PATH=cpu): a
// work-item sorts whole segments, one after another, alone (PoCL runs a work-item as plain
// sequential code on one core; many segments keep every core busy).
//
// Required macros (besides segmented_sort.cl's, joined before this file, with SS_CPU_PATH):
//   SS_CPU_RANK    segments of at most this many keys (64 at most): rank sort in private memory
//                  (longer ones: an LSD radix sort on 8-bit digits)
//   SS_CPU_REUSE   segments of at most this many keys use the work-item's own slice of the scratch
//                  (the same for all its segments: in cache), longer ones their own positions
// Scratch tk / tv: n + G * SS_CPU_REUSE keys / values (G work-items): positions [0, n) for the
// segments longer than SS_CPU_REUSE, each its own (segments never overlap where well formed;
// malformed ones stay inside [0, n) all the same), then a slice of SS_CPU_REUSE per work-item.
#ifndef SS_CPU_PATH
#error "segmented_sort_cpu.cl needs SS_CPU_PATH"
#endif
#ifndef SS_CPU_RANK
#error "segmented_sort_cpu.cl needs SS_CPU_RANK"
#endif
#ifndef SS_CPU_REUSE
#error "segmented_sort_cpu.cl needs SS_CPU_REUSE"
#endif
#if SS_CPU_RANK < 1 || SS_CPU_RANK > 64
#error "segmented_sort_cpu.cl: SS_CPU_RANK must be 1 to 64"
#endif

#define SS_DIGITS (K_BITS / 8) // 8-bit digits of the sortable key, least significant first

// A segment (k, v: its keys and values) of len <= W keys (W a constant after inlining: 4, 8, 16,
// 32 or 64): loaded as sortable keys into private memory (padded with the largest key), each
// key's place counted as the keys before it in the stable order (smaller, or equal and
// earlier): W * W compares with no branch, which the compiler vectorizes across i; then every
// key (and value) written to its place. (Insertion sort mispredicts a branch per key and moves
// ~W^2/4 keys one by one.)
inline void ss_cpu_rank(__global K* k, __global SS_V_OR_UINT* v, const uint len, const uint W)
{
    uint place[64];
#if K_BITS <= 32
    // Keys of up to 32 bits: (sortable key << 6 | index) words are all different, so a key's
    // place is the count of smaller words (one compare a pair, on 64-bit lanes).
    ulong a[64];
    for (uint i = 0; i < W; ++i) {
        a[i] = i < len ? ((ulong)key_to_sortable(k[i]) << 6) | i : ~(ulong)0;
        place[i] = 0;
    }
    for (uint j = 0; j < W; ++j) {
        const ulong x = a[j];
        for (uint i = 0; i < W; ++i) place[i] += (uint)(x < a[i]);
    }
#define SS_RANK_KEY(i) ((K_UNSIGNED)(a[i] >> 6))
#else
    K_UNSIGNED a[64];
    for (uint i = 0; i < W; ++i) {
        a[i] = i < len ? key_to_sortable(k[i]) : (K_UNSIGNED)(~(K_UNSIGNED)0);
        place[i] = 0;
    }
    for (uint j = 0; j < W; ++j) {
        const K_UNSIGNED x = a[j];
        for (uint i = 0; i < W; ++i) place[i] += (uint)(x < a[i]) + (uint)((x == a[i]) & (j < i));
    }
#define SS_RANK_KEY(i) (a[i])
#endif
#ifdef SS_HAS_VALUES
    SS_V pv[64];
    for (uint i = 0; i < len; ++i) pv[i] = v[i];
    for (uint i = 0; i < len; ++i) v[place[i]] = pv[i];
#endif
    for (uint i = 0; i < len; ++i) k[place[i]] = sortable_to_key(SS_RANK_KEY(i));
#undef SS_RANK_KEY
}

// A segment of len keys: LSD radix sort on 8-bit digits. One read counts every digit's
// histogram; a digit that is the same in every key (its bucket holds the whole segment) needs
// no pass. The passes scatter stably between the segment and a slice of the scratch (the
// work-item's own, or the segment's positions in it); with an odd number of them the keys are
// first copied to the scratch, so the last pass ends in the segment.
// Overlapping (malformed) segments may be changed by another work-item between the count and a
// pass, so the counts may not fit the keys: every position is clamped into the segment.
inline void ss_cpu_radix(__global K* k, __global SS_V_OR_UINT* v, __global K* t, __global SS_V_OR_UINT* tv,
                         const uint len)
{
    // (k, v: the segment; t, tv: its slice of the scratch; indices from the segment's start)
    uint hist[SS_DIGITS * 256];
    for (uint i = 0; i < SS_DIGITS * 256; ++i) hist[i] = 0;
    for (uint i = 0; i < len; ++i) {
        const K_UNSIGNED u = key_to_sortable(k[i]);
#pragma unroll
        for (uint d = 0; d < SS_DIGITS; ++d) ++hist[d * 256 + (uint)((u >> (8 * d)) & 0xff)];
    }
    const K_UNSIGNED first = key_to_sortable(k[0]);
    uint passes = 0, need = 0; // need: bit d set where digit d takes a pass
    for (uint d = 0; d < SS_DIGITS; ++d) {
        if (hist[d * 256 + (uint)((first >> (8 * d)) & 0xff)] != len) {
            need |= 1u << d;
            ++passes;
        }
    }
    if (passes == 0) return; // every key equal
    __global K* src = k;
    __global K* dst = t;
    __global SS_V_OR_UINT* sv = v;
    __global SS_V_OR_UINT* dv = tv;
    if (passes & 1) {
        for (uint i = 0; i < len; ++i) {
            t[i] = k[i];
#ifdef SS_HAS_VALUES
            tv[i] = v[i];
#endif
        }
        src = t;
        dst = k;
        sv = tv;
        dv = v;
    }
    for (uint d = 0; d < SS_DIGITS; ++d) {
        if (!(need & (1u << d))) continue;
        uint* h = hist + d * 256;
        uint sum = 0;
        for (uint g = 0; g < 256; ++g) {
            const uint c = h[g];
            h[g] = sum;
            sum += c;
        }
        const uint shift = 8 * d;
        for (uint i = 0; i < len; ++i) {
            const K key = src[i];
            const uint g = (uint)((key_to_sortable(key) >> shift) & 0xff);
            const uint o = min(h[g]++, len - 1); // (see above: inside the segment always)
            dst[o] = key;
#ifdef SS_HAS_VALUES
            dv[o] = sv[i];
#endif
        }
        __global K* tkp = src;
        src = dst;
        dst = tkp;
        __global SS_V_OR_UINT* tvp = sv;
        sv = dv;
        dv = tvp;
    }
}

// The CPU path's one class (every segment of 2 keys up to the policy's longest(n)): work-item w
// of G takes list entries [count*w/G, count*(w+1)/G) and sorts each segment alone, by its
// length: the rank sort in private memory up to SS_CPU_RANK keys, else the radix sort.
__kernel void segsort_cpu(__global K* keys, ulong koff, __global SS_V_OR_UINT* values, ulong voff, ulong n,
                          __global const OFF* offsets, ulong ooff, __global const uint* list,
                          __global const uint* table, uint items, uint cls, __global K* tk,
                          __global SS_V_OR_UINT* tv)
{
    const ulong w = get_global_id(0), workers = get_global_size(0);
    const uint start = table[cls * items];
    const ulong count = table[(cls + 1) * items] - start;
    const ulong lo_entry = count * w / workers, hi_entry = count * (w + 1) / workers;
    __global K* kd = keys + koff;
    __global SS_V_OR_UINT* vd = values + voff;
    __global K* own_k = tk + n + w * SS_CPU_REUSE; // this work-item's own slice of the scratch
    __global SS_V_OR_UINT* own_v = tv + n + w * SS_CPU_REUSE;
    for (ulong en = lo_entry; en < hi_entry; ++en) {
        ulong b, e;
        ss_segment(offsets, ooff, list[start + en], n, &b, &e);
        const ulong len = e - b;
        if (len <= 4 && len <= SS_CPU_RANK) ss_cpu_rank(kd + b, vd + b, (uint)len, 4);
        else if (len <= 8 && len <= SS_CPU_RANK) ss_cpu_rank(kd + b, vd + b, (uint)len, 8);
        else if (len <= 16 && len <= SS_CPU_RANK) ss_cpu_rank(kd + b, vd + b, (uint)len, 16);
        else if (len <= 32 && len <= SS_CPU_RANK) ss_cpu_rank(kd + b, vd + b, (uint)len, 32);
        else if (len <= SS_CPU_RANK) ss_cpu_rank(kd + b, vd + b, (uint)len, 64);
        else if (len <= SS_CPU_REUSE) ss_cpu_radix(kd + b, vd + b, own_k, own_v, (uint)len);
        else ss_cpu_radix(kd + b, vd + b, tk + b, tv + b, (uint)len);
    }
}
