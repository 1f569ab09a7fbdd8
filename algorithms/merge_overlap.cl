// The public merge's partition overlapped with its merge, in one launch (issue #30). Joined after
// merge_sort.cl, merge_path_search.cl and lookback.cl (primitives/), built with -DMERGE_TWO_RANGES.
//
// The idea: the split pair (merge_partition_search, then merge_global) keeps the DRAM idle while
// the partition's chains of dependent reads run, although the first tiles need only the first
// starts. Here the work-groups take roles by their group id:
//  - the first `searchers` are searchers: searcher s finds the tile starts of chunks s,
//    s + searchers, ... (a chunk: one start per work-item; merge_split_find: brackets from samples
//    in local memory, then a search in a short window, MERGE_OVERLAP_PROBES probes a step) and
//    publishes each start in its own look-back slot (one 64-bit word: the launch's epoch, a flag,
//    the co-rank; lookback.cl) as soon as it is found. Chunks are taken in order, so the first
//    tiles can start merging after one chain of reads, and the other starts are found while
//    they merge.
//  - every later work-group merges output tile (group id - searchers), as merge_global does, once
//    the slots of its start and of its end are published.
// No hang whatever the scheduler does: a merging work-group waits only on searchers (lower group
// ids, which GPUs start first), and after MERGE_OVERLAP_POLLS reads of an empty slot it finds its
// own start and end (merge_path_search_pair over the whole runs, the work-group together), the
// decoupled fallback's idea (lookback.cl). Co-ranks travel in 32 bits: the host takes this kernel
// only where the merge is shorter than 2^32. The host caps the kernel's registers on NVIDIA
// (merge_policy::overlap_regs): the searchers' code would otherwise take it to ~130 registers and
// leave one merging work-group an SM instead of four.
// H100, 2^26 uint: 0.2105-0.2127 ms against the split pair's 0.2155 (docs/RESULTS.md, "#30 (s9-overlap)");
// with the policy's 256 x 19 tiles and samples read 8 at a time 0.2064-0.2068 ("#30 (s11)").
#ifndef MERGE_TWO_RANGES
#error "merge_overlap.cl is the public merge's kernel (-DMERGE_TWO_RANGES)"
#endif
#ifndef LB_PREFIX
#error "merge_overlap.cl needs lookback.cl joined before it"
#endif
#ifndef SK_MAX
#error "merge_overlap.cl is joined after merge_sort.cl and merge_path_search.cl"
#endif

// A start's search in its window: probes per step (a work-item's own, read together).
#ifndef MERGE_OVERLAP_PROBES
#define MERGE_OVERLAP_PROBES 1
#endif

// How a work-group learns its role: 0 (the default), its group id; 1 (measurements), an index
// taken from status[0] as it starts, so that a merge only ever waits on searchers that have
// started. The atomic at every work-group's start delays its first loads by a round trip: on the
// H100 (2^26 uint) the kernel took 0.2177 ms with it, 0.2129 without. Without it a searcher that
// has not started yet can only send the merges that wait on it to their fallback.
#ifndef MERGE_OVERLAP_TICKET
#define MERGE_OVERLAP_TICKET 0
#endif

// Reads of an empty slot before a merging work-group searches for itself (LB_FALLBACK_POLLS 0,
// CLPRIM_LOOKBACK=fallback in tests: one read, then the fallback wherever a start is missing).
#ifndef MERGE_OVERLAP_POLLS
#if LB_FALLBACK_POLLS == 0
#define MERGE_OVERLAP_POLLS 0
#else
#define MERGE_OVERLAP_POLLS 8192
#endif
#endif

// MERGE_OVERLAP_STAMPS (measurements, NVIDIA only: CLPRIM_PTX): the global timer, printed by
// work-item 0 of searchers 0 and 1 at each chunk's end and of every 512th merging work-group at
// its start and when its start and end were there, with the polls it took: whether the merges
// wait on the searchers, and how long a chunk takes while the merges stream.
#if defined(MERGE_OVERLAP_STAMPS) && defined(CLPRIM_PTX)
#define MERGE_OVERLAP_NOW(v) asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(v))
#else
#define MERGE_OVERLAP_NOW(v) (v) = 0
#endif

