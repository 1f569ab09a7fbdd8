// The merge path's split searches (issue #30), one building block for the merge rounds' partition
// (merge_partition_search below) and merge_stream (merge_stream.cl, joined after this file).
// Joined after merge_sort.cl (SK, LOAD_SK, SK_LESS, pair_of, RUN_B). Needs MERGE_SPLIT_PROBES (P:
// positions one search step probes per diagonal, >= 1) and MERGE_SPLIT_ITEMS (G: work-items that
// share one diagonal's probes, 1 <= G <= P) for merge_partition_search. Optional (measurements):
// MERGE_SPLIT_KARY (k-ary steps before binary ones in merge_partition_search's window, G = 1),
// MERGE_SPLIT_PAIRED (0: the sample brackets one after the other), MERGE_SPLIT_SAMPLES1 (ends = 2:
// whole-run samples per run before the piece's, 256), MERGE_SPLIT_STAMPS (NVIDIA: the partition's
// phases timed and printed).
//
// A co-rank search looks for the co-rank of a diagonal d of the stable merge of a and b: the first
// x where b[d-1-x] goes strictly before a[x]. That predicate is false below the co-rank and true
// from it on, so P probes evenly spaced over the interval left, counted, leave one of P + 1
// sub-intervals: log_(P+1) of the length steps instead of log_2 (one global round trip each).
// Measured on the H100 (docs/RESULTS.md, "#30 (s5-merge)"): the round trips are not what costs
// most, the scattered reads are (each probe reads a sector of each run), so the partition's default
// narrows every diagonal first from samples in local memory: every S-th key of both runs, read
// once per work-group in one round trip, then searched in local memory. Only a window of at most
// 2S keys is left to search in global memory.
#ifndef SK_MAX
#error "merge_path_search.cl is joined after merge_sort.cl"
#endif
#ifndef MERGE_SPLIT_PROBES
#error "merge_path_search.cl needs MERGE_SPLIT_PROBES"
#endif
#ifndef MERGE_SPLIT_ITEMS
#error "merge_path_search.cl needs MERGE_SPLIT_ITEMS"
#endif

// Reads one work-item has in flight before it uses any: a search step's probes, the samples'
// loads. Fewer keep the registers down where a kernel holds a search beside a merge
// (merge_overlap.cl's program: 4).
#ifndef MERGE_PATH_IN_FLIGHT
#define MERGE_PATH_IN_FLIGHT 16
#endif
#ifndef MERGE_SAMPLES_IN_FLIGHT
#define MERGE_SAMPLES_IN_FLIGHT 16
#endif
#ifndef MERGE_SPLIT_SAMPLES1
#define MERGE_SPLIT_SAMPLES1 256 // ends = 2: whole-run samples per run for the work-group's piece
#endif
#ifndef MERGE_SPLIT_KARY
#define MERGE_SPLIT_KARY 0 // merge_partition_search's window: k-ary steps before binary ones (0: all k-ary)
#endif

// Steps a search of P probes per step needs for an interval of `len` positions (each step leaves
// at most len / (P + 1) of them).
inline uint merge_path_steps(ulong len, uint P)
{
    uint s = 0;
    for (; len > 0; len /= (P + 1)) ++s;
    return s;
}

