// The by-key family for a range that one work-group holds (CUB's single-tile case): one launch,
// no look-back, no status words, no tile counter, no fills. At a few thousand elements a call's
// time is the launch and the latency of one pass, so the kernel does the least between the load
// and the store.
//
// Work-item t holds the `rows` consecutive elements [t * rows, t * rows + rows) in registers
// (keys and values, read once), folds them into one (count, value) pair (by_key.cl's pair), and
// the work-group's segmented scan of the pairs (bk_tile_scan, by_key_warp.cl: workgroup_segmented.cl's
// ping-pong form, or NVIDIA's warp shuffles with BK_SHFL_SCAN) gives
// every work-item the pair of all elements before its own. It then walks its elements again from
// that pair and writes what the mode writes (by_key.cl's BK_EMIT_BEFORE / BK_EMIT_AFTER: the same
// epilogue as every other path of the family), and the work-item holding the last element writes
// the count. Writes past an output's capacity are dropped (the host compares the count).
//
// Required macros: those of by_key.cl (K, V, BK_MODE, BK_ITEMS; joined after workgroup_segmented.cl,
// by_key.cl and by_key_warp.cl), SK_WG (the work-group size), SK_ROWS (the most elements a work-item holds; the
// call's `rows` is at most that, at most 32). Optional: SK_DIAG (measurements, WRONG results: 1
// the kernel returns at once, 2 no pair scan).
#ifndef SK_WG
#error "by_key_small.cl needs SK_WG"
#endif
#if !defined(SK_ROWS) || SK_ROWS > 32
#error "by_key_small.cl needs SK_ROWS (at most 32: a work-item's heads are the bits of a uint)"
#endif
#ifndef BK_MODE
#error "by_key_small.cl needs by_key.cl joined before it"
#endif

// Results go straight to the caller's ranges (index i as it is).
#define AT_(i) (i)

// at = (keys_off, vals_off, out1_off, cap1, out2_off, cap2, count_off, -), nrf = (n, rows, flags, -):
// few arguments, as a launch's host time grows with them. n >= 1, n <= SK_WG * rows.
__kernel __attribute__((reqd_work_group_size(SK_WG, 1, 1)))
void by_key_small(__global const K* keys, __global const V* vals, __global K* out1, __global V* out2,
                  __global ulong* count_out, ulong8 at, uint4 nrf, V init)
{
#if defined(SK_DIAG) && SK_DIAG == 1
    return; // measurements: the launch alone (WRONG results)
#endif
    __local uint sc[2 * SK_WG];
    __local V sv[2 * SK_WG];
    keys += at.s0;
    vals += at.s1;
    out1 += at.s2;
    out2 += at.s4;
    count_out += at.s6;
    const ulong cap1 = at.s3, cap2 = at.s5;
    const uint n = nrf.s0, rows = nrf.s1, flags = nrf.s2;
    __global V* scan_out = out2;
    (void)scan_out;
    (void)cap2;
    const uint from = (uint)get_local_id(0) * rows;
    const uint mine = from < n ? min(rows, n - from) : 0u; // this work-item's elements
    // The key before this work-item's first element (any key where it has none: unused then).
    const K before = keys[min(from > 0u ? from - 1u : 0u, n - 1u)];
    K kr[SK_ROWS];
    V vr[SK_ROWS];
#pragma unroll
    for (uint r = 0; r < SK_ROWS; ++r) {
        if (r < mine) {
            kr[r] = keys[from + r];
            vr[r] = bk_value(vals, from + r);
        }
    }
    // This work-item's pair: its heads (kept as bits for the epilogue), and its values combined
    // since its last head.
    uint c = 0, heads = 0;
    V v = BK_ID;
    K prev = before;
#pragma unroll
    for (uint r = 0; r < SK_ROWS; ++r) {
        if (r < mine) {
            const uint h = bk_head(from + r, kr[r], prev);
            heads |= h << r;
            v = h ? vr[r] : BK_OP(v, vr[r]);
            c += h;
            prev = kr[r];
        }
    }
    uint ec, tc;
    V ev, tv;
#if defined(SK_DIAG) && SK_DIAG == 2
    ec = c; // measurements: no pair scan (WRONG results)
    ev = v;
#else
    bk_tile_scan(c, v, sc, sv, &ec, &ev, &tc, &tv);
#endif
    // The epilogue from the pair of every element before this work-item's first.
    c = ec;
    v = ev;
    prev = before;
#pragma unroll
    for (uint r = 0; r < SK_ROWS; ++r) {
        if (r < mine) {
            const uint i = from + r;
            const K k = kr[r];
            const V x = vr[r];
            const uint h = (heads >> r) & 1u;
            BK_EMIT_BEFORE(i);
            v = h ? x : BK_OP(v, x);
            c += h;
            BK_EMIT_AFTER(i);
            if (i == n - 1u && (flags & BK_WRITE_COUNT)) *count_out = c;
            prev = k;
        }
    }
}
