// Stable merge sort. Joined after sort_key_order.cl; needs K (key type macros), V (value type
// macros), SORT_HAS_VALUES when values travel with the keys, MERGE_ELEMS (elements per
// work-item, any count >= 1; odd counts make the strided local accesses below conflict-free).
//
// Keys are sorted as their sortable bits (key_to_sortable: unsigned order = requested order, floats
// by total order, descending as inverted bits so equal keys stay equal and ties are still broken by
// position). The first kernel converts on load, the last one converts back on store; between them
// the keys live in the host's scratch buffers. Buffers holding caller keys are declared as SK
// pointers (same width) and reinterpreted with as_K / as_K_UNSIGNED.
//
// The GPU path, a tile of wg * E elements per work-group:
// (1) merge_tile_sort: loads a tile (coalesced, through local memory), each work-item sorts its E
//     consecutive keys in registers (odd-even transposition: swaps only on strictly greater, so
//     stable), then the work-group merges runs of E, 2E, ... up to the tile in local memory.
// (2) merge_partition + merge_global: one global round per doubling of the run length. Each
//     work-group owns one tile of the output; one co-rank search per work-group (in a kernel
//     of its own: merge_partition below, or merge_path_search.cl's merge_partition_search, which
//     brackets each search from samples in local memory first; merge_global_split there hides
//     it behind merging) finds where it starts in its left input run. The work-group loads its pieces of
//     both runs side by side into local memory (coalesced), and each work-item then does ONE
//     co-rank search for its E outputs and merges them serially, keeping the two head keys in
//     registers and reading one new key per output. Results go back through local memory so the
//     stores are coalesced too. Every round reads and writes every key once.
// Values never move during the merges: a merge records where each output came from (its index in
// local memory), and the values follow once, at the end of each kernel, by that index (gathered in
// local memory, stored coalesced). Ties always go to the left run, so the sort is stable.
// Elements past n in the last tile are padded with the largest sortable value; being last in
// input order, stability keeps them last, and they are never stored.
//
// The public merge (merge.cpp, -DMERGE_TWO_RANGES) runs the same rounds' kernels (merge_partition
// + merge_global, or merge_cpu_round on CPU devices) once, on a different input geometry: one
// pair of runs, a = in[0, L) and b = in2[0, n - L), in two buffers and in the caller's key form
// (converted to sortable bits as they are read: LOAD_SK). The sort's rounds have one buffer with
// runs of L side by side (pair_of below) and LOAD_SK is the identity. Without MERGE_TWO_RANGES,
// in2 / vin2 are not read.
//
// (1) lives in merge_sort_tile.cl, joined after this file by the sort (merge_sort.cpp); the
// public merge does not need it.
#ifndef K_UNSIGNED
#error "merge_sort.cl needs K (the key type's macros)"
#endif
#ifndef V
#error "merge_sort.cl needs V (the value type's macros; a dummy without values)"
#endif
#ifndef MERGE_ELEMS
#error "merge_sort.cl needs MERGE_ELEMS"
#endif

#define SK K_UNSIGNED
#define SK_MAX ((SK)~(SK)0) // keys of 8 to 64 bits
#define E MERGE_ELEMS

// The comparison every merge below makes. The library's key order: sortable bits compared as
// unsigned. MERGE_COMPARATOR (sort with the user's comparator, sort_comparator.hpp): the keys stay
// as they are and CLPRIM_LESS(a, b) (generated from the function object, joined in front) orders
// them; the kernels are the same. SK_LESS(x, y): x goes strictly before y.
// SK_LE_AT(x, ix, y, iy, valid): x (at local position ix) goes no later than y (at iy), ties to x.
// The tile sort pads the range's last tile; with the key order the padding is the largest value,
// with a comparator there is none, so the padding is known by position instead: it is the suffix
// of the tile in input order, and (as it goes after every real key and the merges are stable)
// it stays the suffix of every sorted run, so position >= valid means padding.
#ifdef MERGE_COMPARATOR
#ifndef CLPRIM_LESS
#error "merge_sort.cl with MERGE_COMPARATOR needs CLPRIM_LESS"
#endif
inline SK caller_to_sortable(SK bits) { return bits; }
inline SK sortable_to_caller(SK s) { return s; }
#define SK_LESS(x, y) CLPRIM_LESS(K_AS_KEY(x), K_AS_KEY(y))
#define SK_LE_AT(x, ix, y, iy, valid) ((iy) >= (valid) || ((ix) < (valid) && !SK_LESS(y, x)))
#else
inline SK caller_to_sortable(SK bits) { return key_to_sortable(K_AS_KEY(bits)); }
inline SK sortable_to_caller(SK s) { return K_AS_UNSIGNED(sortable_to_key(s)); }
#define SK_LESS(x, y) ((x) < (y))
#define SK_LE_AT(x, ix, y, iy, valid) ((x) <= (y))
#endif

