// The by-key family's CPU path in ONE launch (by_key_policy.hpp's chunks with single_pass; host:
// by_key_cpu.cpp). by_key_cpu.cl's two launches (every chunk's pair, then every chunk's results)
// leave PoCL's second worker thread idle at 2^20 (a short launch is mostly over before it joins,
// RESULTS.md #28/#30 on PoCL), so here each call is one launch of one work-group (of one
// work-item) per compute unit, and the work is taken in small pieces: whichever worker is
// running takes the next piece, the other joins when it wakes and takes pieces too.
//
//   by_key_cpu_single  a loop: take the next piece by the counter (status word 0), compute its
//                      pair (by_key_cpu.cl's bkc_pair: its heads, and the fold from its last
//                      head) and publish it (lookback.cl's AGGREGATE; the first piece's as its
//                      PREFIX), look back over the pieces before it for its exclusive pair,
//                      publish its inclusive PREFIX, then write its results (bkc_emit_range, the
//                      chunks' branch-free compaction; by_key.cl's guarded epilogue once the
//                      results so far no longer fit an output). The piece's keys are read twice,
//                      the second time from the cache.
//
// Waiting: a piece waits only on pieces with lower tickets, taken before it; but PoCL promises
// no forward progress between work-groups (two workers may share one core), so the look-back has
// the decoupled fallback (lookback.cl): after LB_FALLBACK_POLLS reads of an empty slot the piece
// computes the stalled piece's pair from its input itself (the same bkc_pair: bit for bit the
// owner's), publishes it where the slot is still empty and walks on. In place (a scan by key
// over its own values) the owner overwrites its values only after publishing (a global fence
// between), so a fallback's pair counts only where the slot was still untouched after the input
// was read (by_key_lookback.cl's bk_untouched), and fallbacks in place publish nothing.
// The counter: every work-group takes one ticket past the last piece before it stops; the one
// that takes the very last ticket (pieces + groups - 1) sets the counter back to 0 for the next
// call (lookback_slots.hpp).
//
// Required macros: those of by_key.cl, lookback.cl, by_key_lookback.cl and by_key_cpu.cl,
// joined before it (bkc_pair, bkc_emit_range, bkc_fits, bk_publish, bk_read, bk_untouched,
// BK_SLOTS_AT, LB_FALLBACK_POLLS).

#ifndef BK_SLOTS
#error "by_key_cpu_single.cl needs by_key_lookback.cl joined before it"
#endif
#ifndef LB_FALLBACK_POLLS
#error "by_key_cpu_single.cl needs lookback.cl joined before it"
#endif

// How long a piece reads an empty slot before it takes the fallback: a piece's pair from its input
// costs about as much as a few hundred reads of a slot on a CPU (and the predecessor may be
// writing its results, publishing nothing until it has: see below), so at most 64.
#define BKC_POLLS min(64, LB_FALLBACK_POLLS)

// The exclusive pair of piece t (pieces of `piece` elements): the pairs of the pieces before it
// combined, walking back to the first inclusive prefix, with the decoupled fallback.
inline void bkc_look_back(__global volatile ulong* slots, uint epoch, uint t, __global const K* keys,
                          __global const V* vals, ulong piece, ulong n, bool in_place, uint* pc, V* pv)
{
    uint ac = 0;
    V av = BK_ID;
    uint j = t, polls = 0;
    while (j > 0) {
        uint rc;
        V rv;
        uint flag = bk_read(slots, epoch, j - 1, &rc, &rv);
        bool fallback = flag == LB_EMPTY && LB_FALLBACK && ++polls > BKC_POLLS;
#ifdef LB_FALLBACK_FIRST
        fallback = fallback || (j == t && !in_place); // tests: the predecessor's pair from its input first
#endif
        if (flag == LB_EMPTY && !fallback) continue; // not published yet: read it again
        if (fallback) {
            const ulong f = j - 1;
            uint fc;
            V fv;
            bkc_pair(keys, vals, f * piece, min(n, f * piece + piece), &fc, &fv);
            read_mem_fence(CLK_GLOBAL_MEM_FENCE); // (the input read before the slot again)
            polls = 0;
            flag = bk_read(slots, epoch, j - 1, &rc, &rv);
#ifdef LB_FALLBACK_FIRST
            if (!in_place) flag = LB_EMPTY; // tests: take the fallback's own pair
#endif
            if (flag == LB_EMPTY) {
                if (in_place && !bk_untouched(slots, epoch, f)) continue; // half written: read it again
                if (!in_place) bk_publish(slots, epoch, f, f == 0 ? LB_PREFIX : LB_AGGREGATE, fc, fv);
                flag = f == 0 ? LB_PREFIX : LB_AGGREGATE;
                rc = fc;
                rv = fv;
            }
        }
        bk_combine(rc, rv, &ac, &av); // piece j - 1 comes before every piece in (ac, av)
        --j;
        polls = 0;
        if (flag == LB_PREFIX) break;
    }
    *pc = ac;
    *pv = av;
}

