// Decoupled look-back (Merrill & Garland, "Single-pass Parallel Prefix Scan with Decoupled
// Look-back", 2016): the building block that lets one kernel scan across work-groups in a single
// pass over memory. Used by the device-wide scan (scan_lookback.cl) and the one-sweep radix sort
// (radix_onesweep.cl, one look-back per digit).
//
// Every tile owns a status slot. As soon as it knows its own total (its "aggregate") it publishes
// it with the flag LB_AGGREGATE; then it walks back over its predecessors' slots, adding their
// aggregates until it meets one flagged LB_PREFIX (an inclusive prefix: the total of every tile up
// to and including that one), which ends the walk. It then publishes its own inclusive prefix.
// The walk usually stops after a few slots, so each tile waits for its neighbours, not for a chain
// through the whole range.
//
// Why this is safe with nothing but OpenCL 1.2 global memory:
// - A flag and its value travel in ONE naturally aligned 32- or 64-bit word, written by one store
//   (atomic_xchg for the 32-bit word; a single 64-bit store, which is single-copy atomic on the
//   devices that take these paths: NVIDIA GPUs and x86 CPUs) and read by one volatile load. A
//   reader sees either the old word or the new one, never a flag without its value, so no memory
//   fence between a value and its flag is needed. Each slot goes EMPTY -> AGGREGATE -> PREFIX, and
//   each of these words is written once, so whatever non-empty word a reader sees is a valid one.
// - Values wider than the payload (64-bit scan elements) are split over two words that each carry
//   the flag; a reader accepts the pair only when both halves carry the same non-empty flag.
// - Forward progress (without the fallback below): a tile spins only on tiles with a LOWER index, and the tile index comes from
//   an atomic counter taken when the work-group starts (not from get_group_id), so every tile it
//   waits on has already started running. Each tile publishes its aggregate before it waits on
//   anybody, so the tile it waits on finishes its part without waiting on a later one. This
//   needs only that a work-group which has started is not starved for ever by ones that start
//   later: true on GPUs (a resident work-group runs to completion) and on PoCL's CPU devices (a
//   work-group runs to completion on its thread). It is NOT promised by OpenCL in general (Apple
//   and Mali GPUs, for one, do not give it), so every look-back also has the decoupled fallback
//   (lb32_look_back_bounded here, scan_look_back in scan_lookback.cl): a tile that has waited
//   long enough computes what it waits for from the stalled tile's input, and needs nothing from
//   the scheduler.
// - Slots must read EMPTY when the kernel starts: the radix sort's 32-bit slots are zero-filled
//   by the host before every sort; the scan's 64-bit slots carry the launch's epoch instead, so
//   that leftovers of earlier launches read EMPTY without a fill per call.

#ifndef CLPRIM_LOOKBACK_CL
#define CLPRIM_LOOKBACK_CL

#define LB_EMPTY 0u
#define LB_AGGREGATE 1u
#define LB_PREFIX 2u

