// clprim::histogram kernels (with T defined) and the radix sort's digit-count kernel (with
// DIGIT_KEY defined). Joined after workgroup_histogram.cl.
//
// Host-chosen macros: HIST_INDEX (uint, or ulong when indices may pass 2^32), HIST_SHIFT_MODE
// (integers only: 1 when the bins are power-of-two wide, so a shift finds the bin).

// The bin formula is spelled out for the host reference: no fused multiply-adds.
#pragma OPENCL FP_CONTRACT OFF

#define HIST_NONE 0xffffffffu

#ifdef T

#if T_IS_FLOAT
// Floats: bin = min(num_bins - 1, rtz((x * h - lower_h) * scale)) for lower <= x < upper, where
// lower_h = lower * h, scale = num_bins / (upper * h - lower * h), all in T (host-computed). h is
// a power of two: 1 normally, 0.5 when upper - lower overflows, larger when num_bins / (upper -
// lower) would. The saturating conversion plus the clamp keep rounding from ever passing the last
// bin. NaN x fails the range test.
inline uint hist_bin(T x, T lower, T upper, T h, T lower_h, T scale, uint shift, float est,
                     uint num_bins)
{
    (void)shift;
    (void)est;
    if (!(x >= lower && x < upper)) return HIST_NONE;
    const T y = (x * h - lower_h) * scale;
    // NaN y (inf - inf with infinite bounds) is bin 0, as the spec's saturating conversion says;
    // spelled out because a driver was seen to send NaN doubles to UINT_MAX.
    const uint q = isnan(y) ? 0u : convert_uint_sat_rtz(y);
    return min(q, num_bins - 1u);
}
#else
// Integers: d = x - lower and r = upper - lower in the unsigned type of T's width (both exact:
// the difference of two values of T always fits), x is in range iff d < r, and
// bin = floor(d * num_bins / r) < num_bins, exactly, with no overflow: either a shift (bins of
// width 2^shift) or a float estimate fixed up by exact comparisons of the products d * num_bins
// and q * r (64-bit for 32-bit T, 128-bit via mul_hi for 64-bit T).
#if T_BITS == 64
// a * b > c * e as 128-bit unsigned products.
inline bool hist_prod_gt(ulong a, ulong b, ulong c, ulong e)
{
    const ulong h1 = mul_hi(a, b), h2 = mul_hi(c, e);
    return h1 > h2 || (h1 == h2 && a * b > c * e);
}
#endif

inline uint hist_bin(T x, T lower, T upper, T range_t, T unused1, T unused2, uint shift, float est,
                     uint num_bins)
{
    (void)upper;
    (void)unused1;
    (void)unused2;
    const T_UNSIGNED d = (T_UNSIGNED)x - (T_UNSIGNED)lower;
    const T_UNSIGNED r = (T_UNSIGNED)range_t;
    if (d >= r) return HIST_NONE;
#if HIST_SHIFT_MODE
    (void)est;
    (void)num_bins;
    return (uint)(d >> shift);
#else
    (void)shift;
    uint q = min(convert_uint_sat_rtz((float)d * est), num_bins - 1u);
#if T_BITS <= 32
    const ulong m = (ulong)d * num_bins;
    while ((ulong)q * r > m) --q;
    while (q + 1u < num_bins && (ulong)(q + 1u) * r <= m) ++q;
#else
    // q * r > d * num_bins: q is too big; (q + 1) * r <= d * num_bins: too small.
    while (hist_prod_gt(q, r, d, num_bins)) --q;
    while (q + 1u < num_bins && !hist_prod_gt((ulong)q + 1u, r, d, num_bins)) ++q;
#endif
    return q;
#endif
}
#endif

// A work-item's run of equal bins is counted in a register and added with one atomic when the
// bin changes: values all in one bin then cost one atomic per work-item, not one per value.
#define HIST_RUN(b, ADD)                                                                          \
    do {                                                                                          \
        const uint b_ = (b);                                                                      \
        if (b_ == run_bin) {                                                                      \
            ++run_cnt;                                                                            \
        } else if (b_ < tile_bins) {                                                              \
            if (run_cnt != 0u) ADD(run_bin, run_cnt);                                             \
            run_bin = b_;                                                                         \
            run_cnt = 1u;                                                                         \
        }                                                                                         \
    } while (0)

#define HIST_BIN_OF(v) (hist_bin((v), lower, upper, p0, p1, p2, shift, est, num_bins) - tile_first)

