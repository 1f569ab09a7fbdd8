// The merge path walked by persistent work-groups (issue #30): one launch, no partition kernel.
// Joined after merge_sort.cl (SK, LOAD_SK, SK_LESS, pair_of, RUN_B, co_rank_local, merge_serial,
// the conversions) and merge_path_search.cl (merge_path_search). Needs MERGE_ELEMS (outputs per
// work-item and tile) and MERGE_WALK_PROBES (positions one step of the start's search probes,
// shared by the work-group's first min(P, wg) work-items).
//
// merge_walk: about as many work-groups as the device holds at once; work-group w owns the outputs
// [w * span, (w + 1) * span) of its pair of runs. It finds ONE split, the co-rank of its first
// diagonal, by a search the whole work-group shares (P probes a step: log_(P+1) of the run length
// dependent round trips, paid once, by all work-groups at the same time), then walks its outputs
// a tile of T = wg * E at a time, knowing at each step where it stands in both runs (ai, bi):
//  - the tile's windows, a[ai, ai + T) and b[bi, bi + T) (cut at the runs' ends), are in local
//    memory side by side (the first T outputs from (ai, bi) take at most T keys of each run, so
//    they come from the windows alone);
//  - every work-item finds the tile's end in the windows (the co-rank of diagonal T, a binary
//    search in local memory, broadcast reads) and at once issues the loads of the NEXT tile's
//    windows into registers: they are in flight while the tile is merged and stored;
//  - each work-item merges its E outputs serially after one co-rank search (merge_sort.cl's
//    blocks), the outputs go back through local memory for coalesced stores, the values follow by
//    the index each key came from (read from the runs in global memory);
//  - the registers fill the windows for the next step.
// The keys a window holds past what its tile takes are read again by the next step (from L2):
// every key is read from DRAM once and written once. Nothing waits on another work-group.
#ifndef MERGE_ELEMS
#error "merge_walk.cl needs MERGE_ELEMS"
#endif
#ifndef MERGE_WALK_PROBES
#error "merge_walk.cl needs MERGE_WALK_PROBES"
#endif
#ifndef SK_MAX
#error "merge_walk.cl is joined after merge_sort.cl"
#endif
#ifndef MERGE_PATH_IN_FLIGHT
#error "merge_walk.cl is joined after merge_path_search.cl"
#endif

// MERGE_WALK_PREFETCH (default 1): the next windows' loads go out before the merge, into
// registers; 0 (measurements): after the stores, straight into local memory (fewer registers).
#ifndef MERGE_WALK_PREFETCH
#define MERGE_WALK_PREFETCH 1
#endif

// MERGE_WALK_STAGE (default 0): the outputs staged in a tile of local memory of their own
// (3T + 1 keys in all) instead of the left window's slots.
#ifndef MERGE_WALK_STAGE
#define MERGE_WALK_STAGE 0
#endif

// MERGE_WALK_ASYNC (default 0): the next windows go into a second pair of windows in local memory
// (double buffering, 2 (2T + 1) keys, then T staged outputs with MERGE_WALK_STAGE) instead of registers: 2 by NVIDIA's asynchronous copies
// (cp.async, sm_80 on: no registers held while the step merges; 4- and 8-byte keys, the host's
// choice; MERGE_WALK_CP_BYTES the key's size), 1 by plain copies (other devices: the same steps,
// for tests). The copied keys are converted (LOAD_SK) in place once they have landed. WALK_COPY(i,
// src): key *src into lbuf[i] (by its shared-space address, sbase + i keys).
#ifndef MERGE_WALK_ASYNC
#define MERGE_WALK_ASYNC 0
#endif
#if MERGE_WALK_ASYNC == 2
#ifndef MERGE_WALK_CP_BYTES
#error "merge_walk.cl with MERGE_WALK_ASYNC=2 needs MERGE_WALK_CP_BYTES (the key's size: 4 or 8)"
#endif
#define WALK_STR2(x) #x
#define WALK_STR(x) WALK_STR2(x)
#define WALK_COPY(i, src) \
    asm volatile("cp.async.ca.shared.global [%0], [%1], " WALK_STR(MERGE_WALK_CP_BYTES) ";" ::"l"(sbase + (ulong)(i) * sizeof(SK)), \
                 "l"((ulong)(src)) : "memory")
#define WALK_COPY_WAIT() asm volatile("cp.async.wait_all;" ::: "memory")
#else
#define WALK_COPY(i, src) (lbuf[i] = *(src))
#define WALK_COPY_WAIT()
#endif

// The copied keys need no conversion where LOAD_SK is the identity (unsigned keys ascending).
#if defined(MERGE_TWO_RANGES) && (K_IS_FLOAT || K_IS_SIGNED || defined(SORT_DESCENDING))
#define WALK_LOAD_IDENTITY 0
#else
#define WALK_LOAD_IDENTITY 1
#endif