// The co-rank search, shared by G work-items: the first x in [*lo, *hi) where b[d-1-x] goes
// strictly before a[x] (*hi where none), left in both *lo and *hi. A step probes P evenly spaced
// positions of the interval left (probe p at lo + (p + 1) * len / (P + 1)); item j of the G takes
// probes j, j + G, ..., reads them all before it compares any, and counts where the predicate
// does not hold (a prefix of the probes). G > 1: the G counts meet in flags[0, G), with barriers,
// so every work-item of the work-group makes the call with the same `steps` (a bound for the
// longest interval; active = false: no diagonal, no reads), and runs all of them (no early exit:
// a loop holding a barrier keeps one trip count for the whole work-group, whatever G is at run
// time). P = G = 1 is the binary search.
inline void merge_path_search(__global const SK* a, __global const SK* b, const ulong d, ulong* lo, ulong* hi,
                              const uint steps, const uint P, const uint G, const uint j, __local uint* flags,
                              const bool active)
{
    ulong l = *lo, h = *hi;
    for (uint s = 0; s < steps; ++s) {
        const ulong len = active ? h - l : 0;
        uint c = 0;
        if (len > 0) {
            for (uint p0 = j; p0 < P; p0 += G * MERGE_PATH_IN_FLIGHT) {
                SK av[MERGE_PATH_IN_FLIGHT], bv[MERGE_PATH_IN_FLIGHT];
#pragma unroll
                for (uint k = 0; k < MERGE_PATH_IN_FLIGHT; ++k) {
                    const uint p = p0 + k * G;
                    if (p < P) {
                        const ulong x = l + (ulong)(p + 1) * len / (P + 1);
                        av[k] = LOAD_SK(a[x]);
                        bv[k] = LOAD_SK(b[d - 1 - x]);
                    }
                }
#pragma unroll
                for (uint k = 0; k < MERGE_PATH_IN_FLIGHT; ++k)
                    if (p0 + k * G < P && !SK_LESS(bv[k], av[k])) ++c;
            }
        }
        if (G > 1) {
            if (active) flags[j] = c; // an inactive work-item's words may be a diagonal's
            barrier(CLK_LOCAL_MEM_FENCE);
            // The probes counted are a prefix, c of them: item i's count is ceil((c - i) / G)
            // (i < c), so the counts are flags[0] up to item r - 1 and one less from item r on,
            // where c = (flags[0] - 1) G + r, 1 <= r <= G. A binary search for r reads log2(G)
            // words where a sum would read G (128 in the fallback's searches).
            const uint c0 = flags[0];
            uint r = 1, rh = G;
            while (r < rh) {
                const uint m = (r + rh) / 2;
                if (flags[m] < c0) rh = m;
                else r = m + 1;
            }
            c = c0 > 0 ? (c0 - 1) * G + r : 0;
            barrier(CLK_LOCAL_MEM_FENCE);
        }
        if (len > 0) {
            // Probe c - 1 held (the co-rank is past it), probe c did not (the co-rank is at or before it).
            const ulong nl = c > 0 ? l + (ulong)c * len / (P + 1) + 1 : l;
            h = c < P ? l + (ulong)(c + 1) * len / (P + 1) : h;
            l = nl;
        }
    }
    *lo = l;
    *hi = h;
}

// The co-rank at a sample diagonal D = t * S (S = 2^shift) bracketed from the samples sa[i] =
// a[iS] and sb[k] = b[kS + S - 1]: at x = iS the predicate compares a[iS] with b[D - 1 - iS] =
// b[(t - i - 1)S + S - 1], both samples. A binary search over the i with iS in [max(0, D - lb),
// min(D, la)) finds the first where it holds; the co-rank lies in [*L, *H], at most S - 1 wide.
inline void merge_path_sample_bracket(__local const SK* sa, __local const SK* sb, const ulong la, const ulong lb,
                                      const uint shift, const ulong D, ulong* L, ulong* H)
{
    const ulong S = (ulong)1 << shift;
    const ulong lo = D > lb ? D - lb : 0, hi = min(D, la);
    const ulong ib = (lo + S - 1) >> shift, ie = (hi + S - 1) >> shift, t = D >> shift;
    ulong f = ib, len = ie - ib;
    while (len > 0) {
        const ulong step = len >> 1, i = f + step;
        if (SK_LESS(sb[t - i - 1], sa[i])) len = step;
        else {
            f = i + 1;
            len -= step + 1;
        }
    }
    *L = f > ib ? ((f - 1) << shift) + 1 : lo;
    *H = f < ie ? f << shift : hi;
}

