// Stable merge sort in three phases. Joined after sort_key_order.cl; needs K (key type macros),
// V (value type macros), SORT_HAS_VALUES when values travel with the keys, MERGE_ELEMS (elements
// per work-item, a power of two).
//
// Keys are sorted as their sortable bits (key_to_sortable: unsigned order = requested order, floats
// by total order, descending as inverted bits so equal keys stay equal and ties are still broken by
// position). The first kernel converts on load, the last one converts back on store; between them
// the keys live in the host's scratch buffers. Buffers holding caller keys are declared as SK
// pointers (same width) and reinterpreted with as_K / as_K_UNSIGNED.
//
// (1) merge_tile_sort: each work-item sorts its MERGE_ELEMS consecutive elements in registers with
//     a neighbour-exchange network (swaps only on strictly greater: stable); (2) the work-group
//     then merges runs of E, 2E, ... up to its tile in local memory: each work-item takes E
//     consecutive outputs of its pair of runs, finds where they start in both runs (co-rank
//     binary search: an output's position is its index in its run plus its rank in the other
//     run, ties going to the left run so input order is kept) and merges them sequentially.
//     (3) merge_global merges runs longer than a tile: each work-group takes one tile-sized piece
//     of the output, finds where that piece starts and ends in both input runs (merge path /
//     co-rank, merge_partition), loads both pieces and merges them as in (2).
// Elements past n in the last tile are padded with the largest sortable value; being last in
// input order, stability keeps them last, and they are never stored.

#define SK K_UNSIGNED
#if K_BITS == 32
#define SK_MAX 0xffffffffu
#else
#define SK_MAX 0xfffffffffffffffful
#endif
#define E MERGE_ELEMS

inline SK caller_to_sortable(SK bits) { return key_to_sortable(K_AS_KEY(bits)); }
inline SK sortable_to_caller(SK s) { return K_AS_UNSIGNED(sortable_to_key(s)); }

// Outputs [d, d + E) of the stable merge of a[0, la) and b[0, lb) (local memory), into registers:
// one co-rank search for where this work-item's piece starts, then a sequential merge of E steps
// (ties: a first). Far fewer local reads than one binary search per element. Returns how many
// outputs were produced (fewer than E at the end of the merge).
inline uint merge_piece(__local const SK* a, __local const V* va, uint la, __local const SK* b,
                        __local const V* vb, uint lb, uint d, SK* kr, V* vr)
{
    (void)va; (void)vb; (void)vr;
    uint lo = d > lb ? d - lb : 0;
    uint hi = d < la ? d : la;
    while (lo < hi) {
        const uint mid = (lo + hi) >> 1;
        if (a[mid] <= b[d - 1 - mid]) lo = mid + 1;
        else hi = mid;
    }
    uint i = lo, j = d - lo, cnt = 0;
#pragma unroll
    for (uint e = 0; e < E; ++e) {
        if (i < la || j < lb) {
            const bool take_a = j >= lb || (i < la && a[i] <= b[j]);
            if (take_a) {
                kr[e] = a[i];
#ifdef SORT_HAS_VALUES
                vr[e] = va[i];
#endif
                ++i;
            } else {
                kr[e] = b[j];
#ifdef SORT_HAS_VALUES
                vr[e] = vb[j];
#endif
                ++j;
            }
            ++cnt;
        }
    }
    return cnt;
}