// Each work-group counts the chunk [group * chunk, min(n, (group + 1) * chunk)) of in[offset ..]
// into local bins for bins [tile_first, tile_first + tile_bins), tile_first = get_group_id(1) *
// tile_bins (several tiles when the bins do not fit local memory at once), then adds its counts
// into counts[tile_first ..]. Reads 4 values per work-item per step for memory-level parallelism.
__kernel void histogram_local(__global const T* in, ulong offset, HIST_INDEX n, HIST_INDEX chunk,
                              __global uint* counts, ulong counts_offset, uint num_bins,
                              uint tile_bins, T lower, T upper, T p0, T p1, T p2, uint shift,
                              float est, __local uint* bins)
{
    const uint tile_first = (uint)get_group_id(1) * tile_bins;
    const uint my_bins = min(tile_bins, num_bins - tile_first);
    in += offset;
    counts += counts_offset + tile_first;
    wg_hist_clear(bins, my_bins);

    const HIST_INDEX lsize = (HIST_INDEX)get_local_size(0);
    const HIST_INDEX start = (HIST_INDEX)get_group_id(0) * chunk;
    const HIST_INDEX end = (n - start > chunk) ? start + chunk : n;
    uint run_bin = 0u, run_cnt = 0u;
#define HIST_LOCAL_ADD(b, c) wg_hist_add_n(bins, my_bins, (b), (c))
    HIST_INDEX i = start + (HIST_INDEX)get_local_id(0);
    for (; i + 3 * lsize < end; i += 4 * lsize) {
        const T v0 = in[i], v1 = in[i + lsize], v2 = in[i + 2 * lsize], v3 = in[i + 3 * lsize];
        HIST_RUN(HIST_BIN_OF(v0), HIST_LOCAL_ADD);
        HIST_RUN(HIST_BIN_OF(v1), HIST_LOCAL_ADD);
        HIST_RUN(HIST_BIN_OF(v2), HIST_LOCAL_ADD);
        HIST_RUN(HIST_BIN_OF(v3), HIST_LOCAL_ADD);
    }
    for (; i < end; i += lsize) HIST_RUN(HIST_BIN_OF(in[i]), HIST_LOCAL_ADD);
    if (run_cnt != 0u) HIST_LOCAL_ADD(run_bin, run_cnt);
#undef HIST_LOCAL_ADD
    barrier(CLK_LOCAL_MEM_FENCE);
    wg_hist_flush_add(bins, my_bins, counts);
}

// For bin counts too large to tile through local memory: atomics straight into the global
// histogram, still merging each work-item's runs of equal bins.
__kernel void histogram_global(__global const T* in, ulong offset, HIST_INDEX n, HIST_INDEX chunk,
                               __global uint* counts, ulong counts_offset, uint num_bins,
                               uint unused_tile_bins, T lower, T upper, T p0, T p1, T p2,
                               uint shift, float est)
{
    (void)unused_tile_bins;
    const uint tile_first = 0u, tile_bins = num_bins;
    in += offset;
    counts += counts_offset;
    const HIST_INDEX lsize = (HIST_INDEX)get_local_size(0);
    const HIST_INDEX start = (HIST_INDEX)get_group_id(0) * chunk;
    const HIST_INDEX end = (n - start > chunk) ? start + chunk : n;
    uint run_bin = 0u, run_cnt = 0u;
#define HIST_GLOBAL_ADD(b, c) atomic_add(&counts[(b)], (c))
    for (HIST_INDEX i = start + (HIST_INDEX)get_local_id(0); i < end; i += lsize)
        HIST_RUN(HIST_BIN_OF(in[i]), HIST_GLOBAL_ADD);
    if (run_cnt != 0u) HIST_GLOBAL_ADD(run_bin, run_cnt);
#undef HIST_GLOBAL_ADD
}

#endif // T

#ifdef DIGIT_KEY
// Digit-count mode (the radix sort's counting pass): work-group g counts the digits
// (key >> shift) & mask of keys[offset + g * tile .. offset + min(n, (g + 1) * tile)) and stores
// them digit-major: counts[d * num_groups + g], for every digit d <= mask (num_bins = mask + 1).
// DIGIT_KEY is uint or ulong.
__kernel void wg_digit_count(__global const DIGIT_KEY* keys, ulong offset, ulong n, ulong tile,
                             uint shift, uint mask, __global uint* counts, __local uint* bins)
{
    const uint num_bins = mask + 1u;
    const uint group = (uint)get_group_id(0), num_groups = (uint)get_num_groups(0);
    keys += offset;
    wg_hist_clear(bins, num_bins);
    const ulong start = (ulong)group * tile;
    const ulong end = min(start + tile, n);
    for (ulong i = start + get_local_id(0); i < end; i += get_local_size(0))
        wg_hist_add(bins, num_bins, (uint)((keys[i] >> shift) & (DIGIT_KEY)mask));
    barrier(CLK_LOCAL_MEM_FENCE);
    wg_hist_flush_digit_major(bins, num_bins, counts, group, num_groups);
}
#endif // DIGIT_KEY
