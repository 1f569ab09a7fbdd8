// Look-back status slots per in-order queue, tagged by epoch (see clprim/detail/lookback_slots.hpp).
#include <clprim/detail/lookback_slots.hpp>
#include <clprim/detail/scratch_pool.hpp>

#include <algorithm>
#include <map>
#include <mutex>

namespace clprim {
namespace detail {

namespace {

struct queue_slots {
    bc::command_queue queue; // kept alive so its handle cannot name a later queue
    bc::buffer buffer;
    std::size_t words = 0;
    cl_uint next_epoch = 1;
    bool needs_fill = false; // new, grown or wrapped, and not cleared yet
};

struct slots_state {
    std::mutex mutex;
    std::map<cl_command_queue, queue_slots> queues;
};

slots_state& state()
{
    static slots_state* s = new slots_state; // never destroyed: no OpenCL release after the driver's exit
    return *s;
}

void zero_fill(const bc::command_queue& queue, const bc::buffer& buffer, std::size_t words)
{
    const cl_ulong zero = 0;
    bc::command_queue q = queue;
    q.enqueue_fill_buffer(buffer, &zero, sizeof zero, 0, words * sizeof(cl_ulong));
}

} // namespace

lookback_slots take_lookback_slots(const bc::command_queue& queue, std::size_t words)
{
    words = std::max<std::size_t>(words, 2);
    lookback_slots r;
    if (queue.get_properties() & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE) {
        r.buffer = allocate_device_buffer(queue, words * sizeof(cl_ulong));
        zero_fill(queue, r.buffer, words);
        return r;
    }
    slots_state& s = state();
    std::lock_guard<std::mutex> lock(s.mutex);
    queue_slots& e = s.queues[queue.get()];
    if (e.queue.get() == nullptr) e.queue = queue;
    if (e.words < words) {
        // Grown by half again at least, so that slowly growing sizes do not reallocate every call.
        const std::size_t grown = std::max(words, e.words + e.words / 2);
        e.buffer = allocate_device_buffer(queue, grown * sizeof(cl_ulong)); // may throw: e unchanged
        e.words = grown;
        e.needs_fill = true;
    }
    if (e.next_epoch == 0 || e.next_epoch > max_lookback_epoch) {
        e.next_epoch = 1; // wrapped: words of the epochs about to be reused must go
        e.needs_fill = true;
    }
    // (A fill enqueued here runs before this call's kernel: same in-order queue. If enqueueing it
    // throws, the next call tries again.)
    if (e.needs_fill) {
        zero_fill(queue, e.buffer, e.words);
        e.needs_fill = false;
    }
    r.buffer = e.buffer;
    r.epoch = e.next_epoch++;
    return r;
}

void release_lookback_slots()
{
    slots_state& s = state();
    std::map<cl_command_queue, queue_slots> dropped;
    std::lock_guard<std::mutex> lock(s.mutex);
    dropped.swap(s.queues);
}

void set_next_lookback_epoch(const bc::command_queue& queue, cl_uint next)
{
    slots_state& s = state();
    std::lock_guard<std::mutex> lock(s.mutex);
    queue_slots& e = s.queues[queue.get()];
    if (e.queue.get() == nullptr) e.queue = queue;
    e.next_epoch = next;
}

} // namespace detail
} // namespace clprim