__kernel void merge_tile_sort(__global const SK* in, ulong in_off, __global const V* vin, ulong vin_off,
                              __global SK* out, ulong out_off, __global V* vout, ulong vout_off, ulong n,
                              uint out_convert, __local SK* lk, __local V* lv)
{
    (void)vin; (void)vout; (void)lv; (void)vin_off; (void)vout_off;
    in += in_off;
    out += out_off;
#ifdef SORT_HAS_VALUES
    vin += vin_off;
    vout += vout_off;
#endif
    const uint lid = get_local_id(0);
    const uint wg = get_local_size(0);
    const uint tile = wg * E;
    const ulong base = (ulong)get_group_id(0) * tile;

    for (uint r = 0; r < E; ++r) {
        const uint l = lid + r * wg;
        const ulong i = base + l;
        lk[l] = i < n ? caller_to_sortable(in[i]) : SK_MAX;
#ifdef SORT_HAS_VALUES
        if (i < n) lv[l] = vin[i];
#endif
    }
    barrier(CLK_LOCAL_MEM_FENCE);

    // (1) E consecutive elements in registers: E rounds of odd/even neighbour exchange.
    SK kr[E];
    V vr[E];
#pragma unroll
    for (uint a = 0; a < E; ++a) {
        kr[a] = lk[lid * E + a];
#ifdef SORT_HAS_VALUES
        vr[a] = lv[lid * E + a];
#endif
    }
#pragma unroll
    for (uint p = 0; p < E; ++p) {
#pragma unroll
        for (uint a = p & 1; a + 1 < E; a += 2) {
            if (kr[a] > kr[a + 1]) {
                const SK t = kr[a]; kr[a] = kr[a + 1]; kr[a + 1] = t;
#ifdef SORT_HAS_VALUES
                const V u = vr[a]; vr[a] = vr[a + 1]; vr[a + 1] = u;
#endif
            }
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
#pragma unroll
    for (uint a = 0; a < E; ++a) {
        lk[lid * E + a] = kr[a];
#ifdef SORT_HAS_VALUES
        lv[lid * E + a] = vr[a];
#endif
    }
    barrier(CLK_LOCAL_MEM_FENCE);

    // (2) Merge runs of L into runs of 2L inside the tile: work-item lid produces outputs
    // [lid*E, lid*E + E) of its pair of runs.
    for (uint L = E; L < tile; L <<= 1) {
        const uint o = lid * E;
        const uint pair = o & ~(2 * L - 1);
        merge_piece(lk + pair, lv + pair, L, lk + pair + L, lv + pair + L, L, o - pair, kr, vr);
        barrier(CLK_LOCAL_MEM_FENCE);
#pragma unroll
        for (uint a = 0; a < E; ++a) {
            lk[o + a] = kr[a];
#ifdef SORT_HAS_VALUES
            lv[o + a] = vr[a];
#endif
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }

    for (uint r = 0; r < E; ++r) {
        const uint l = lid + r * wg;
        const ulong i = base + l;
        if (i < n) {
            out[i] = out_convert ? sortable_to_caller(lk[l]) : lk[l];
#ifdef SORT_HAS_VALUES
            vout[i] = lv[l];
#endif
        }
    }
}

// How many of the first d outputs of the stable merge of a[0, la) and b[0, lb) come from a.
inline ulong co_rank(__global const SK* a, ulong la, __global const SK* b, ulong lb, ulong d)
{
    ulong lo = d > lb ? d - lb : 0;
    ulong hi = d < la ? d : la;
    while (lo < hi) {
        const ulong mid = (lo + hi) >> 1;
        // a[mid] precedes b[d-1-mid] (ties: a first), so it is among the first d: take more of a.
        if (a[mid] <= b[d - 1 - mid]) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

// (3) One merge round over the whole array: runs of L (a multiple of the tile) pairwise into 2L.
// (3a) Where each work-group's piece of the output starts in its left run: one co-rank search per
// work-group, all in parallel (rather than serially inside the merge kernel).
__kernel void merge_partition(__global const SK* in, ulong in_off, ulong n, ulong L, ulong tile,
                              __global ulong* splits, ulong groups)
{
    const ulong g = get_global_id(0);
    if (g >= groups) return;
    in += in_off;
    const ulong o0 = g * tile;
    const ulong base = o0 & ~(2 * L - 1);
    const ulong la = min(L, n - base);
    const ulong lb = min(L, n - base - la);
    splits[g] = co_rank(in + base, la, in + base + la, lb, o0 - base);
}

// (3b) One merge round: runs of L (a multiple of the tile) pairwise into runs of 2L. The input and
// output may each be the caller's range (holding sortable bits between rounds) or the scratch
// buffer, hence the offsets; only the last round converts back to keys.
__kernel void merge_global(__global const SK* in, ulong in_off, __global const V* vin, ulong vin_off,
                           __global SK* out, ulong out_off, __global V* vout, ulong vout_off, ulong n,
                           ulong L, uint out_convert, __global const ulong* splits, __local SK* lk,
                           __local V* lv)
{
    (void)vin; (void)vout; (void)lv; (void)vin_off; (void)vout_off;
    in += in_off;
    out += out_off;
#ifdef SORT_HAS_VALUES
    vin += vin_off;
    vout += vout_off;
#endif
    const uint lid = get_local_id(0);
    const uint wg = get_local_size(0);
    const uint tile = wg * E;
    const ulong g = get_group_id(0);
    const ulong o0 = g * tile;
    const ulong base = o0 & ~(2 * L - 1);
    const ulong la = min(L, n - base);
    const ulong o1 = min(o0 + tile, n);
    const ulong d0 = o0 - base;
    const ulong d1 = o1 - base;
    // The piece ends where the next one starts, unless it ends its pair of runs (all of a used).
    const ulong a0 = splits[g];
    const ulong a1 = (o1 == n || (o1 & (2 * L - 1)) == 0) ? la : splits[g + 1];
    const ulong b0 = d0 - a0;
    const uint na = (uint)(a1 - a0);
    const uint total = (uint)(d1 - d0);

    // Our pieces of both runs side by side in local memory: a's first.
    for (uint r = 0; r < E; ++r) {
        const uint l = lid + r * wg;
        if (l < total) {
            const ulong src = l < na ? base + a0 + l : base + la + b0 + (l - na);
            lk[l] = in[src];
#ifdef SORT_HAS_VALUES
            lv[l] = vin[src];
#endif
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    SK kr[E];
    V vr[E];
    const uint o = lid * E;
    const uint cnt = o < total ? merge_piece(lk, lv, na, lk + na, lv + na, total - na, o, kr, vr) : 0;
    barrier(CLK_LOCAL_MEM_FENCE);
#pragma unroll
    for (uint e = 0; e < E; ++e) {
        if (e < cnt) {
            lk[o + e] = kr[e];
#ifdef SORT_HAS_VALUES
            lv[o + e] = vr[e];
#endif
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint r = 0; r < E; ++r) {
        const uint l = lid + r * wg;
        if (l < total) {
            const ulong i = o0 + l;
            out[i] = out_convert ? sortable_to_caller(lk[l]) : lk[l];
#ifdef SORT_HAS_VALUES
            vout[i] = lv[l];
#endif
        }
    }
}
#undef E

// ---------------------------------------------------------------------------------------------
// The CPU path (merge_sort.cpp chooses it on CPU devices). A CPU has a few cores, each quickest
// on one long sequential run, and barriers and local memory buy nothing there. So work-groups
// are ONE work-item, and each work-item does a long contiguous piece of sequential work:
//  (4) merge_cpu_chunks: work-item c sorts its chunk [c * chunk, (c + 1) * chunk) on its own:
//      runs of MERGE_CPU_RUN keys by insertion sort (in registers), then bottom-up merge passes
//      within the chunk, ping-ponging between two buffers. Every chunk does the same number of
//      passes (a short last chunk copies), so all chunks end in the buffer the host expects.
//  (5) merge_cpu_round: one round merging sorted runs of L pairwise. The output is cut into equal
//      pieces, one per work-item; a piece's ends are found in the two input runs by co-rank
//      (co_rank above: ties go to the left run, so the merge is stable) and the work-item merges
//      the two sub-ranges sequentially.
// Both merge branch-free: the next output is min(a[i], b[j]) (a on ties) and the index of the
// side taken advances, so random keys cost no mispredicted branches.

#ifndef MERGE_CPU_RUN
#define MERGE_CPU_RUN 16
#endif

// Stable merge of k[i, i1) and k[j, j1) (same buffer, runs side by side) into out[o, ...);
// values move with their keys. CONVERT: store the keys back in the caller's form.
inline void merge_seq(__global const SK* restrict k, __global const V* restrict v, ulong i, ulong i1, ulong j,
                      ulong j1, __global SK* restrict out, __global V* restrict vout, ulong o, const bool convert)
{
    (void)v; (void)vout;
    while (i < i1 && j < j1) {
        const SK x = k[i], y = k[j];
        const bool take_b = y < x;
        const SK s = take_b ? y : x;
        out[o] = convert ? sortable_to_caller(s) : s;
#ifdef SORT_HAS_VALUES
        vout[o] = v[take_b ? j : i];
#endif
        ++o;
        i += take_b ? 0 : 1;
        j += take_b ? 1 : 0;
    }
    for (; i < i1; ++i, ++o) {
        out[o] = convert ? sortable_to_caller(k[i]) : k[i];
#ifdef SORT_HAS_VALUES
        vout[o] = v[i];
#endif
    }
    for (; j < j1; ++j, ++o) {
        out[o] = convert ? sortable_to_caller(k[j]) : k[j];
#ifdef SORT_HAS_VALUES
        vout[o] = v[j];
#endif
    }
}

// (4) in: the caller's keys (converted on load); x / y: the two buffers the chunk ping-pongs
// through, the sorted chunk ending in x after `passes` merge passes (so the runs go to y when
// passes is odd). x may be the caller's range itself (each work-item touches only its chunk).
// out_convert: nothing follows this kernel, store keys in the caller's form.
__kernel __attribute__((reqd_work_group_size(1, 1, 1)))
void merge_cpu_chunks(__global const SK* in, ulong in_off, __global const V* vin, ulong vin_off,
                      __global SK* xk, ulong x_off, __global V* xv, ulong xv_off,
                      __global SK* yk, ulong y_off, __global V* yv, ulong yv_off,
                      ulong n, ulong chunk, uint passes, uint out_convert)
{
    (void)vin; (void)vin_off; (void)xv; (void)xv_off; (void)yv; (void)yv_off;
    in += in_off;
    xk += x_off;
    yk += y_off;
#ifdef SORT_HAS_VALUES
    vin += vin_off;
    xv += xv_off;
    yv += yv_off;
#endif
    const ulong c = get_global_id(0);
    const ulong b = min(n, c * chunk), e = min(n, b + chunk);
    __global SK* dk = (passes & 1) ? yk : xk;
    __global V* dv = (passes & 1) ? yv : xv;
    const bool convert_runs = passes == 0 && out_convert;

    // Runs of MERGE_CPU_RUN keys: insertion sort in registers (moves only past strictly greater
    // keys: stable).
    for (ulong r = b; r < e; r += MERGE_CPU_RUN) {
        const uint len = (uint)min((ulong)MERGE_CPU_RUN, e - r);
        SK kr[MERGE_CPU_RUN];
        V vr[MERGE_CPU_RUN];
        for (uint a = 0; a < len; ++a) {
            const SK s = caller_to_sortable(in[r + a]);
#ifdef SORT_HAS_VALUES
            const V w = vin[r + a];
#endif
            uint p = a;
            while (p > 0 && kr[p - 1] > s) {
                kr[p] = kr[p - 1];
#ifdef SORT_HAS_VALUES
                vr[p] = vr[p - 1];
#endif
                --p;
            }
            kr[p] = s;
#ifdef SORT_HAS_VALUES
            vr[p] = w;
#endif
        }
        for (uint a = 0; a < len; ++a) {
            dk[r + a] = convert_runs ? sortable_to_caller(kr[a]) : kr[a];
#ifdef SORT_HAS_VALUES
            dv[r + a] = vr[a];
#endif
        }
        (void)vr;
    }

    // Bottom-up merge passes inside the chunk: runs of w into runs of 2w.
    ulong w = MERGE_CPU_RUN;
    for (uint p = 0; p < passes; ++p, w <<= 1) {
        __global const SK* sk = dk;
        __global const V* sv = dv;
        dk = (dk == xk) ? yk : xk;
        dv = (dk == xk) ? xv : yv;
        const bool last = p + 1 == passes && out_convert;
        for (ulong s = b; s < e; s += 2 * w) {
            const ulong m = min(e, s + w), t = min(e, s + 2 * w);
            if (last) merge_seq(sk, sv, s, m, m, t, dk, dv, s, true);
            else merge_seq(sk, sv, s, m, m, t, dk, dv, s, false);
        }
    }
}

// (5) One round: runs of L (sorted, side by side from 0) pairwise into runs of 2L; work-item g
// writes outputs [g * piece, (g + 1) * piece), which may span the end of one pair and the start
// of the next.
__kernel __attribute__((reqd_work_group_size(1, 1, 1)))
void merge_cpu_round(__global const SK* in, ulong in_off, __global const V* vin, ulong vin_off,
                     __global SK* out, ulong out_off, __global V* vout, ulong vout_off,
                     ulong n, ulong L, ulong piece, uint out_convert)
{
    (void)vin; (void)vin_off; (void)vout; (void)vout_off;
    in += in_off;
    out += out_off;
#ifdef SORT_HAS_VALUES
    vin += vin_off;
    vout += vout_off;
#endif
    const ulong g = get_global_id(0);
    ulong o = min(n, g * piece);
    const ulong o1 = min(n, o + piece);
    while (o < o1) {
        const ulong base = o / (2 * L) * (2 * L);
        const ulong la = min(L, n - base);
        const ulong lb = min(L, n - base - la);
        const ulong end = min(o1, base + la + lb);
        // This segment is outputs [o - base, end - base) of the merge of a = in[base, +la) and
        // b = in[base + la, +lb).
        const ulong i0 = co_rank(in + base, la, in + base + la, lb, o - base);
        const ulong i1 = co_rank(in + base, la, in + base + la, lb, end - base);
        const ulong j0 = (o - base) - i0, j1 = (end - base) - i1;
        if (out_convert) merge_seq(in, vin, base + i0, base + i1, base + la + j0, base + la + j1, out, vout, o, true);
        else merge_seq(in, vin, base + i0, base + i1, base + la + j0, base + la + j1, out, vout, o, false);
        o = end;
    }
}
