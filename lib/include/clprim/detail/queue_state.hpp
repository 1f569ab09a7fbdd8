#pragma once
// A device buffer kept per in-order queue and purpose, for state that one call leaves for the
// next on the same queue, so that neither needs a clearing command first:
//   - the single-pass scan's look-back slots, tagged by a per-call epoch (lookback_slots.hpp);
//   - the one-sweep radix sort's counters, of which each call clears the half the next one
//     uses (radix_onesweep.cpp).
// What the buffer holds is the caller's business; this keeps it, grows it, and says when it is
// new (contents undefined: the caller initialises it and then clears `fresh`). Each (queue,
// purpose) also keeps one counter for the caller (an epoch, a call count).
//
// The lock: a call holds its queue_state while it enqueues, so calls from several host threads
// on one queue enqueue their commands one call after the other, never interleaved (a call of
// several kernels sharing the state with another call would corrupt both).
//
// The calls of one in-order queue run in order, so one buffer per queue serves them all. A queue
// that may run commands out of order gets a new buffer per call instead (fresh, counter 0).
// The buffer is never lent to anything else, and release_queue_states() (called by
// release_scratch_memory()) drops them all.
#include <clprim/config.hpp>

#include <cstddef>
#include <memory>
#include <mutex>

namespace clprim {
namespace detail {

struct queue_state_entry; // the kept buffer, its counter and its lock

class queue_state {
public:
    bc::buffer buffer;       // at least the bytes asked for
    bool& fresh;             // new (or regrown): contents undefined until the caller clears this
    cl_ulong& counter;       // the caller's, kept with the buffer (0 at first; kept when it grows)

    queue_state(std::shared_ptr<queue_state_entry> entry, std::unique_lock<std::mutex> lock);

private:
    std::shared_ptr<queue_state_entry> entry_;
    std::unique_lock<std::mutex> lock_;
};

// The state of `purpose` (a string literal naming the user) on queue, at least bytes large.
// Grows by half again at least (slowly growing sizes do not reallocate every call); the size is
// always a multiple of 128 bytes, so a fill with any OpenCL pattern (1 to 128 bytes) may cover
// the whole buffer. The device buffer is allocated through allocate_device_buffer (scratch_pool.hpp).
queue_state take_queue_state(const bc::command_queue& queue, const char* purpose, std::size_t bytes);

// Drops every queue's states (release_scratch_memory() calls it).
void release_queue_states();

} // namespace detail
} // namespace clprim
