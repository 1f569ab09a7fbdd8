#pragma once
// Every clprim call behaves on an out-of-order command queue as it would on an in-order one.
//
// A clprim call is several dependent commands (a radix sort pass: count, scan, scatter), and the
// user's commands around it depend on it (the write of its input before, the read of its result
// after). An out-of-order queue (CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE) may run any of them in
// any order unless events or barriers say otherwise, and PoCL really does. So each call opens an
// in_order_scope on the user's queue and enqueues everything through scope.queue():
//   - on an in-order queue that is the user's queue itself: no extra command, no cost;
//   - on an out-of-order one it is a companion in-order queue of the same context, device and
//     profiling property (one per user queue, kept for the next call). The companion's first
//     command waits for a marker on the user's queue (so the call starts after everything the user
//     enqueued before it); when the scope ends, a barrier on the user's queue waits for a marker on
//     the companion (so everything the user enqueues after the call starts after it). Nothing
//     waits on the host: the call stays as asynchronous as on an in-order queue.
// Boost.Compute code run on scope.queue() (the boost_compute sort switch) is ordered the same way.
// A scope opened on a companion (an algorithm calling another's implementation) is a
// pass-through, the companion being in order. The closing barrier is enqueued also when the call
// throws, so both queues stay usable. The scratch pool (scratch_pool.hpp) keeps its buffers per
// companion, as for any in-order queue; release_scratch_memory() drops the companions too.
#include <clprim/config.hpp>

namespace clprim {
namespace detail {

class in_order_scope {
public:
    explicit in_order_scope(bc::command_queue& queue);
    ~in_order_scope();
    in_order_scope(const in_order_scope&) = delete;
    in_order_scope& operator=(const in_order_scope&) = delete;

    // The queue to enqueue the call's commands on (in order).
    bc::command_queue& queue() { return companion_.get() ? companion_ : user_; }

private:
    bc::command_queue& user_;
    bc::command_queue companion_; // null on an in-order queue
};

// Drops the companion queues kept for out-of-order queues (called by release_scratch_memory()).
void release_companion_queues();

} // namespace detail
} // namespace clprim