// The co-ranks of diagonals d0 and d1 of the stable merge of a[0, la) and b[0, lb), searched side
// by side by the whole work-group: work-items [0, G) share d0's P probes per step, [G, 2G) d1's
// (G the largest divisor of P up to wg / 2; a work-group of one searches them in turn). flags:
// 2G words, cuts: two words, both in local memory. Every work-item calls it (barriers) and gets
// both co-ranks. merge_stream finds its piece of both runs with it, merge_split_starts the ends of
// its work-group's tile starts.
inline void merge_path_search_pair(__global const SK* a, const ulong la, __global const SK* b, const ulong lb,
                                   const ulong d0, const ulong d1, const uint P, __local uint* flags,
                                   __local ulong* cuts, ulong* c0, ulong* c1)
{
    const uint lid = get_local_id(0), wg = get_local_size(0);
    const bool pair = wg >= 2;
    uint G = min(P, max(1u, wg / 2));
    while (P % G) --G;
    const uint steps = merge_path_steps(min(la, lb), P);
    for (uint r = 0; r < (pair ? 1u : 2u); ++r) {
        const uint side = pair ? (lid >= G ? 1u : 0u) : r;
        const ulong d = side ? d1 : d0;
        ulong lo = d > lb ? d - lb : 0, hi = min(d, la);
        const bool active = pair ? lid < 2 * G : true;
        merge_path_search(a, b, d, &lo, &hi, steps, P, G, lid % G, flags + side * G, active);
        if (active && lid % G == 0) cuts[side] = lo;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    *c0 = cuts[0];
    *c1 = cuts[1];
    barrier(CLK_LOCAL_MEM_FENCE); // the caller may reuse flags and cuts
}

// Every S-th key (S = 2^shift) of a[0, sla) and b[0, slb) into local memory, the work-group
// together, MERGE_SAMPLES_IN_FLIGHT reads in flight per work-item: sa[i] = a[iS], sb[k] = b[kS + S - 1] (the keys
// merge_path_sample_bracket compares). With `g` (gathered: merge_split_gather's samples of the
// whole runs at S' = S / 2^gsh, ga = g[0, ...), gb = g[gbo, ...)) they are read from there
// instead: a[iS] = ga[i 2^gsh], b[kS + S - 1] = gb[(k + 1) 2^gsh - 1]. Ends with a barrier.
inline void merge_path_load_samples(__global const SK* a, const ulong sla, __global const SK* b, const ulong slb,
                                    const uint shift, __local SK* sa, __local SK* sb, __global const SK* g,
                                    const bool gathered, const uint gsh, const ulong gbo)
{
    const uint lid = get_local_id(0), wg = get_local_size(0);
    const uint ca = (uint)((sla + ((ulong)1 << shift) - 1) >> shift), cb = (uint)(slb >> shift);
    const ulong last = ((ulong)1 << shift) - 1, glast = ((ulong)1 << gsh) - 1;
    for (uint i0 = lid; i0 < ca + cb; i0 += MERGE_SAMPLES_IN_FLIGHT * wg) {
        SK v[MERGE_SAMPLES_IN_FLIGHT];
#pragma unroll
        for (uint u = 0; u < MERGE_SAMPLES_IN_FLIGHT; ++u) {
            const uint i = i0 + u * wg;
            if (i < ca) v[u] = gathered ? g[(ulong)i << gsh] : LOAD_SK(a[(ulong)i << shift]);
            else if (i < ca + cb)
                v[u] = gathered ? g[gbo + ((ulong)(i - ca) << gsh) + glast] : LOAD_SK(b[((ulong)(i - ca) << shift) + last]);
        }
#pragma unroll
        for (uint u = 0; u < MERGE_SAMPLES_IN_FLIGHT; ++u) {
            const uint i = i0 + u * wg;
            if (i < ca) sa[i] = v[u];
            else if (i < ca + cb) sb[i - ca] = v[u];
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
}

// The brackets at two sample diagonals D0 and D1 (two: D1 taken too), as merge_path_sample_bracket
// finds each, both binary searches side by side in one loop (their local reads in flight
// together: half the chain of the two one after the other), in 32-bit sample indices (a work-group
// holds at most 2^16 samples a run).
inline void merge_path_sample_bracket2(__local const SK* sa, __local const SK* sb, const ulong la, const ulong lb,
                                       const uint shift, const ulong D0, const ulong D1, const bool two, ulong* L,
                                       ulong* H)
{
    const ulong S = (ulong)1 << shift;
    ulong lo[2], hi[2];
    uint ib[2], ie[2], f[2], len[2];
    for (uint s = 0; s < 2; ++s) {
        const ulong D = s ? D1 : D0;
        lo[s] = D > lb ? D - lb : 0;
        hi[s] = min(D, la);
        ib[s] = (uint)((lo[s] + S - 1) >> shift);
        ie[s] = (uint)((hi[s] + S - 1) >> shift);
        f[s] = ib[s];
        len[s] = s && !two ? 0u : ie[s] - ib[s];
    }
    // sb's index t - i - 1 >= 0: i < ie <= t
    const uint t0 = (uint)(D0 >> shift), t1 = (uint)(D1 >> shift);
    while (len[0] > 0 || len[1] > 0) {
        const uint h0 = len[0] >> 1, h1 = len[1] >> 1, i0 = f[0] + h0, i1 = f[1] + h1;
        // (reads only where a search goes on: an ended one's indices may lie outside the samples)
        const bool m0 = len[0] > 0 && SK_LESS(sb[t0 - i0 - 1], sa[i0]);
        const bool m1 = len[1] > 0 && SK_LESS(sb[t1 - i1 - 1], sa[i1]);
        if (len[0] > 0) {
            if (m0) len[0] = h0;
            else {
                f[0] = i0 + 1;
                len[0] -= h0 + 1;
            }
        }
        if (len[1] > 0) {
            if (m1) len[1] = h1;
            else {
                f[1] = i1 + 1;
                len[1] -= h1 + 1;
            }
        }
    }
    for (uint s = 0; s < 2; ++s) {
        L[s] = f[s] > ib[s] ? ((ulong)(f[s] - 1) << shift) + 1 : lo[s];
        H[s] = f[s] < ie[s] ? (ulong)f[s] << shift : hi[s];
    }
}

// The window [*lo, *hi] holding the co-rank at diagonal ds of the merge of a[0, sla) and b[0, slb),
// from their samples (merge_path_load_samples): the brackets at the sample diagonals D0 <= ds <
// D1 = D0 + S, moved along the path (the co-rank moves by at most one per output): at most 1.5 S.
// MERGE_SPLIT_PAIRED (default 1): both brackets searched side by side (merge_path_sample_bracket2,
// 32-bit sample indices); 0: as before session 8, for measurements (one after the other in 64-bit
// indices, the first start's and the last's windows by one work-item, the exact ends' pair search
// run empty where ends != 1).
#ifndef MERGE_SPLIT_PAIRED
#define MERGE_SPLIT_PAIRED 1
#endif
inline void merge_path_sample_window(__local const SK* sa, __local const SK* sb, const ulong sla, const ulong slb,
                                     const uint shift, const ulong ds, ulong* lo, ulong* hi)
{
    const ulong S = (ulong)1 << shift, D0 = ds >> shift << shift, D1 = D0 + S;
    const bool two = ds > D0 && D1 <= sla + slb;
#if MERGE_SPLIT_PAIRED
    ulong Ls[2], Hs[2];
    merge_path_sample_bracket2(sa, sb, sla, slb, shift, D0, D1, two, Ls, Hs);
    ulong l = Ls[0], h = Hs[0] + (ds - D0);
    if (two) {
        l = max(l, Ls[1] > D1 - ds ? Ls[1] - (D1 - ds) : 0);
        h = min(h, Hs[1]);
    }
#else
    ulong L0, H0;
    merge_path_sample_bracket(sa, sb, sla, slb, shift, D0, &L0, &H0);
    ulong l = L0, h = H0 + (ds - D0);
    if (two) {
        ulong L1, H1;
        merge_path_sample_bracket(sa, sb, sla, slb, shift, D1, &L1, &H1);
        l = max(l, L1 > D1 - ds ? L1 - (D1 - ds) : 0);
        h = min(h, H1);
    }
#endif
    *lo = l;
    *hi = h;
}

// The gathered samples of one pair of runs a[0, la), b[0, lb) (S = 2^gshift): g[i] = a[iS] for i <
// ceil(la / S), then g[ceil(la / S) + k] = b[kS + S - 1] for k < floor(lb / S), one key per
// work-item. One launch before the partition (merge_round_gpu), so that every work-group of the
// partition reads its local samples from this small array (in L2) instead of gathering them from
// all over both runs, and brackets its diagonals a second time from it (merge_path_gathered_window).
__kernel void merge_split_gather(__global const SK* in, ulong in_off, __global const SK* in2, ulong in2_off, ulong n,
                                 ulong L, uint gshift, __global SK* g)
{
    ulong la, lb;
    (void)pair_of(0, n, L, &la, &lb);
    __global const SK* a = in + in_off;
    __global const SK* b = RUN_B(in + in_off, in2 + in2_off, 0, la);
    const ulong S = (ulong)1 << gshift, ca = (la + S - 1) >> gshift, cb = lb >> gshift;
    const ulong i = get_global_id(0);
    if (i < ca) g[i] = LOAD_SK(a[i << gshift]);
    else if (i < ca + cb) g[i] = LOAD_SK(b[((i - ca) << gshift) + S - 1]);
}

// The co-rank at diagonal d of the merge of a[0, la) and b[0, lb), known to lie in [*lo, *hi],
// narrowed from the gathered samples (S = 2^gshift; ga, gb as merge_split_gather writes them, in
// global memory) as merge_path_sample_window does from local ones: the brackets at the sample
// diagonals D0 <= d < D1 = D0 + S, each binary search over only the sample indices that [*lo, *hi]
// leaves possible (the co-rank moves by at most one per output), both searches side by side (one
// round trip a step for both). Leaves a window of at most 1.5 S.
inline void merge_path_gathered_window(__global const SK* ga, __global const SK* gb, const ulong la, const ulong lb,
                                       const uint gshift, const ulong d, ulong* lo, ulong* hi)
{
    const ulong S = (ulong)1 << gshift, D0 = d >> gshift << gshift, D1 = D0 + S;
    const bool two = d > D0 && D1 <= la + lb;
    ulong ib[2], ie[2], f[2], len[2], nlo[2], nhi[2];
    for (uint s = 0; s < 2; ++s) {
        const ulong D = s ? D1 : D0;
        if (s && !two) { // no second bracket
            ib[s] = ie[s] = f[s] = len[s] = nlo[s] = nhi[s] = 0;
            continue;
        }
        nlo[s] = D > lb ? D - lb : 0;
        nhi[s] = min(D, la);
        ib[s] = (nlo[s] + S - 1) >> gshift;
        ie[s] = (nhi[s] + S - 1) >> gshift;
        // What [*lo, *hi] at d says of the co-rank at D, then of the first sample index that holds.
        const ulong xlo = s ? *lo : (*lo > d - D0 ? *lo - (d - D0) : 0);
        const ulong xhi = s ? *hi + (D1 - d) : *hi;
        f[s] = clamp(xlo >> gshift, ib[s], ie[s]);
        len[s] = clamp((xhi >> gshift) + 1, f[s], ie[s]) - f[s];
    }
    const ulong t0 = D0 >> gshift, t1 = t0 + 1;
    while (len[0] > 0 || len[1] > 0) {
        const ulong h0 = len[0] >> 1, h1 = len[1] >> 1, i0 = f[0] + h0, i1 = f[1] + h1;
        SK a0 = 0, b0 = 0, a1 = 0, b1 = 0;
        if (len[0] > 0) {
            a0 = ga[i0];
            b0 = gb[t0 - i0 - 1];
        }
        if (len[1] > 0) {
            a1 = ga[i1];
            b1 = gb[t1 - i1 - 1];
        }
        if (len[0] > 0) {
            if (SK_LESS(b0, a0)) len[0] = h0;
            else {
                f[0] = i0 + 1;
                len[0] -= h0 + 1;
            }
        }
        if (len[1] > 0) {
            if (SK_LESS(b1, a1)) len[1] = h1;
            else {
                f[1] = i1 + 1;
                len[1] -= h1 + 1;
            }
        }
    }
    const ulong L0 = f[0] > ib[0] ? ((f[0] - 1) << gshift) + 1 : nlo[0];
    const ulong H0 = f[0] < ie[0] ? f[0] << gshift : nhi[0];
    ulong l = L0, h = H0 + (d - D0);
    if (two) {
        const ulong L1 = f[1] > ib[1] ? ((f[1] - 1) << gshift) + 1 : nlo[1];
        const ulong H1 = f[1] < ie[1] ? f[1] << gshift : nhi[1];
        l = max(l, L1 > D1 - d ? L1 - (D1 - d) : 0);
        h = min(h, H1);
    }
    *lo = max(*lo, l);
    *hi = min(*hi, h);
}

// The merge rounds' partition (what merge_global needs: where each output tile starts in its left
// run), G work-items per tile start, wg / G tile starts per work-group: this work-group's are tile
// starts [first, first + wg / G) below `groups`. With `samples` > 0, where all of them lie in one
// pair of runs (always for the public merge), the search of each is bracketed first from samples
// in local memory: every S-th key of both runs (S the smallest power of two that needs no more
// than `samples` per run), read in one round trip. Which keys: ends = 0, the whole runs (S tens
// of thousands of keys at 2^26); else only the piece of both runs between the work-group's first
// and last tile start, which holds the path of every start in between (S a few hundred keys):
// ends = 1 finds their exact co-ranks first (merge_path_search_pair, wg / 2 probes per step
// each), ends = 2 windows for them from 256 samples of the whole runs. Each diagonal d is then
// bracketed by the sample diagonals around it (merge_path_sample_window: within 1.5 S), and the
// global search runs over that window only. flags: wg words, cuts: four words of local memory.
// MERGE_SPLIT_STAMPS (measurements, NVIDIA only: CLPRIM_PTX): work-item 0 of the partition's
// work-groups 0, the middle one and the last takes the SM clock (clock64) at each phase's end and
// prints the phases' cycles (printf) with the global timer at the start and after the last barrier:
// where the partition's chain spends its time.
#if defined(MERGE_SPLIT_STAMPS) && defined(CLPRIM_PTX)
#define MERGE_SPLIT_STAMP(i)                                          \
    if (lid == 0) {                                                   \
        ulong c_;                                                     \
        asm volatile("mov.u64 %0, %%clock64;" : "=l"(c_));            \
        st_[i] = c_;                                                  \
    }
#else
#define MERGE_SPLIT_STAMP(i)
#endif

// merge_split_find does the search and returns the tile start this work-item found (its co-rank
// in *found), or ~0 where it has none to write (inactive, or not the first of its G);
// merge_split_starts writes it to splits, merge_overlap.cl publishes it in a look-back slot.
inline ulong merge_split_find(__global const SK* in, __global const SK* in2, const ulong n, const ulong L,
                              const ulong tile, const ulong first, const ulong groups, const uint samples,
                              const uint ends, __local SK* lsamples, __local uint* flags, __local ulong* cuts,
                              const uint P, const uint G, __global const SK* gath, const uint gshift, ulong* found)
{
    const uint lid = get_local_id(0), wg = get_local_size(0);
    const uint per_group = wg / G; // tile starts per work-group
    const uint q = lid / G, j = lid % G;
    const ulong g0 = first;
    const ulong g = g0 + q;
    const bool active = q < per_group && g < groups;
#if defined(MERGE_SPLIT_STAMPS) && defined(CLPRIM_PTX)
    ulong st_[8] = {0, 0, 0, 0, 0, 0, 0, 0}, gt0_ = 0;
    if (lid == 0) asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(gt0_));
#endif
    MERGE_SPLIT_STAMP(0)

    // Samples where the whole work-group's diagonals lie in one pair of runs (uniform).
    ulong la0, lb0, la1, lb1;
    const ulong base0 = pair_of(g0 * tile, n, L, &la0, &lb0);
    const ulong glast = min(g0 + per_group, groups) - 1;
    __global const SK* ka0 = in + base0;
    __global const SK* kb0 = RUN_B(in, in2, base0, la0);
    // (Every barrier below is reached by the whole work-group whatever the mode: steps, counts or
    // the work-item doing the work are what the mode switches. PoCL's work-group compiler wants
    // them so.)
    const bool in_pair = samples > 0 && pair_of(glast * tile, n, L, &la1, &lb1) == base0;
    const ulong df = g0 * tile - base0, dl = glast * tile - base0;
    ulong oa = 0, ob = 0, sla = la0, slb = lb0; // the sampled rectangle: a[oa, oa + sla), b[ob, ob + slb)
    __local SK* sa = lsamples;
    __local SK* sb = lsamples + samples;
    // ends = 1: the exact co-ranks of the first and last start.
    const bool exact = in_pair && ends == 1, windowed = in_pair && ends == 2;
    ulong cf = 0, cl = 0;
    // (only for ends = 1; MERGE_SPLIT_PAIRED=0 runs it empty in every mode, as before session 8)
    if (exact || !MERGE_SPLIT_PAIRED)
        merge_path_search_pair(ka0, exact ? la0 : 0, kb0, exact ? lb0 : 0, exact ? df : 0, exact ? dl : 0, max(1u, wg / 2),
                               flags, cuts, &cf, &cl);
    MERGE_SPLIT_STAMP(1)
    if (exact) {
        oa = cf;
        ob = df - cf;
        sla = cl - cf;
        slb = (dl - cl) - ob;
    }
    // gshift > 0: the whole runs' samples were gathered (merge_split_gather: the round's one pair
    // of runs, at base 0), every 2^gshift-th key; samples at least that far apart are read from
    // there (in L2) rather than from all over both runs.
    const bool gpair = gshift > 0 && in_pair && (ends == 0 || windowed) && base0 == 0 && la0 + lb0 == n;
    const ulong gca = (la0 + ((ulong)1 << gshift) - 1) >> gshift;
    // ends = 2: windows for them from a few samples of the whole runs.
    uint s1 = 0;
    const uint c1 = min(samples, (uint)MERGE_SPLIT_SAMPLES1);
    while (windowed && ((max(la0, lb0) + ((ulong)1 << s1) - 1) >> s1) > c1) ++s1;
    const bool g1 = gpair && windowed && s1 >= gshift;
    merge_path_load_samples(ka0, windowed ? la0 : 0, kb0, windowed ? lb0 : 0, s1, sa, sa + c1, gath, g1,
                            g1 ? s1 - gshift : 0, gca);
    MERGE_SPLIT_STAMP(2)
    // The first start's window by work-item 0, the last's by work-item 1 (MERGE_SPLIT_PAIRED;
    // both by work-item 0 in a work-group of one, or with MERGE_SPLIT_PAIRED=0).
    const uint wstep = MERGE_SPLIT_PAIRED ? wg : 1;
    for (uint w = MERGE_SPLIT_PAIRED ? lid : (lid == 0 ? 0u : 2u); windowed && w < 2; w += wstep) {
        const ulong dd = w ? dl : df;
        ulong l, h;
        merge_path_sample_window(sa, sa + c1, la0, lb0, s1, dd, &l, &h);
        cuts[2 * w] = max(l, dd > lb0 ? dd - lb0 : 0);
        cuts[2 * w + 1] = min(h, min(dd, la0));
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (windowed) {
        oa = cuts[0];
        ob = df - cuts[1];
        sla = cuts[3] - oa;
        slb = (dl - cuts[2]) - ob;
        if (gpair) { // the rectangle's corner on the gathered samples' grid (a larger rectangle holds the path too)
            const ulong m = ((ulong)1 << gshift) - 1;
            sla += oa & m;
            oa &= ~m;
            slb += ob & m;
            ob &= ~m;
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE); // the samples' memory is reused below
    MERGE_SPLIT_STAMP(3)
    uint shift = 0;
    bool sampled = false;
    if (in_pair) {
        const ulong m = max(sla, slb);
        while (((m + ((ulong)1 << shift) - 1) >> shift) > samples) ++shift;
        sampled = ends || min(sla, slb) > ((ulong)2 << shift); // else the window would be no shorter
    }
    // From the gathered samples: the local ones are every 2^(shift - gshift)-th of them, from the
    // rectangle's corner on (oa, ob multiples of 2^gshift).
    const bool gathered = gpair && sampled && shift >= gshift;
    merge_path_load_samples(ka0 + oa, sampled ? sla : 0, kb0 + ob, sampled ? slb : 0, shift, sa, sb,
                            gath + (gathered ? oa >> gshift : 0), gathered, gathered ? shift - gshift : 0,
                            gathered ? gca + (ob >> gshift) - (oa >> gshift) : 0);
    MERGE_SPLIT_STAMP(4)

    ulong la = la0, lb = lb0, d = 0, lo = 0, hi = 0;
    __global const SK* ka = in;
    __global const SK* kb = in2;
    if (active) {
        const ulong o0 = g * tile;
        const ulong base = pair_of(o0, n, L, &la, &lb);
        ka = in + base;
        kb = RUN_B(in, in2, base, la);
        d = o0 - base;
        lo = d > lb ? d - lb : 0;
        hi = min(d, la);
        if (sampled) {
            // In the rectangle (diagonal d - oa - ob of the merge of a[oa, oa + sla) and b[ob, ob + slb),
            // which holds this part of the path), then back.
            ulong slo, shi;
            merge_path_sample_window(sa, sb, sla, slb, shift, d - oa - ob, &slo, &shi);
            lo = max(lo, oa + slo);
            hi = min(hi, oa + shi);
            if (gathered && shift > gshift) merge_path_gathered_window(gath, gath + gca, la, lb, gshift, d, &lo, &hi);
        }
    }
    MERGE_SPLIT_STAMP(5)
    // A bound for every diagonal's interval, the same in every work-item.
#ifdef MERGE_TWO_RANGES
    const ulong widest = min(L, n - L);
#else
    const ulong widest = L;
#endif
    const ulong span = gathered ? (ulong)2 << gshift : sampled ? (ulong)2 << shift : widest;
#if MERGE_SPLIT_KARY > 0
    // The first MERGE_SPLIT_KARY steps with P probes (a work-item's own: G = 1, no barriers), the
    // rest binary: the k-ary steps leave a window a few sectors wide whose last steps hit L1.
    if (G == 1 && P > 1) {
        const uint k = min((uint)MERGE_SPLIT_KARY, merge_path_steps(span, P));
        ulong rest = span;
        for (uint i = 0; i < k; ++i) rest /= P + 1;
        merge_path_search(ka, kb, d, &lo, &hi, k, P, 1, 0, flags, active);
        merge_path_search(ka, kb, d, &lo, &hi, merge_path_steps(rest, 1), 1, 1, 0, flags, active);
    } else
#endif
        merge_path_search(ka, kb, d, &lo, &hi, merge_path_steps(span, P), P, G, j, flags + q * G, active);
    *found = lo;
#if defined(MERGE_SPLIT_STAMPS) && defined(CLPRIM_PTX)
    MERGE_SPLIT_STAMP(6)
    barrier(CLK_LOCAL_MEM_FENCE);
    MERGE_SPLIT_STAMP(7)
    const ulong last_ = (groups - 1) / per_group, w_ = g0 / per_group;
    if (lid == 0 && (w_ == 0 || w_ == last_ / 2 || w_ == last_)) {
        ulong gt1_;
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(gt1_));
        printf("split_stamps wg %lu of %lu: pair %lu, samples1 %lu, windows1 %lu, samples2 %lu, window2 %lu, search %lu, "
               "group end %lu cycles; globaltimer %lu .. %lu (%lu ns)\n",
               w_, last_ + 1, st_[1] - st_[0], st_[2] - st_[1], st_[3] - st_[2], st_[4] - st_[3], st_[5] - st_[4],
               st_[6] - st_[5], st_[7] - st_[6], gt0_, gt1_, gt1_ - gt0_);
    }
#endif
    return active && j == 0 ? g : ~(ulong)0;
}

inline void merge_split_starts(__global const SK* in, __global const SK* in2, const ulong n, const ulong L,
                               const ulong tile, __global ulong* splits, const ulong first, const ulong groups,
                               const uint samples, const uint ends, __local SK* lsamples, __local uint* flags,
                               __local ulong* cuts, const uint P, const uint G, __global const SK* gath,
                               const uint gshift)
{
    ulong lo;
    const ulong g = merge_split_find(in, in2, n, L, tile, first, groups, samples, ends, lsamples, flags, cuts, P, G, gath,
                                     gshift, &lo);
    if (g != ~(ulong)0) splits[g] = lo;
}

__kernel void merge_partition_search(__global const SK* in, ulong in_off, __global const SK* in2, ulong in2_off,
                                     ulong n, ulong L, ulong tile, __global ulong* splits, ulong groups, uint samples,
                                     uint ends, __local SK* lsamples, __local uint* flags, __global const SK* gath,
                                     uint gshift)
{
    __local ulong cuts[4];
#if defined(MERGE_TWO_RANGES) && defined(MERGE_L2_PREFETCH) && MERGE_L2_PREFETCH > 0
    // (NVIDIA, the public merge) The partition is a chain of dependent reads that leaves the DRAM
    // idle: meanwhile, warm L2 with the first MERGE_L2_PREFETCH keys of both runs, which
    // merge_global's first work-groups read next (one prefetch per 128-byte line, issued first,
    // nothing waits on them).
    {
        const ulong ab = min((ulong)MERGE_L2_PREFETCH, L) * sizeof(SK), bb = min((ulong)MERGE_L2_PREFETCH, n - L) * sizeof(SK);
        const ulong step = get_global_size(0) * 128;
        for (ulong o = get_global_id(0) * 128; o < ab; o += step)
            asm volatile("prefetch.global.L2 [%0];" ::"l"((__global const uchar*)(in + in_off) + o));
        for (ulong o = get_global_id(0) * 128; o < bb; o += step)
            asm volatile("prefetch.global.L2 [%0];" ::"l"((__global const uchar*)(in2 + in2_off) + o));
    }
#endif
    merge_split_starts(in + in_off, in2 + in2_off, n, L, tile, splits,
                       get_group_id(0) * (ulong)(get_local_size(0) / MERGE_SPLIT_ITEMS), groups, samples, ends, lsamples,
                       flags, cuts, MERGE_SPLIT_PROBES, MERGE_SPLIT_ITEMS, gath, gshift);
}

// A merge round's tiles [tile0, ...) with the next tiles' starts searched beside them (the
// partition's latency hidden behind merging, issue #30): the first `split_groups` work-groups
// search tile starts [first_start, groups) as merge_partition_search does, one work-item each with
// a binary search after the samples' brackets (`samples` per run, then wg count words, in this
// kernel's local memory), the others each merge one tile as merge_global does. The host runs the
// starts the first tiles need before (a plain partition), this kernel for those tiles with the
// rest's starts, then this kernel again with split_groups = 0 for the rest. Nothing here waits on
// another work-group.
__kernel void merge_global_split(__global const SK* in, ulong in_off, __global const V* vin, ulong vin_off,
                                 __global const SK* in2, ulong in2_off, __global const V* vin2, ulong vin2_off,
                                 __global SK* out, ulong out_off, __global V* vout, ulong vout_off, ulong n,
                                 ulong L, uint out_convert, __global ulong* splits, __local ulong4* lmem4,
                                 ulong tile0, ulong split_groups, ulong first_start, ulong groups, uint samples, uint ends)
{
    __local ulong cuts[4];
    MERGE_ROUND_OFFSETS();
    const ulong w = get_group_id(0);
    if (w < split_groups) {
        __local SK* ls = (__local SK*)lmem4;
        merge_split_starts(in, in2, n, L, (ulong)get_local_size(0) * MERGE_ELEMS, splits, first_start + w * get_local_size(0),
                           groups, samples, ends, ls, (__local uint*)(ls + 2 * samples), cuts, 1, 1, in, 0);
    } else {
        merge_global_tile(in, vin, in2, vin2, out, vout, n, L, out_convert, splits, (__local ulong*)lmem4,
                          tile0 + (w - split_groups));
    }
}
