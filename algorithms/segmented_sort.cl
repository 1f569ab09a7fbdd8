// clprim::segmented_sort / segmented_sort_by_key: every segment [offsets[s], offsets[s+1]) sorted
// on its own, stably, in the library's key order (sort_key_order.cl, joined before this file).
//
// Required macros (besides K's type macros and sort_key_order.cl's):
//   OFF            the caller's offset type (uint or ulong)
//   SS_TILE        elements one work-group sorts in local memory at a time (a power of two)
//   SS_WG          work-items of segsort_local (divides SS_TILE / 2)
//   SS_MIN_SLICE   the smallest slice (segments per round of segsort_local: SS_TILE / slice)
//   SS_CPU_PATH    (optional) leave segsort_local out (segmented_sort_cpu.cl's segsort_cpu instead)
//   SS_HAS_VALUES  (optional) values travel with their keys, moved as SS_V (uint or ulong: the
//                  value's bytes; wider values would be a wider SS_V)
//
// Tiny segments (class 1, GPUs, by policy) are counted but not listed (segsort_ids' `tiny`): a
// kernel that takes every segment by its number sorts those short enough (coalesced loads of
// consecutive segments, no list to write and read): segmented_sort_tiny.cl, or segsort_local's
// direct mode.
// Binning (segmented_sort_bin.cl): segments fall in size classes (class 0: longer than the
// largest slice, for the device-wide sort; class c > 0: at most the c-th slice; segments of 0 or
// 1 element in none), counted and listed on the device.
// Each class then has its own strategy: segsort_local (GPUs) sorts SS_TILE / slice segments per
// work-group round, each padded to its slice, with one bitonic network over the whole tile;
// segsort_cpu (CPU devices, segmented_sort_cpu.cl) gives each work-item a run of the list and
// sorts each segment sequentially.
// Every segment is clamped to [0, n] and begin <= end before memory is touched: malformed
// offsets never make a kernel read or write outside the given ranges.
#ifndef OFF
#error "segmented_sort.cl needs OFF"
#endif
#ifndef SS_TILE
#error "segmented_sort.cl needs SS_TILE"
#endif
#ifndef SS_WG
#error "segmented_sort.cl needs SS_WG"
#endif
#ifndef SS_MIN_SLICE
#error "segmented_sort.cl needs SS_MIN_SLICE"
#endif
#if defined(SS_HAS_VALUES) && !defined(SS_V)
#error "segmented_sort.cl needs SS_V with SS_HAS_VALUES"
#endif

#ifdef SS_HAS_VALUES
#define SS_V_OR_UINT SS_V
#else
#define SS_V_OR_UINT uint // the kernels keep one signature; never read or written then
#endif
#define SS_NONE 0xffffffffu
#define SS_MAX_CLASSES 12 // size classes + 1 (the host keeps below)

// A local-memory element (SS_E). Keys alone: the sortable key (equal keys are equal bits, so
// no tag is needed for stability). With values, keys of up to 32 bits: (sortable key << 32 | tag)
// in one ulong, so a compare-exchange is one compare and one array; 64-bit keys with values: key
// and tag in two arrays.
#if !defined(SS_HAS_VALUES)
#define SS_MODE 0
#define SS_E K_UNSIGNED
#elif K_BITS <= 32
#define SS_MODE 1
#define SS_E ulong
#else
#define SS_MODE 2
#define SS_E K_UNSIGNED
#endif
// Local memory index with one pad slot per 32 elements (a work-item's block of SS_ITEMS would
// otherwise put every work-item on the same bank).
#define SS_PAD(i) ((i) + ((i) >> 5))

// A work-item's block of SS_ITEMS elements in registers (declared once, kept across the merges
// that need no local step): load, compare-exchange (a before b in the block), store.
#if SS_MODE != 2
#define SS_REG_DECL SS_E rk[SS_ITEMS]
#define SS_REG_LOAD(base)                                                                          \
    for (uint e = 0; e < SS_ITEMS; ++e) rk[e] = lk[SS_PAD((base) + e)]
#define SS_REG_CE(a, b)                                                                            \
    do {                                                                                           \
        const SS_E x_ = rk[a], y_ = rk[b];                                                         \
        rk[a] = min(x_, y_);                                                                       \
        rk[b] = max(x_, y_);                                                                       \
    } while (0)
