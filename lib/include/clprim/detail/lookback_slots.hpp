#pragma once
// Look-back status slots kept per in-order queue, so that a single-pass scan needs no clearing
// command before its kernel (one launch instead of two: at 2^20 elements the clearing fill cost
// about as much wall time as the scan's kernel itself; docs/RESULTS.md).
//
// How a call gets clean slots without clearing them: every call on the queue gets a new epoch
// (1, 2, ...), and its kernel writes the epoch into every slot word it publishes (the high half
// of a 64-bit slot is (epoch << 2) | flag, primitives/lookback.cl). A reader treats a word of any
// other epoch as empty, so what an earlier call left behind reads as "not published yet". The
// buffer is zero-filled when it is made or grown and whenever the epoch would wrap (2^30 calls),
// and it is never lent to anything else (a scratch buffer could hold any word, including one
// that looks like this epoch's). Word 0 is the kernel's tile counter: the tile that takes the
// last index sets it back to zero for the next call (every other tile has taken its index by then).
//
// The buffer is the queue's state "lookback_slots" (queue_state.hpp: one per in-order queue, a
// fresh one per call on queues that may run commands out of order; the counter is the next epoch).
#include <clprim/config.hpp>

#include <cstddef>
#include <string>

namespace clprim {
namespace detail {

struct lookback_slots {
    bc::buffer buffer; // at least the words asked for (64-bit words), word 0 the tile counter
    cl_uint epoch = 1; // this call's tag, 1 .. max_lookback_epoch
};

constexpr cl_uint max_lookback_epoch = (cl_uint(1) << 30) - 1;

// Slots for one call on queue (enqueues a zero fill first when the buffer is new, grown or the
// epoch wraps).
lookback_slots take_lookback_slots(const bc::command_queue& queue, std::size_t words);

// Build options of every program with a look-back (lookback.cl): "" normally; with
// CLPRIM_LOOKBACK=fallback (tests) " -DLB_FALLBACK_POLLS=0 -DLB_FALLBACK_FIRST": every tile takes
// the decoupled fallback for its predecessor and at any empty slot instead of waiting, which must
// give identical results. Part of the programs' cache keys.
std::string lookback_build_options();

// Test hook: the next call on queue gets epoch `next` (wrapping past max_lookback_epoch as usual).
void set_next_lookback_epoch(const bc::command_queue& queue, cl_uint next);

} // namespace detail
} // namespace clprim
