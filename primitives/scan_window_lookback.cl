// The work-group look-back with a window and the decoupled fallback, written once for any value
// type and associative operator: the device-wide scan (scan_lookback.cl, its elements under the
// user's operator) and the single-pass copy_if (copy_if_lookback.cl, counts of kept elements)
// instantiate it. Joined after lookback.cl (flags, LB_BACKOFF, LB_FALLBACK).
//
// LB_WINDOW_LOOK_BACK_DEFINE(NAME, VT, OP, ID, READ, PUBLISH, AGGREGATE, IN_T, SCRATCH_T) defines
//   VT NAME(__global volatile ulong* slots, uint epoch, uint t, __global const IN_T* in, ulong n,
//           bool in_place, __local SCRATCH_T* scratch, __local uint* wflag, __local VT* wval,
//           __local uint* wstate, __local VT* wacc)
// the combined value of every tile before tile t, found by the work-group together (every
// work-item calls it: it has barriers; the value in all; t == 0 gives ID at once). With
//   uint READ(slots, epoch, tile, VT* v)          a slot's flag (LB_EMPTY, LB_AGGREGATE, LB_PREFIX)
//                                                 and value,
//   void PUBLISH(slots, epoch, tile, flag, VT v)  writes a slot,
//   VT AGGREGATE(in, n, tile, scratch)            tile's aggregate from its input (every
//                                                 work-item calls it; it ends with a barrier).
// wflag and wval hold LB_WINDOW entries, wstate 4.
//
// In each round work-items 0..LB_WINDOW-1 (or the whole group, if smaller) read one predecessor's
// slot each (one round trip covers LB_WINDOW tiles, where one work-item walking back alone
// covered one), then work-item 0 combines them in order up to the first inclusive prefix, or up
// to the first slot still empty (read again next round; after LB_FALLBACK_POLLS empty rounds in a
// row the group computes that tile's aggregate from `in` instead).
//
// Decoupled fallback (Smith, Levien & Owens, "Decoupled Fallback: A Portable Single-Pass GPU
// Scan", SPAA 2025): a tile that finds a predecessor's slot still empty after LB_FALLBACK_POLLS
// reads stops waiting for it: the whole work-group computes that predecessor's aggregate from its
// input, exactly as its owner does (the same operations in the same order, so the same bits,
// floats included), publishes it where the slot still reads empty, and goes on looking back past
// it. No tile ever waits for another without a bound, so the result is correct under any
// scheduling: no forward progress between work-groups is assumed. LB_FALLBACK_POLLS=0
// (CLPRIM_LOOKBACK=fallback) takes the fallback at the first empty slot, and with
// LB_FALLBACK_FIRST every tile computes its predecessor's aggregate first (and, out of place,
// uses that value whatever the slot says), so tests check every tile's fallback.
//
// Why what a reader accepts is never torn or stale, with OpenCL 1.2 global memory only: every
// word a tile's slot can hold is a valid (flag, value) of that tile for this epoch. The owner
// writes AGGREGATE then PREFIX; a fallback writes AGGREGATE with a bit-identical value. A fallback
// write landing after the owner's PREFIX moves the slot back to AGGREGATE: still true, it only
// makes later readers walk further. Values of two words (64-bit scan elements) carry the flag in
// each: READ takes them only when both flags agree, and since both writers publish the same bits
// for the same flag, agreeing halves always belong together.
//
// in_place (the scan writing over its input): the owner overwrites its input only after
// publishing its aggregate (with a global fence between), so a slot still empty after the
// fallback's reads means those reads were whole; a slot published meanwhile is taken as it is.
#ifndef LB_PREFIX
#error "scan_window_lookback.cl needs lookback.cl joined before it"
#endif
#ifndef LB_WINDOW
#define LB_WINDOW 32
#endif
#ifndef LB_FALLBACK_POLLS
#define LB_FALLBACK_POLLS 1024
#endif

// (lb_take_tile_index, the tile's index in the order the work-groups start: lookback.cl.)

#ifdef LB_FALLBACK_FIRST
#define LB_WINDOW_FALLBACK_FIRST 1
#else
#define LB_WINDOW_FALLBACK_FIRST 0
#endif