// status: word 0 the index counter, then one slot per tile start (groups of them). lmem4: the
// larger of merge_global's tile and the searchers' samples (2 * samples keys, then wg words).
__kernel void merge_overlap(__global const SK* in, ulong in_off, __global const V* vin, ulong vin_off,
                            __global const SK* in2, ulong in2_off, __global const V* vin2, ulong vin2_off,
                            __global SK* out, ulong out_off, __global V* vout, ulong vout_off, ulong n, ulong L,
                            uint out_convert, __local ulong4* lmem4, ulong groups, uint samples, uint ends,
                            uint searchers, __global volatile ulong* status, uint epoch, uint eager)
{
    __local uint index;
    __local ulong cuts[4];
    __local ulong range[2];
    __local uint ready;
    MERGE_ROUND_OFFSETS();
    const uint lid = get_local_id(0), wg = get_local_size(0);
    const ulong tile = (ulong)wg * MERGE_ELEMS;
    __global volatile ulong* slots = status + 1;
    ulong t0_;
    MERGE_OVERLAP_NOW(t0_);
#if MERGE_OVERLAP_TICKET
    const uint t = lb_take_tile_index(status, &index);
#else
    (void)index;
    const uint t = get_group_id(0);
#endif
    if (t < searchers) {
        // A searcher: its chunks in turn (every barrier inside is reached by the whole work-group).
        __local SK* ls = (__local SK*)lmem4;
        const ulong chunks = (groups + wg - 1) / wg;
        // Only the first `eager` searchers start at once (the host passes `searchers` unless
        // CLPRIM_MERGE_OVERLAP's fifth number says otherwise): the first chunk's chain of reads
        // is shorter with fewer reads beside it. The others start when its last start is out (or
        // after MERGE_OVERLAP_POLLS reads: a delay, never a wait on which anything depends).
        // Measured slower on the H100 (8 of 32 eager: 0.2187 ms against 0.2128): the late ones
        // fall behind the merges.
        if (t >= eager && t < chunks) {
            if (lid == 0) {
                uint x, polls = 0;
                while (lb64_read(slots + min(groups, (ulong)wg) - 1, epoch, &x) == LB_EMPTY && polls++ < MERGE_OVERLAP_POLLS)
                    LB_BACKOFF();
            }
            barrier(CLK_LOCAL_MEM_FENCE);
        }
        for (ulong c = t; c < chunks; c += searchers) {
#ifdef MERGE_OVERLAP_SKIP_DONE
            // (measurements, with CLPRIM_MERGE_OVERLAP_TWICE: the second launch's searchers skip
            // chunks already published, so that it times the merges alone)
            if (lid == 0) {
                uint x;
                ready = lb64_read(slots + min(groups, (c + 1) * wg) - 1, epoch, &x) != LB_EMPTY;
            }
            barrier(CLK_LOCAL_MEM_FENCE);
            const bool done_ = ready;
            barrier(CLK_LOCAL_MEM_FENCE);
            if (done_) continue;
#endif
            ulong lo;
            const ulong g = merge_split_find(in, in2, n, L, tile, c * wg, groups, samples, ends, ls,
                                             (__local uint*)(ls + 2 * samples), cuts, MERGE_OVERLAP_PROBES, 1, in, 0, &lo);
            if (g != ~(ulong)0) lb64_publish(slots + g, epoch, LB_PREFIX, (uint)lo);
            barrier(CLK_LOCAL_MEM_FENCE); // the samples' memory is the next chunk's
#if defined(MERGE_OVERLAP_STAMPS) && defined(CLPRIM_PTX)
            ulong t1_;
            MERGE_OVERLAP_NOW(t1_);
            if (lid == 0 && t < 2) printf("overlap searcher %u chunk %lu done %lu ns after its start %lu\n", t, c, t1_ - t0_, t0_);
#endif
        }
    } else {
        const ulong g = t - searchers;
        const ulong o0 = g * tile, o1 = min(o0 + tile, n);
        // The tile's start and end: slots g and g + 1 (the last tile ends where a does).
        if (lid == 0) {
            uint a0 = 0, a1 = (uint)L, polls = 0;
            bool got0 = false, got1 = o1 == n;
            while (!(got0 && got1)) {
                if (!got0) got0 = lb64_read(slots + g, epoch, &a0) != LB_EMPTY;
                if (!got1) got1 = lb64_read(slots + g + 1, epoch, &a1) != LB_EMPTY;
                if (got0 && got1) break;
                if (polls++ >= MERGE_OVERLAP_POLLS) break;
                LB_BACKOFF();
            }
            ready = got0 && got1;
            range[0] = a0;
            range[1] = a1;
#if defined(MERGE_OVERLAP_STAMPS) && defined(CLPRIM_PTX)
            ulong t1_;
            MERGE_OVERLAP_NOW(t1_);
            if (g % 512 == 0 || g + 1 == groups)
                printf("overlap tile %lu start %lu waited %lu ns polls %u ready %d\n", g, t0_, t1_ - t0_, polls, (int)ready);
#endif
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        ulong a0 = range[0], a1 = range[1];
        if (!ready) {
            // The fallback: both co-ranks by the work-group, wg / 2 probes a step each.
            merge_path_search_pair(in, L, in2, n - L, o0, o1, max(1u, wg / 2), (__local uint*)lmem4, cuts, &a0, &a1);
        }
        merge_global_tile_at(in, vin, in2, vin2, out, vout, n, L, out_convert, a0, a1, (__local ulong*)lmem4, g);
    }
}