#ifndef BKC_LAZY
#define BKC_LAZY 1
#endif
// Pieces a ticket takes, one after the other: after its first, each finds its predecessor done (its
// own) and skips the count; with two workers taking tickets in turn, only a ticket's first piece
// and the other worker's piece before it get counted.
#ifndef BKC_RUN
#define BKC_RUN 4
#endif

// Does every result of elements [0, to) fit its output whatever elements [from, to) are, with c
// heads (kept) before from?
inline bool bkc_fits_surely(ulong c, ulong from, ulong to, ulong cap1, ulong cap2)
{
#if BK_MODE == 5
    return c + (to - from) <= cap1 && (cap2 == 0 || to - c <= cap2);
#else
    return bkc_fits(c + (to - from), to, cap1, cap2);
#endif
}

__kernel void by_key_cpu_single(BK_ARGS, ulong piece, uint pieces, __global volatile ulong* status, uint epoch,
                                uint in_place)
{
    keys += keys_off;
    vals += vals_off;
    out1 += out1_off;
    out2 += out2_off;
    count_out += count_off;
    __global volatile ulong* slots = BK_SLOTS_AT(status);
    const uint groups = (uint)get_num_groups(0), tickets = (pieces + BKC_RUN - 1) / BKC_RUN;
    for (;;) {
        const uint ticket = atomic_inc((__global volatile uint*)status);
        if (ticket >= tickets) {
            if (ticket == tickets + groups - 1) atomic_xchg((__global volatile uint*)status, 0u); // the last ticket
            return;
        }
        for (uint t = ticket * BKC_RUN; t < min(pieces, ticket * BKC_RUN + BKC_RUN); ++t) {
        const ulong from = (ulong)t * piece, to = min(n, from + piece);
        uint c = 0;
        V v = BK_ID;
        uint c_to;
        V v_to;
#if BK_MODE != 2
        // Where the pieces before this one are all done (its predecessor's inclusive prefix is
        // published, or it is the first) and every result of it fits, no count pass: its results
        // written straight away give its inclusive pair, published after them. (One worker alone
        // takes every piece this way; with two, a piece taken while its predecessor is still
        // being written counts itself and looks back as below.)
        uint flag = LB_PREFIX;
        if (t > 0) flag = bk_read(slots, epoch, t - 1, &c, &v);
        if (BKC_LAZY && flag == LB_PREFIX && bkc_fits_surely(c, from, to, cap1, cap2)) {
            bkc_emit_range(keys, vals, n, out1, cap1, out2, cap2, count_out, flags, init, from, to, c, v, true, &c_to,
                           &v_to);
            bk_publish(slots, epoch, t, LB_PREFIX, c_to, v_to);
            continue;
        }
        c = 0;
        v = BK_ID;
#endif
        uint tc;
        V tv;
        bkc_pair(keys, vals, from, to, &tc, &tv);
        bk_publish(slots, epoch, t, t == 0 ? LB_PREFIX : LB_AGGREGATE, tc, tv);
        if (t > 0) {
            bkc_look_back(slots, epoch, t, keys, vals, piece, n, in_place != 0, &c, &v);
            uint ic = tc;
            V iv = tv;
            bk_combine(c, v, &ic, &iv);
            bk_publish(slots, epoch, t, LB_PREFIX, ic, iv);
        }
        mem_fence(CLK_GLOBAL_MEM_FENCE); // (in place: the slot's words before the values overwritten)
        bkc_emit_range(keys, vals, n, out1, cap1, out2, cap2, count_out, flags, init, from, to, c, v,
                       bkc_fits((ulong)c + tc, to, cap1, cap2), &c_to, &v_to);
        }
    }
}