#ifdef MERGE_TWO_RANGES
#define LOAD_SK(x) caller_to_sortable(x)
#else
#define LOAD_SK(x) (x)
#endif

// Co-rank (merge path) in local memory: how many of the first d outputs of the stable merge of
// k[a0, a0 + la) and k[b0, b0 + lb) come from the first run. A binary search on the diagonal d.
// valid: positions from there on hold padding (SK_LE_AT).
inline uint co_rank_local(__local const SK* k, uint a0, uint la, uint b0, uint lb, uint d, uint valid)
{
    (void)valid;
    uint lo = d > lb ? d - lb : 0;
    uint hi = min(d, la);
    while (lo < hi) {
        const uint mid = (lo + hi) >> 1;
        // k[a0 + mid] precedes k[b0 + d-1-mid] (ties: a first): more of a is among the first d.
        const uint ia = a0 + mid, ib = b0 + d - 1 - mid;
        if (SK_LE_AT(k[ia], ia, k[ib], ib, valid)) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

// Serial merge from registers: the next E outputs of the stable merge of k[i, iend) and k[j, jend)
// (one local array, iend <= j, k[jend] readable). The two head keys stay in registers, so each
// output costs one comparison and one local read (the successor of the key taken). kr gets the
// keys, ix the local index each came from (for the values). Outputs past the end are garbage;
// callers never store them.
inline void merge_serial(__local const SK* k, uint i, const uint iend, uint j, const uint jend, SK* kr, uint* ix,
                         const uint valid)
{
    (void)valid;
    SK ka = k[i], kb = k[j];
#pragma unroll
    for (uint e = 0; e < E; ++e) {
        const bool take_a = j >= jend || (i < iend && SK_LE_AT(ka, i, kb, j, valid));
        kr[e] = take_a ? ka : kb;
        ix[e] = take_a ? i : j;
        const uint next = take_a ? i + 1 : j + 1;
        const SK x = k[min(next, jend)];
        if (take_a) {
            ka = x;
            i = next;
        } else {
            kb = x;
            j = next;
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
        if (!SK_LESS(LOAD_SK(b[d - 1 - mid]), LOAD_SK(a[mid]))) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

// The pair of runs output o belongs to: its first output `base` and the runs' lengths. The sort's
// rounds: runs of L (a multiple of the tile) side by side, merged pairwise, pair p covering
// [2pL, 2(p+1)L). MERGE_TWO_RANGES: one pair, a of length L and b of length n - L.
inline ulong pair_of(ulong o, ulong n, ulong L, ulong* la, ulong* lb)
{
#ifdef MERGE_TWO_RANGES
    (void)o;
    *la = L;
    *lb = n - L;
    return 0;
#else
    const ulong base = o / (2 * L) * (2 * L);
    *la = min(L, n - base);
    *lb = min(L, n - base - *la);
    return base;
#endif
}

// The round kernels' buffer arguments (in, in2, out and their values vin, vin2, vout) moved to
// their offsets; the values' arguments are unused without SORT_HAS_VALUES.
#ifdef SORT_HAS_VALUES
#define MERGE_ROUND_OFFSETS() \
    in += in_off; in2 += in2_off; out += out_off; vin += vin_off; vin2 += vin2_off; vout += vout_off
#else
#define MERGE_ROUND_OFFSETS() \
    (void)vin; (void)vin_off; (void)vin2; (void)vin2_off; (void)vout; (void)vout_off; \
    in += in_off; in2 += in2_off; out += out_off
#endif

// The second run of the pair at base: beside the first one in `in`, or (MERGE_TWO_RANGES) in2.
#ifdef MERGE_TWO_RANGES
#define RUN_B(in, in2, base, la) (in2)
#else
#define RUN_B(in, in2, base, la) ((in) + (base) + (la))
#endif

// The pair of runs output o belongs to, declared in the caller's scope (a round kernel's
// arguments in, in2, vin, vin2, n, L): base, la, lb (pair_of), the runs' keys ka, kb and with
// SORT_HAS_VALUES their values va, vb.
#ifdef SORT_HAS_VALUES
#define MERGE_PAIR_RUNS(o)                                \
    ulong la, lb;                                         \
    const ulong base = pair_of((o), n, L, &la, &lb);      \
    __global const SK* ka = in + base;                    \
    __global const SK* kb = RUN_B(in, in2, base, la);     \
    __global const V* va = vin + base;                    \
    __global const V* vb = RUN_B(vin, vin2, base, la)
#else
#define MERGE_PAIR_RUNS(o)                                \
    ulong la, lb;                                         \
    const ulong base = pair_of((o), n, L, &la, &lb);      \
    __global const SK* ka = in + base;                    \
    __global const SK* kb = RUN_B(in, in2, base, la)
#endif

// (2a) Where each work-group's tile of the output starts in its left run: one co-rank search per
// work-group, all in parallel, in a small kernel of its own before the merge kernel.
__kernel void merge_partition(__global const SK* in, ulong in_off, __global const SK* in2, ulong in2_off,
                              ulong n, ulong L, ulong tile, __global ulong* splits, ulong groups)
{
    const ulong g = get_global_id(0);
    if (g >= groups) return;
    in += in_off;
    in2 += in2_off;
    const ulong o0 = g * tile;
    ulong la, lb;
    const ulong base = pair_of(o0, n, L, &la, &lb);
    splits[g] = co_rank(in + base, la, RUN_B(in, in2, base, la), lb, o0 - base);
}

// (2b) One merge round: runs of L pairwise into runs of 2L, one output tile per work-group: the
// work-group loads its pieces of both runs (from merge_partition's splits), and each work-item
// merges E outputs serially after one co-rank search in local memory. The input and output may
// each be the caller's range (holding sortable bits between rounds) or the scratch buffer, hence
// the offsets; only the last round converts back to keys. lmem: the keys (tile + 1), then the
// values (tile).
// merge_tile is the body for one tile of `total` outputs. FULL (total == tile: every tile but the
// range's last) drops the bounds checks from the loads, the merge's tail and the stores, as the
// look-back scan's full tiles do; the kernel calls it with a constant, so each call is compiled
// with its own checks. (-DMERGE_FULL_TILES=0: every tile takes the checked body, for measurements.)
// ka / va: the left run, kb / vb: the right run (both from their first element).
inline void merge_tile(__global const SK* ka, __global const V* va, __global const SK* kb, __global const V* vb,
                       __global SK* out, __global V* vout, const ulong a0, const ulong b0, const ulong o0,
                       const uint na, const uint total, const uint out_convert, __local ulong* lmem,
                       const bool full)
{
    (void)va; (void)vb; (void)vout;
    const uint lid = get_local_id(0);
    const uint wg = get_local_size(0);
    const uint tile = wg * E;
    __local SK* lk = (__local SK*)lmem;
#ifdef SORT_HAS_VALUES
    // after the keys, aligned for V (vector values of 16 or 32 bytes; merge_round_local_bytes)
    const size_t v_align = sizeof(V) > 8 ? sizeof(V) : 8;
    __local V* lv = (__local V*)(lmem + ((tile + 1) * sizeof(SK) + v_align - 1) / v_align * v_align / 8);
#endif

    // Our pieces of both runs side by side in local memory, a's first (coalesced loads; the
    // values' loads are in flight together with the keys').
#pragma unroll
    for (uint r = 0; r < E; ++r) {
        const uint l = lid + r * wg;
        if (full || l < total) {
            const bool from_a = l < na;
            const ulong src = from_a ? a0 + l : b0 + (l - na);
            lk[l] = LOAD_SK(from_a ? ka[src] : kb[src]);
#ifdef SORT_HAS_VALUES
            lv[l] = from_a ? va[src] : vb[src];
#endif
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);

    // One co-rank search per work-item, then E outputs merged serially from registers; the
    // values follow by the index each key came from.
    const uint o = lid * E;
    const uint d = full ? o : min(o, total);
    const uint took_a = co_rank_local(lk, 0, na, na, total - na, d, total);
    SK kr[E];
    uint ix[E];
    merge_serial(lk, took_a, na, na + d - took_a, total, kr, ix, total);
#ifdef SORT_HAS_VALUES
    V vr[E];
#pragma unroll
    for (uint e = 0; e < E; ++e) vr[e] = (full || o + e < total) ? lv[ix[e]] : 0;
#endif

    // Back through local memory for coalesced stores.
    barrier(CLK_LOCAL_MEM_FENCE);
#pragma unroll
    for (uint e = 0; e < E; ++e) {
        if (full || o + e < total) {
            lk[o + e] = kr[e];
#ifdef SORT_HAS_VALUES
            lv[o + e] = vr[e];
#endif
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
#pragma unroll
    for (uint r = 0; r < E; ++r) {
        const uint l = lid + r * wg;
        if (full || l < total) {
            out[o0 + l] = out_convert ? sortable_to_caller(lk[l]) : lk[l];
#ifdef SORT_HAS_VALUES
            vout[o0 + l] = lv[l];
#endif
        }
    }
}

// merge_global's work for output tile g whose outputs take a[a0, a1) of its left run (the buffers
// already moved to their offsets): merge_global_tile below, merge_overlap.cl.
inline void merge_global_tile_at(__global const SK* in, __global const V* vin, __global const SK* in2,
                                 __global const V* vin2, __global SK* out, __global V* vout, const ulong n,
                                 const ulong L, const uint out_convert, const ulong a0, const ulong a1,
                                 __local ulong* lmem, const ulong g)
{
    const uint tile = get_local_size(0) * E;
    const ulong o0 = g * tile;
    ulong la, lb;
    const ulong base = pair_of(o0, n, L, &la, &lb);
    __global const SK* ka = in + base;
    __global const SK* kb = RUN_B(in, in2, base, la);
    __global const V* va = vin + base;
    __global const V* vb = RUN_B(vin, vin2, base, la);
    const ulong o1 = min(o0 + tile, n);
    const ulong b0 = (o0 - base) - a0;
    const uint na = (uint)(a1 - a0);
    const uint total = (uint)(o1 - o0);
#ifndef MERGE_FULL_TILES
#define MERGE_FULL_TILES 1
#endif
    if (MERGE_FULL_TILES && total == tile) merge_tile(ka, va, kb, vb, out, vout, a0, b0, o0, na, tile, out_convert, lmem, true);
    else merge_tile(ka, va, kb, vb, out, vout, a0, b0, o0, na, total, out_convert, lmem, false);
}

// merge_global's work for output tile g, its start and end from the partition's splits
// (merge_path_search.cl's merge_global_split calls it too).
inline void merge_global_tile(__global const SK* in, __global const V* vin, __global const SK* in2, __global const V* vin2,
                              __global SK* out, __global V* vout, const ulong n, const ulong L, const uint out_convert,
                              __global const ulong* splits, __local ulong* lmem, const ulong g)
{
    const ulong o0 = g * (get_local_size(0) * E), o1 = min(o0 + get_local_size(0) * E, n);
    ulong la, lb;
    const ulong base = pair_of(o0, n, L, &la, &lb);
    // The tile ends where the next one starts, unless it ends its pair of runs (all of a used).
    const ulong a1 = o1 == base + la + lb ? la : splits[g + 1];
    merge_global_tile_at(in, vin, in2, vin2, out, vout, n, L, out_convert, splits[g], a1, lmem, g);
}

__kernel void merge_global(__global const SK* in, ulong in_off, __global const V* vin, ulong vin_off,
                           __global const SK* in2, ulong in2_off, __global const V* vin2, ulong vin2_off,
                           __global SK* out, ulong out_off, __global V* vout, ulong vout_off, ulong n,
                           ulong L, uint out_convert, __global const ulong* splits, __local ulong4* lmem4)
{
    MERGE_ROUND_OFFSETS();
    // lmem4: aligned for vector values (see TILE_SORT_PARAMS)
    merge_global_tile(in, vin, in2, vin2, out, vout, n, L, out_convert, splits, (__local ulong*)lmem4, get_group_id(0));
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

#ifdef MERGE_CPU_STREAMS // (merge_cpu.cl, joined after: long merges in independent streams)
#ifndef MERGE_CPU_STREAMS_MIN
#define MERGE_CPU_STREAMS_MIN 256
#endif
void merge_seq_streams(__global const SK* restrict ka, __global const V* restrict va, ulong i, ulong i1,
                       __global const SK* restrict kb, __global const V* restrict vb, ulong j, ulong j1,
                       __global SK* restrict out, __global V* restrict vout, ulong o, const bool convert);
#endif

// Stable merge of ka[i, i1) and kb[j, j1) (the sort passes one buffer as both) into out[o, ...);
// values move with their keys. CONVERT: store the keys back in the caller's form. (merge_seq:
// long merges in streams where built so; merge_seq_one: the single loop.)
inline void merge_seq_one(__global const SK* restrict ka, __global const V* restrict va, ulong i, ulong i1,
                          __global const SK* restrict kb, __global const V* restrict vb, ulong j, ulong j1,
                          __global SK* restrict out, __global V* restrict vout, ulong o, const bool convert)
{
    (void)va; (void)vb; (void)vout;
    while (i < i1 && j < j1) {
        const SK x = LOAD_SK(ka[i]), y = LOAD_SK(kb[j]);
        const bool take_b = SK_LESS(y, x);
        const SK s = take_b ? y : x;
        out[o] = convert ? sortable_to_caller(s) : s;
#ifdef SORT_HAS_VALUES
        vout[o] = take_b ? vb[j] : va[i];
#endif
        ++o;
        i += take_b ? 0 : 1;
        j += take_b ? 1 : 0;
    }
    for (; i < i1; ++i, ++o) {
        const SK s = LOAD_SK(ka[i]);
        out[o] = convert ? sortable_to_caller(s) : s;
#ifdef SORT_HAS_VALUES
        vout[o] = va[i];
#endif
    }
    for (; j < j1; ++j, ++o) {
        const SK s = LOAD_SK(kb[j]);
        out[o] = convert ? sortable_to_caller(s) : s;
#ifdef SORT_HAS_VALUES
        vout[o] = vb[j];
#endif
    }
}

inline void merge_seq(__global const SK* restrict ka, __global const V* restrict va, ulong i, ulong i1,
                      __global const SK* restrict kb, __global const V* restrict vb, ulong j, ulong j1,
                      __global SK* restrict out, __global V* restrict vout, ulong o, const bool convert)
{
#ifdef MERGE_CPU_STREAMS
    if (i1 - i + j1 - j >= MERGE_CPU_STREAMS_MIN) {
        merge_seq_streams(ka, va, i, i1, kb, vb, j, j1, out, vout, o, convert);
        return;
    }
#endif
    merge_seq_one(ka, va, i, i1, kb, vb, j, j1, out, vout, o, convert);
}

#ifndef MERGE_TWO_RANGES
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
            while (p > 0 && SK_LESS(s, kr[p - 1])) {
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
            if (last) merge_seq(sk, sv, s, m, sk, sv, m, t, dk, dv, s, true);
            else merge_seq(sk, sv, s, m, sk, sv, m, t, dk, dv, s, false);
        }
    }
}
#endif // MERGE_TWO_RANGES

// (5) One round: runs of L (sorted, side by side from 0) pairwise into runs of 2L in pieces of
// `piece` outputs (piece g: outputs [g * piece, (g + 1) * piece), which may span the end of one
// pair and the start of the next). The launch's work-groups (one work-item each, about one per
// compute unit) take the pieces in turn by a counter (word 0 of the queue's look-back slots,
// lookback_slots.hpp: each group takes one ticket past the last piece before it stops, the one
// that takes the very last ticket sets it back to 0): a worker thread that joins the launch late
// (PoCL's second thread often does, RESULTS.md "#28/#30 on PoCL (s8-cpu)") takes what is left
// instead of its fixed share. The pieces are independent: nothing waits.
__kernel __attribute__((reqd_work_group_size(1, 1, 1)))
void merge_cpu_round(__global const SK* in, ulong in_off, __global const V* vin, ulong vin_off,
                     __global const SK* in2, ulong in2_off, __global const V* vin2, ulong vin2_off,
                     __global SK* out, ulong out_off, __global V* vout, ulong vout_off,
                     ulong n, ulong L, ulong piece, uint out_convert, __global volatile uint* counter, uint pieces)
{
    MERGE_ROUND_OFFSETS();
    const uint groups = (uint)get_num_groups(0);
    for (;;) {
        const uint g = atomic_inc(counter);
        if (g >= pieces) {
            if (g == pieces + groups - 1) atomic_xchg(counter, 0u); // the last ticket
            return;
        }
        ulong o = min(n, (ulong)g * piece);
        const ulong o1 = min(n, o + piece);
        while (o < o1) {
            ulong la, lb;
            const ulong base = pair_of(o, n, L, &la, &lb);
            const ulong end = min(o1, base + la + lb);
            // This segment is outputs [o - base, end - base) of the merge of a = in[base, +la) and
            // b (in[base + la, +lb), or in2[0, lb)).
            __global const SK* ka = in + base;
            __global const SK* kb = RUN_B(in, in2, base, la);
            __global const V* va = vin + base;
            __global const V* vb = RUN_B(vin, vin2, base, la);
            const ulong i0 = co_rank(ka, la, kb, lb, o - base);
            const ulong i1 = co_rank(ka, la, kb, lb, end - base);
            const ulong j0 = (o - base) - i0, j1 = (end - base) - i1;
            if (out_convert) merge_seq(ka, va, i0, i1, kb, vb, j0, j1, out, vout, o, true);
            else merge_seq(ka, va, i0, i1, kb, vb, j0, j1, out, vout, o, false);
            o = end;
        }
    }
}
