// Device state kept per in-order queue and purpose (see clprim/detail/queue_state.hpp).
#include <clprim/detail/queue_state.hpp>
#include <clprim/detail/queue_info.hpp>
#include <clprim/detail/scratch_pool.hpp>

#include <algorithm>
#include <map>
#include <string>
#include <utility>

namespace clprim {
namespace detail {

struct queue_state_entry {
    std::mutex mutex; // held by the call using the state (queue_state's lock)
    bc::command_queue queue; // kept alive so its handle cannot name a later queue
    bc::buffer buffer;
    std::size_t bytes = 0;
    bool fresh = true;
    cl_ulong counter = 0;
};

namespace {

struct states {
    std::mutex mutex; // guards the map, not the entries
    std::map<std::pair<cl_command_queue, std::string>, std::shared_ptr<queue_state_entry>> entries;
};

states& all()
{
    static states* s = new states; // never destroyed: no OpenCL release after the driver's exit
    return *s;
}

} // namespace

queue_state::queue_state(std::shared_ptr<queue_state_entry> entry, std::unique_lock<std::mutex> lock)
    : buffer(entry->buffer), fresh(entry->fresh), counter(entry->counter), entry_(std::move(entry)),
      lock_(std::move(lock))
{
}

namespace {

// Every state's size is a multiple of this: the largest pattern clEnqueueFillBuffer takes
// (a double16), so a fill with any pattern may clear the whole buffer. (Growing by half again
// once gave 36 bytes, which an 8-byte fill refused with CL_INVALID_VALUE on every later call.)
constexpr std::size_t size_unit = 128;

std::size_t state_size(std::size_t bytes) { return (std::max<std::size_t>(bytes, 1) + size_unit - 1) / size_unit * size_unit; }

} // namespace

queue_state take_queue_state(const bc::command_queue& queue, const char* purpose, std::size_t bytes)
{
    bytes = state_size(bytes);
    if (info_of(queue).properties & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE) { // no driver query (queue_info.hpp)
        auto e = std::make_shared<queue_state_entry>();
        e->buffer = allocate_device_buffer(queue, bytes);
        e->bytes = bytes;
        std::unique_lock<std::mutex> lock(e->mutex);
        return queue_state(std::move(e), std::move(lock));
    }
    std::shared_ptr<queue_state_entry> e;
    {
        states& s = all();
        std::lock_guard<std::mutex> lock(s.mutex);
        auto& slot = s.entries[{queue.get(), purpose}];
        if (!slot) {
            slot = std::make_shared<queue_state_entry>();
            slot->queue = queue;
        }
        e = slot;
    }
    std::unique_lock<std::mutex> lock(e->mutex); // after the map's lock: never both held while waiting
    if (e->bytes < bytes) {
        const std::size_t grown = state_size(std::max(bytes, e->bytes + e->bytes / 2));
        e->buffer = allocate_device_buffer(queue, grown); // may throw: the entry is unchanged
        e->bytes = grown;
        e->fresh = true; // the counter stays: the caller decides what a new buffer means for it
    }
    return queue_state(std::move(e), std::move(lock));
}

void release_queue_states()
{
    states& s = all();
    std::map<std::pair<cl_command_queue, std::string>, std::shared_ptr<queue_state_entry>> dropped;
    std::lock_guard<std::mutex> lock(s.mutex);
    dropped.swap(s.entries);
}

} // namespace detail
} // namespace clprim