#define SS_REG_STORE(base)                                                                         \
    for (uint e = 0; e < SS_ITEMS; ++e) lk[SS_PAD((base) + e)] = rk[e]
#else
#define SS_REG_DECL                                                                                \
    K_UNSIGNED rk[SS_ITEMS];                                                                       \
    uint rt[SS_ITEMS]
#define SS_REG_LOAD(base)                                                                          \
    for (uint e = 0; e < SS_ITEMS; ++e) {                                                          \
        rk[e] = lk[SS_PAD((base) + e)];                                                            \
        rt[e] = lt[SS_PAD((base) + e)];                                                            \
    }
#define SS_REG_CE(a, b)                                                                            \
    do {                                                                                           \
        const K_UNSIGNED ka_ = rk[a], kb_ = rk[b];                                                 \
        const uint ta_ = rt[a], tb_ = rt[b];                                                       \
        const bool swap_ = ss_before(kb_, tb_, ka_, ta_);                                          \
        rk[a] = swap_ ? kb_ : ka_;                                                                 \
        rk[b] = swap_ ? ka_ : kb_;                                                                 \
        rt[a] = swap_ ? tb_ : ta_;                                                                 \
        rt[b] = swap_ ? ta_ : tb_;                                                                 \
    } while (0)
#define SS_REG_STORE(base)                                                                         \
    for (uint e = 0; e < SS_ITEMS; ++e) {                                                          \
        lk[SS_PAD((base) + e)] = rk[e];                                                            \
        lt[SS_PAD((base) + e)] = rt[e];                                                            \
    }
#endif
#define SS_ITEMS (SS_TILE / SS_WG)
#if SS_ITEMS < 2 || (SS_ITEMS & (SS_ITEMS - 1)) != 0
#error "segmented_sort.cl: SS_TILE / SS_WG must be a power of two of at least 2"
#endif

// Segment s clamped to [0, n], begin <= end.
inline void ss_segment(__global const OFF* offsets, ulong ooff, ulong s, ulong n, ulong* b, ulong* e)
{
    const ulong b0 = min((ulong)offsets[ooff + s], n);
    *b = b0;
    *e = clamp((ulong)offsets[ooff + s + 1], b0, n);
}

// The size class of a segment of len elements (see the header comment); classes - 1 slices of
// 2^(min_log + step_log * c) elements, the last one `tile`.
inline uint ss_class(ulong len, uint classes, uint min_log, uint step_log, ulong tile)
{
    if (len <= 1) return SS_NONE;
    if (len > tile) return 0;
    for (uint c = 0; c + 1 < classes; ++c)
        if (len <= ((ulong)1 << (min_log + step_log * c))) return c + 1;
    return classes;
}

// The class of segment s and its clamped range.
inline uint ss_class_of(__global const OFF* offsets, ulong ooff, ulong s, ulong n, uint classes, uint min_log,
                        uint step_log, ulong tile, ulong* b, ulong* e)
{
    ss_segment(offsets, ooff, s, n, b, e);
    return ss_class(*e - *b, classes, min_log, step_log, tile);
}

// (key, tag) pairs in ascending order: tags are the index inside the segment, so equal keys keep
// their order (stability); padding has the largest key and tag and sorts last.
inline bool ss_before(K_UNSIGNED ka, uint ta, K_UNSIGNED kb, uint tb)
{
    return ka < kb || (ka == kb && ta < tb);
}