#define LB_WINDOW_LOOK_BACK_DEFINE(NAME, VT, OP, ID, READ, PUBLISH, AGGREGATE, IN_T, SCRATCH_T)                   \
    inline VT NAME(__global volatile ulong* slots, uint epoch, uint t, __global const IN_T* in, ulong n,           \
                   bool in_place,                                                                                  \
            __local SCRATCH_T* scratch, __local uint* wflag, __local VT* wval, __local uint* wstate, __local VT* wacc) \
    {                                                                                                              \
        const uint lid = (uint)get_local_id(0);                                                                    \
        const uint window = min((uint)LB_WINDOW, (uint)get_local_size(0)); /* small work-groups: fewer */         \
        if (lid == 0) {                                                                                            \
            wstate[0] = t;      /* slots t-1, t-2, ... are still to be combined */                                 \
            wstate[1] = t == 0; /* done */                                                                         \
            wstate[2] = 0;      /* empty rounds in a row */                                                        \
            /* 1: this round, the aggregate of tile wstate[0] - 1 from its input (tests: first) */                \
            wstate[3] = LB_WINDOW_FALLBACK_FIRST && t > 0;                                                         \
            *wacc = (ID);                                                                                          \
        }                                                                                                          \
        barrier(CLK_LOCAL_MEM_FENCE);                                                                              \
        while (!wstate[1]) {                                                                                       \
            const uint j = wstate[0];                                                                              \
            if (LB_FALLBACK && wstate[3]) {                                                                        \
                const VT agg = AGGREGATE(in, n, j - 1, scratch);                                                   \
                barrier(CLK_GLOBAL_MEM_FENCE); /* every read of the input before the slot is read again */        \
                if (lid == 0) {                                                                                    \
                    VT v;                                                                                          \
                    uint flag = READ(slots, epoch, j - 1, &v);                                                     \
                    bool use_agg = flag == LB_EMPTY || (LB_WINDOW_FALLBACK_FIRST && !in_place);                   \
                    if (use_agg) {                                                                                 \
                        if (flag == LB_EMPTY) PUBLISH(slots, epoch, j - 1, j - 1 == 0 ? LB_PREFIX : LB_AGGREGATE, agg); \
                        v = agg;                                                                                   \
                        flag = j - 1 == 0 ? LB_PREFIX : LB_AGGREGATE; /* tile 0's aggregate is its prefix */      \
                    }                                                                                              \
                    *wacc = OP(v, *wacc);                                                                          \
                    wstate[0] = j - 1;                                                                             \
                    wstate[1] = flag == LB_PREFIX;                                                                 \
                    wstate[2] = 0;                                                                                 \
                    wstate[3] = 0;                                                                                 \
                }                                                                                                  \
                barrier(CLK_LOCAL_MEM_FENCE);                                                                      \
                continue;                                                                                          \
            }                                                                                                      \
            if (lid < window) {                                                                                    \
                VT v = (ID);                                                                                       \
                wflag[lid] = lid < j ? READ(slots, epoch, j - 1 - lid, &v) : LB_PREFIX;                            \
                wval[lid] = v;                                                                                     \
            }                                                                                                      \
            barrier(CLK_LOCAL_MEM_FENCE);                                                                          \
            if (lid == 0) {                                                                                        \
                VT acc = *wacc;                                                                                    \
                uint used = 0;                                                                                     \
                bool done = false;                                                                                 \
                for (uint b = 0; b < window && !done; ++b) {                                                       \
                    if (wflag[b] == LB_EMPTY) break;                                                               \
                    acc = OP(wval[b], acc); /* wval[b] covers earlier elements than acc */                         \
                    ++used;                                                                                        \
                    done = wflag[b] == LB_PREFIX;                                                                  \
                }                                                                                                  \
                if (used == 0) {                                                                                   \
                    if (LB_FALLBACK && ++wstate[2] > LB_FALLBACK_POLLS) wstate[3] = 1;                             \
                    else LB_BACKOFF();                                                                             \
                } else {                                                                                           \
                    wstate[2] = 0;                                                                                 \
                }                                                                                                  \
                *wacc = acc;                                                                                       \
                wstate[0] = j - used;                                                                              \
                wstate[1] = done;                                                                                  \
            }                                                                                                      \
            barrier(CLK_LOCAL_MEM_FENCE);                                                                          \
        }                                                                                                          \
        return *wacc;                                                                                              \
    }