#define WE MERGE_ELEMS

// The next windows into local memory (lk[0, T) and lk[T, 2T)): from the registers pa / pb, or
// without the prefetch loaded only now from a[na...] and b[nb...] (within the runs' lengths).
inline void walk_refill(__local SK* lk, const uint T, const SK* pa, const SK* pb, __global const SK* ka, const ulong na,
                        const ulong la, __global const SK* kb, const ulong nb, const ulong lb)
{
    const uint lid = get_local_id(0), wg = get_local_size(0);
#pragma unroll
    for (uint r = 0; r < WE; ++r) {
        const uint l = lid + r * wg;
#if MERGE_WALK_PREFETCH
        (void)ka; (void)na; (void)la; (void)kb; (void)nb; (void)lb;
        lk[l] = LOAD_SK(pa[r]);
        lk[T + l] = LOAD_SK(pb[r]);
#else
        (void)pa; (void)pb;
        if (na + l < la) lk[l] = LOAD_SK(ka[na + l]);
        if (nb + l < lb) lk[T + l] = LOAD_SK(kb[nb + l]);
#endif
    }
}
#if MERGE_WALK_PREFETCH
#define WALK_REFILL() if (more) walk_refill(lk, T, pa, pb, ka, nai, la, kb, nbi, lb)
#else
#define WALK_REFILL() if (more) walk_refill(lk, T, 0, 0, ka, nai, la, kb, nbi, lb)
#endif