// A tile's index in the order the work-groups start (not get_group_id: every tile a look-back
// waits on has started before it), from the counter status[0] (zero at launch); the tile that
// takes the last index sets it back to zero for the next launch (every other tile has its index
// by then; merge_overlap.cl's work-groups take their roles by it too). Every work-item calls it
// (a barrier); the index in all; *id is local scratch.
inline uint lb_take_tile_index(__global volatile ulong* status, __local uint* id)
{
    if (get_local_id(0) == 0) {
        *id = atomic_inc((__global volatile uint*)status);
        if (*id == (uint)get_num_groups(0) - 1u) atomic_xchg((__global volatile uint*)status, 0u);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    return *id;
}

// --- 32-bit slots: flag in the top two bits, a count below 2^30 (the radix sort's digit counts).
#define LB32_VALUE_MASK 0x3FFFFFFFu

inline void lb32_publish(__global volatile uint* slot, uint flag, uint value)
{
    atomic_xchg(slot, (flag << 30) | value);
}

// How many predecessors' slots a look-back reads at once. One slot per round trip to L2 made
// the walk back over aggregates the slowest part of a tile; LB_BATCH independent loads are in
// flight together, then taken in order (an EMPTY one is read again in the next batch). 4 is the
// best of 2/4/8/16 on the H100 once the ranking got fast (more loads per round flood L2 with
// reads of slots that are still empty).
#ifndef LB_BATCH
#define LB_BATCH 4
#endif

// While a predecessor has published nothing, wait a little before reading again: spinning
// tiles otherwise flood L2 with reads and slow the very tiles they wait for. NVIDIA builds
// (LB_NANOSLEEP, set by the host) sleep with PTX nanosleep; elsewhere the loop simply reads again.
#ifndef LB_SLEEP_NS
#define LB_SLEEP_NS 100
#endif
#if defined(LB_NANOSLEEP) && LB_SLEEP_NS > 0
#define LB_BACKOFF() asm volatile("nanosleep.u32 %0;" ::"r"(LB_SLEEP_NS))
#else
#define LB_BACKOFF()
#endif

// Sum of the values of every slot before index tile (slots tile*stride apart), found by looking
// back; spins while a predecessor has published nothing yet. *batches counts the rounds of
// LB_BATCH reads, *waits those that found the nearest unread slot still empty (for traces:
// callers that do not need them call lb32_exclusive_prefix, and the compiler drops the counts).
inline uint lb32_exclusive_prefix_counted(__global volatile uint* slots, uint tile, uint stride, uint* batches,
                                          uint* waits)
{
    *batches = 0;
    *waits = 0;
#ifdef LB_DIAG_SKIP // measurement only (wrong results): what a tile costs without waiting
    return 0;
#endif
    uint acc = 0;
    uint j = tile; // slots j-1, j-2, ... are still to be read
    while (j > 0) {
        const uint j_before = j;
        uint w[LB_BATCH];
#pragma unroll
        for (uint b = 0; b < LB_BATCH; ++b) w[b] = b < j ? slots[(ulong)(j - 1 - b) * stride] : (LB_PREFIX << 30);
        ++*batches;
#pragma unroll
        for (uint b = 0; b < LB_BATCH; ++b) {
            const uint flag = w[b] >> 30;
            if (flag == LB_EMPTY) break; // not published yet: read it again in the next batch
            acc += w[b] & LB32_VALUE_MASK;
            --j;
            if (flag == LB_PREFIX) return acc;
        }
        if (j == j_before) {
            ++*waits;
            LB_BACKOFF();
        }
    }
    return acc;
}

inline uint lb32_exclusive_prefix(__global volatile uint* slots, uint tile, uint stride)
{
    uint batches, waits;
    return lb32_exclusive_prefix_counted(slots, tile, stride, &batches, &waits);
}

// Decoupled fallback (Smith, Levien & Owens, "Decoupled Fallback: A Portable Single-Pass GPU
// Scan", SPAA 2025): a waiting tile never spins without bound. After LB_FALLBACK_POLLS rounds in
// a row in which the nearest unread predecessor is still empty, the look-back stops and says which
// tile stalled it; the caller's work-group then computes that tile's aggregate from the tile's
// input itself (the same integer count its owner computes), publishes it if the slot is still
// empty (lb32_publish_fallback), adds it and looks back again from the tile before. Correct
// under any scheduling: no tile waits on another that may never run. LB_FALLBACK_POLLS=0
// (CLPRIM_LOOKBACK=fallback, for tests) stops at the first empty slot.
#ifndef LB_FALLBACK_POLLS
#define LB_FALLBACK_POLLS 1024
#endif
// LB_FALLBACK=0 compiles the fallback out of the scan's and the one-sweep sort's look-backs
// (measurements only: they then rely on forward progress between work-groups again).
#ifndef LB_FALLBACK
#define LB_FALLBACK 1
#endif

// Looks back from slot *j - 1 down (slots stride apart), adding the values to *acc, until an
// inclusive prefix (returns 1: *acc is the exclusive prefix of the tile that started at *j) or
// until slot *j - 1 has stayed empty for LB_FALLBACK_POLLS rounds (returns 0: tile *j - 1 stalls
// the look-back). *j == 0 returns 1 at once.
inline uint lb32_look_back_bounded(__global volatile uint* slots, uint stride, uint* j_io, uint* acc_io)
{
    uint acc = *acc_io, j = *j_io, polls = 0;
    while (j > 0) {
        const uint j_before = j;
        uint w[LB_BATCH];
#pragma unroll
        for (uint b = 0; b < LB_BATCH; ++b) w[b] = b < j ? slots[(ulong)(j - 1 - b) * stride] : (LB_PREFIX << 30);
#pragma unroll
        for (uint b = 0; b < LB_BATCH; ++b) {
            const uint flag = w[b] >> 30;
            if (flag == LB_EMPTY) break; // not published yet: read it again in the next round
            acc += w[b] & LB32_VALUE_MASK;
            --j;
            if (flag == LB_PREFIX) {
                *acc_io = acc;
                *j_io = 0;
                return 1;
            }
        }
        if (j == j_before) {
            if (polls++ >= LB_FALLBACK_POLLS) break;
            LB_BACKOFF();
        } else {
            polls = 0;
        }
    }
    *acc_io = acc;
    *j_io = j;
    return j == 0;
}

// Publishes a fallback's aggregate for a slot that still reads empty. (Not atomic with the read:
// if the owner publishes in between, its word may be overwritten by this one, a valid word of the
// same tile with the same count; a PREFIX turned back into AGGREGATE only lengthens later walks.)
inline void lb32_publish_fallback(__global volatile uint* slot, uint flag, uint value)
{
    if ((*slot >> 30) == LB_EMPTY) lb32_publish(slot, flag, value);
}

// --- 64-bit slots: the high half is (epoch << 2) | flag, 32 payload bits in the low half. The
// epoch (1 .. 2^30-1) names the launch: a word of another epoch, left by an earlier launch on the
// same buffer, reads as EMPTY, so the host need not clear these slots before every launch
// (clprim/detail/lookback_slots.hpp says when it does).
inline void lb64_publish(__global volatile ulong* slot, uint epoch, uint flag, uint payload)
{
    *slot = ((ulong)((epoch << 2) | flag) << 32) | (ulong)payload;
}

// Reads a slot: returns its flag (EMPTY for another epoch's word) and sets *payload.
inline uint lb64_read(__global volatile ulong* slot, uint epoch, uint* payload)
{
    const ulong w = *slot;
    *payload = (uint)w;
    const uint high = (uint)(w >> 32);
    return (high >> 2) == epoch ? (high & 3u) : LB_EMPTY;
}

// --- The warp walks' shared steps (copy_if_tile.cl, by_key_lookback.cl): one warp reads 32
// predecessors' slots a round, lane k the tile k + 1 behind the nearest unread one, and votes.
// How many of them the walk takes: up to and including the first inclusive prefix, else up to the
// first one still empty, at most j (the tiles left). Sets *done when a prefix is taken or none is left.
inline uint lb_walk_used(uint first_empty, uint first_prefix, uint j, uint* done)
{
    const uint used = min(first_prefix < first_empty ? first_prefix + 1u : first_empty, j);
    if (first_prefix < first_empty || used == j) *done = 1;
    return used;
}

// After a round that took `taken` slots: 1 once the nearest unread slot has read empty for more
// than LB_FALLBACK_POLLS rounds in a row (the caller's group then takes the decoupled fallback),
// else 0, after a short wait (LB_BACKOFF) when the round took nothing.
inline uint lb_walk_stalled(uint taken, uint* polls)
{
    if (taken > 0) {
        *polls = 0;
        return 0;
    }
    if (LB_FALLBACK && ++*polls > LB_FALLBACK_POLLS) return 1;
    LB_BACKOFF();
    return 0;
}

#endif // CLPRIM_LOOKBACK_CL