#ifndef SS_CPU_PATH // the GPU path's kernel (the CPU path's program leaves it out)
// One size class on GPUs: a work-group takes SS_TILE / slice segments of the class list per
// round (persistent: group g takes rounds g, g + G, ...), loads each into its slice of local
// memory (padded), runs a bitonic network on blocks of `slice` (every compare-exchange inside one
// block: each block ends sorted ascending; the first step of every merge compares mirrored
// positions, so no block needs a descending half), and writes the keys back in place. Steps of
// distance SS_ITEMS and more go through local memory with a barrier each; the shorter ones of
// every merge run in registers on each work-item's SS_ITEMS consecutive elements. Values:
// each work-item gathers the values of its sorted positions by tag into registers, then, after
// a barrier that ends every read of the round, writes them: one read and one write of the data.
__kernel __attribute__((reqd_work_group_size(SS_WG, 1, 1)))
void segsort_local(__global K* keys, ulong koff, __global SS_V_OR_UINT* values, ulong voff, ulong n,
                   __global const OFF* offsets, ulong ooff, __global const uint* list, __global const uint* table,
                   uint items, uint cls, uint slice, uint direct)
{
    __local SS_E lk[SS_PAD(SS_TILE)];
#if SS_MODE == 0
#define SS_KEY_AT(i) (lk[SS_PAD(i)])
#elif SS_MODE == 1
#define SS_TAG_AT(i) ((uint)lk[SS_PAD(i)])
#define SS_KEY_AT(i) ((K_UNSIGNED)(lk[SS_PAD(i)] >> 32))
#else
    __local uint lt[SS_PAD(SS_TILE)];
#define SS_TAG_AT(i) (lt[SS_PAD(i)])
#define SS_KEY_AT(i) (lk[SS_PAD(i)])
#endif
    __local ulong sb[SS_TILE / SS_MIN_SLICE];
    __local uint sl[SS_TILE / SS_MIN_SLICE];
    const uint lid = get_local_id(0);
    // direct: every segment by its number (direct of them), those of at most `slice` keys
    // (class 1 unlisted: tiny); else the class list's entries.
    const uint start = direct ? 0 : table[cls * items];
    const uint count = direct ? direct : table[(cls + 1) * items] - start;
    const uint per_round = SS_TILE / slice;
    const uint slice_log = 31 - clz(slice);
    const uint rbase = lid * SS_ITEMS; // this work-item's block
    for (uint base = get_group_id(0) * per_round; base < count; base += get_num_groups(0) * per_round) {
        for (uint q = lid; q < per_round; q += SS_WG) {
            ulong b = 0, e = 0;
            if (base + q < count) ss_segment(offsets, ooff, direct ? base + q : list[start + base + q], n, &b, &e);
            sb[q] = b;
            sl[q] = e - b > slice ? 0u : (uint)(e - b); // (a longer one only where direct: not ours)
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        for (uint i = lid; i < SS_TILE; i += SS_WG) {
            const uint q = i >> slice_log, j = i & (slice - 1);
            const bool real = j < sl[q];
#if SS_MODE == 0
            lk[SS_PAD(i)] = real ? key_to_sortable(keys[koff + sb[q] + j]) : ~(SS_E)0;
#elif SS_MODE == 1
            lk[SS_PAD(i)] = real ? ((ulong)key_to_sortable(keys[koff + sb[q] + j]) << 32) | j : ~(ulong)0;
#else
            lk[SS_PAD(i)] = real ? key_to_sortable(keys[koff + sb[q] + j]) : (K_UNSIGNED)(~(K_UNSIGNED)0);
            lt[SS_PAD(i)] = real ? j : SS_NONE;
#endif
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        SS_REG_DECL;
        SS_REG_LOAD(rbase);
        for (uint k = 2; k <= slice; k <<= 1) {
            if ((k >> 1) >= SS_ITEMS) {
                // Distances of SS_ITEMS and more: pairs across work-items, in local memory.
                SS_REG_STORE(rbase);
                for (uint j = k >> 1; j >= SS_ITEMS; j >>= 1) {
                    barrier(CLK_LOCAL_MEM_FENCE);
                    for (uint t = lid; t < SS_TILE / 2; t += SS_WG) {
                        const uint lo = (t & (j - 1)) | ((t & ~(j - 1)) << 1);
                        const uint hi = (j == (k >> 1)) ? (lo ^ (k - 1)) : (lo + j);
#if SS_MODE != 2
                        const SS_E a = lk[SS_PAD(lo)], c = lk[SS_PAD(hi)];
                        if (c < a) {
                            lk[SS_PAD(lo)] = c;
                            lk[SS_PAD(hi)] = a;
                        }
#else
                        const K_UNSIGNED klo = lk[SS_PAD(lo)], khi = lk[SS_PAD(hi)];
                        const uint tlo = lt[SS_PAD(lo)], thi = lt[SS_PAD(hi)];
                        if (ss_before(khi, thi, klo, tlo)) {
                            lk[SS_PAD(lo)] = khi;
                            lk[SS_PAD(hi)] = klo;
                            lt[SS_PAD(lo)] = thi;
                            lt[SS_PAD(hi)] = tlo;
                        }
#endif
                    }
                }
                barrier(CLK_LOCAL_MEM_FENCE);
                SS_REG_LOAD(rbase);
            }
            // Shorter distances: every pair inside one work-item's block of SS_ITEMS consecutive
            // elements, in registers without barriers (unrolled: constant indices).
#pragma unroll
            for (uint jj = SS_ITEMS / 2; jj > 0; jj >>= 1) {
                if (jj <= (k >> 1)) {
                    if (jj == (k >> 1)) {
#pragma unroll
                        for (uint e = 0; e < SS_ITEMS; ++e)
                            if ((e & jj) == 0) SS_REG_CE(e, e ^ (2 * jj - 1));
                    } else {
#pragma unroll
                        for (uint e = 0; e < SS_ITEMS; ++e)
                            if ((e & jj) == 0) SS_REG_CE(e, e + jj);
                    }
                }
            }
        }
        SS_REG_STORE(rbase);
        barrier(CLK_LOCAL_MEM_FENCE);
#ifdef SS_HAS_VALUES
        SS_V v[SS_ITEMS];
        for (uint m = 0; m < SS_ITEMS; ++m) {
            const uint i = lid + m * SS_WG;
            const uint q = i >> slice_log, j = i & (slice - 1);
            v[m] = j < sl[q] ? values[voff + sb[q] + SS_TAG_AT(i)] : (SS_V)0;
        }
        barrier(CLK_GLOBAL_MEM_FENCE); // every value of the round read before any is written
        for (uint m = 0; m < SS_ITEMS; ++m) {
            const uint i = lid + m * SS_WG;
            const uint q = i >> slice_log, j = i & (slice - 1);
            if (j < sl[q]) values[voff + sb[q] + j] = v[m];
        }
#endif
        for (uint i = lid; i < SS_TILE; i += SS_WG) {
            const uint q = i >> slice_log, j = i & (slice - 1);
            if (j < sl[q]) keys[koff + sb[q] + j] = sortable_to_key(SS_KEY_AT(i));
        }
        barrier(CLK_LOCAL_MEM_FENCE); // sb, sl, lk, lt are refilled by the next round
    }
}

#endif // SS_CPU_PATH

#if K_BITS == 32
// Many long segments (32-bit keys): one device-wide radix sort for all of them instead of one
// call each. segsort_gather packs every element of the long segments (listed in pairs, starting
// at starts[] in the packed order) as (segment rank << 32 | sortable key), with its packed
// position (and its value) beside; the radix sort of the 64-bit words keeps each segment's
// elements together and in their own order; segsort_scatter writes them back into their segment.
inline uint ss_rank(__global const ulong* starts, uint count, ulong p)
{
    uint lo = 0, hi = count; // starts[lo] <= p < starts[hi]
    while (hi - lo > 1) {
        const uint mid = lo + (hi - lo) / 2;
        if (starts[mid] <= p) lo = mid;
        else hi = mid;
    }
    return lo;
}

__kernel void segsort_gather(__global const K* keys, ulong koff, __global const SS_V_OR_UINT* values, ulong voff,
                             __global const ulong* starts, __global const ulong* pairs, uint count, ulong m,
                             __global ulong* ck, __global uint* cv, __global SS_V_OR_UINT* tv)
{
    const ulong p = get_global_id(0);
    if (p >= m) return;
    const uint seg = ss_rank(starts, count, p);
    const ulong src = pairs[2 * seg] + (p - starts[seg]);
    ck[p] = ((ulong)seg << 32) | (ulong)key_to_sortable(keys[koff + src]);
#ifdef SS_HAS_VALUES
    cv[p] = (uint)p;
    tv[p] = values[voff + src];
#endif
}

__kernel void segsort_scatter(__global K* keys, ulong koff, __global SS_V_OR_UINT* values, ulong voff,
                              __global const ulong* starts, __global const ulong* pairs, uint count, ulong m,
                              __global const ulong* ck, __global const uint* cv, __global const SS_V_OR_UINT* tv)
{
    const ulong p = get_global_id(0);
    if (p >= m) return;
    const ulong word = ck[p];
    const uint seg = (uint)(word >> 32);
    if (seg >= count) return;
    const ulong dst = pairs[2 * seg] + (p - starts[seg]);
    keys[koff + dst] = sortable_to_key((K_UNSIGNED)word);
#ifdef SS_HAS_VALUES
    values[voff + dst] = tv[cv[p]];
#endif
}
#endif