// One round (the public merge: MERGE_TWO_RANGES, in[0, L) with in2[0, n - L); the sort's rounds:
// runs of L side by side, span dividing 2L), `span` outputs per work-group. lmem: the windows'
// keys (2T + 1: merge_serial reads one past the right window; MERGE_WALK_STAGE: T more for the
// staged outputs), then T values, aligned for V (merge_walk_local_bytes).
__kernel void merge_walk(__global const SK* in, ulong in_off, __global const V* vin, ulong vin_off,
                         __global const SK* in2, ulong in2_off, __global const V* vin2, ulong vin2_off,
                         __global SK* out, ulong out_off, __global V* vout, ulong vout_off, ulong n,
                         ulong L, uint out_convert, ulong span, __local ulong4* lmem4)
{
    __local uint flags[MERGE_WALK_PROBES];
    __local ulong cut;
    MERGE_ROUND_OFFSETS();
    const uint lid = get_local_id(0);
    const uint wg = get_local_size(0);
    const uint T = wg * WE;
    __local SK* const lbuf = (__local SK*)lmem4;
    __local SK* lk = lbuf; // this step's windows (MERGE_WALK_ASYNC: one of two pairs)
#if MERGE_WALK_ASYNC == 2
    // lbuf's address in the shared state space, as cp.async takes it: the pointer's value where
    // that already is one, else converted from the generic window (isspacep says which).
    ulong sbase;
    asm("{\n\t.reg .pred p;\n\tisspacep.shared p, %1;\n\tcvta.to.shared.u64 %0, %1;\n\t@!p mov.u64 %0, %1;\n\t}"
        : "=l"(sbase)
        : "l"((ulong)lbuf));
#endif
#ifdef SORT_HAS_VALUES
    const size_t v_align = sizeof(V) > 8 ? sizeof(V) : 8;
    const size_t key_slots = MERGE_WALK_ASYNC ? 2 * (2 * T + 1) + (MERGE_WALK_STAGE ? T : 0) : (MERGE_WALK_STAGE ? 3 : 2) * T + 1;
    __local V* lv = (__local V*)((__local uchar*)lmem4 + (key_slots * sizeof(SK) + v_align - 1) / v_align * v_align);
#endif

    const ulong o0 = get_group_id(0) * span;
    if (o0 >= n) return; // the whole work-group (no barrier passed yet)
    const ulong o1 = min(o0 + span, n);
    MERGE_PAIR_RUNS(o0);
#ifdef SORT_HAS_VALUES
    __global V* vo = vout + o0;
#endif
    __global SK* ko = out + o0;

    // The start: the co-rank of diagonal d0 in the pair, P probes a step shared by G work-items.
    const ulong d0 = o0 - base;
    const uint P = MERGE_WALK_PROBES;
    uint G = min(P, wg);
    while (P % G) --G;
    ulong lo = d0 > lb ? d0 - lb : 0, hi = min(d0, la);
    merge_path_search(ka, kb, d0, &lo, &hi, merge_path_steps(hi - lo, P), P, G, lid % G, flags, lid < G);
    if (lid == 0) cut = lo;
    barrier(CLK_LOCAL_MEM_FENCE);
    ulong ai = cut, bi = d0 - cut;
    const ulong d_end = o1 - o0;

    // The first windows.
#pragma unroll
    for (uint r = 0; r < WE; ++r) {
        const uint l = lid + r * wg;
        if (ai + l < la) lk[l] = LOAD_SK(ka[ai + l]);
        if (bi + l < lb) lk[T + l] = LOAD_SK(kb[bi + l]);
    }
    barrier(CLK_LOCAL_MEM_FENCE);

    for (ulong d = 0; d < d_end;) {
        const uint tot = (uint)min((ulong)T, d_end - d); // outputs this step
        const uint wa = (uint)min((ulong)T, la - ai);  // keys in the left window
        const uint wb = (uint)min((ulong)T, lb - bi);  // and in the right one
        // Where the step ends (every work-item: broadcast reads), then the next windows' loads.
        const uint ta = co_rank_local(lk, 0, wa, T, wb, tot, 2 * T);
        const ulong nai = ai + ta, nbi = bi + (tot - ta);
        const bool more = d + tot < d_end;
#if MERGE_WALK_ASYNC
        const uint next = lk == lbuf ? 2 * T + 1 : 0; // the other pair of windows
        __local SK* lnext = lbuf + next;
        if (more) {
#pragma unroll
            for (uint r = 0; r < WE; ++r) {
                const uint l = lid + r * wg;
                if (nai + l < la) WALK_COPY(next + l, ka + nai + l);
                if (nbi + l < lb) WALK_COPY(next + T + l, kb + nbi + l);
            }
        }
#elif MERGE_WALK_PREFETCH
        SK pa[WE], pb[WE];
#pragma unroll
        for (uint r = 0; r < WE; ++r) {
            const uint l = lid + r * wg;
            pa[r] = more && nai + l < la ? ka[nai + l] : 0;
            pb[r] = more && nbi + l < lb ? kb[nbi + l] : 0;
        }
#endif

        // This step's merge: E outputs per work-item.
        const uint x = lid * WE;
        const uint dx = min(x, tot);
        const uint i0 = co_rank_local(lk, 0, wa, T, wb, dx, 2 * T);
        SK kr[WE];
        uint ix[WE];
        merge_serial(lk, i0, wa, T + (dx - i0), T + wb, kr, ix, 2 * T);
#ifdef SORT_HAS_VALUES
        V vr[WE];
#pragma unroll
        for (uint e = 0; e < WE; ++e)
            if (x + e < tot) vr[e] = ix[e] < T ? va[ai + ix[e]] : vb[bi + (ix[e] - T)];
#endif
        // Back through local memory for coalesced stores: the left window's slots, or with
        // MERGE_WALK_STAGE a staging tile of its own, so that the next windows go in at once and
        // the step takes two barriers instead of four (with MERGE_WALK_ASYNC the outputs go there
        // as soon as they are merged: the stores that read it last step are behind the barrier
        // that ended it).
#if MERGE_WALK_STAGE && MERGE_WALK_ASYNC
        __local SK* ls = lbuf + 2 * (2 * T + 1);
#elif MERGE_WALK_STAGE
        __local SK* ls = lk + 2 * T + 1;
#else
        __local SK* ls = lk;
#endif
#if !(MERGE_WALK_STAGE && MERGE_WALK_ASYNC)
        barrier(CLK_LOCAL_MEM_FENCE);
#endif
#pragma unroll
        for (uint e = 0; e < WE; ++e) {
            if (x + e < tot) {
                ls[x + e] = kr[e];
#ifdef SORT_HAS_VALUES
                lv[x + e] = vr[e];
#endif
            }
        }
#if MERGE_WALK_STAGE && !MERGE_WALK_ASYNC
        WALK_REFILL();
#endif
        barrier(CLK_LOCAL_MEM_FENCE);
#pragma unroll
        for (uint r = 0; r < WE; ++r) {
            const uint l = lid + r * wg;
            if (l < tot) {
                const SK y = ls[l];
                ko[d + l] = out_convert ? sortable_to_caller(y) : y;
#ifdef SORT_HAS_VALUES
                vo[d + l] = lv[l];
#endif
            }
        }
#if MERGE_WALK_ASYNC
        // The next windows have landed (each work-item waits for its own copies and converts
        // them), the barrier shows them to all; this step's buffer takes the step after next.
        WALK_COPY_WAIT();
        if (more && !WALK_LOAD_IDENTITY) {
#pragma unroll
            for (uint r = 0; r < WE; ++r) {
                const uint l = lid + r * wg;
                if (nai + l < la) lnext[l] = LOAD_SK(lnext[l]);
                if (nbi + l < lb) lnext[T + l] = LOAD_SK(lnext[T + l]);
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        lk = lnext;
#elif !MERGE_WALK_STAGE
        barrier(CLK_LOCAL_MEM_FENCE);
        WALK_REFILL();
        barrier(CLK_LOCAL_MEM_FENCE);
#endif
        ai = nai;
        bi = nbi;
        d += tot;
    }
}
#undef WALK_REFILL
#undef WALK_COPY
#undef WALK_COPY_WAIT
#undef WALK_LOAD_IDENTITY
#undef WE
