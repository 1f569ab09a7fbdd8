// The scratch pool (see clprim/detail/scratch_pool.hpp): per in-order command queue, a list of
// free buffers; a lease takes the smallest that fits without wasting more than half of it.
#include <clprim/detail/scratch_pool.hpp>
#include <clprim/scratch.hpp>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <mutex>

namespace clprim {
namespace detail {

namespace {

struct queue_pool {
    bc::command_queue queue; // kept alive so its handle cannot name a later queue
    std::vector<bc::buffer> free;
};

struct pool_state {
    std::mutex mutex;
    std::map<cl_command_queue, queue_pool> queues;
    std::map<cl_device_id, cl_ulong> device_memory;
    std::size_t bytes = 0;
};

pool_state& state()
{
    static pool_state* s = new pool_state; // never destroyed: no OpenCL release after the driver's exit
    return *s;
}

constexpr std::size_t min_bytes = 256;

} // namespace

std::size_t scratch_limit_bytes(const bc::device& device)
{
    if (const char* v = std::getenv("CLPRIM_SCRATCH_LIMIT_MB"); v && *v)
        return std::size_t(std::strtoull(v, nullptr, 10)) << 20;
    // Every lease asks: the device's memory size is looked up once per device, not per call.
    pool_state& s = state();
    std::lock_guard<std::mutex> lock(s.mutex);
    auto it = s.device_memory.find(device.id());
    if (it == s.device_memory.end()) it = s.device_memory.emplace(device.id(), device.global_memory_size()).first;
    return std::size_t(it->second / 4);
}

std::size_t scratch_pooled_bytes()
{
    std::lock_guard<std::mutex> lock(state().mutex);
    return state().bytes;
}

scratch_lease::scratch_lease(const bc::command_queue& queue)
    : queue_(queue), limit_(scratch_limit_bytes(queue.get_device())),
      pooled_((queue.get_properties() & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE) == 0 && limit_ > 0)
{
}

bc::buffer scratch_lease::buffer(std::size_t bytes)
{
    bytes = std::max(bytes, min_bytes);
    if (pooled_) {
        pool_state& s = state();
        std::lock_guard<std::mutex> lock(s.mutex);
        auto it = s.queues.find(queue_.get());
        if (it != s.queues.end()) {
            auto& free = it->second.free;
            auto best = free.end();
            for (auto b = free.begin(); b != free.end(); ++b)
                if (b->size() >= bytes && b->size() / 2 <= bytes && (best == free.end() || b->size() < best->size()))
                    best = b;
            if (best != free.end()) {
                taken_.push_back(*best);
                s.bytes -= best->size();
                free.erase(best);
                return taken_.back();
            }
        }
    }
    taken_.emplace_back(queue_.get_context(), bytes, CL_MEM_READ_WRITE);
    return taken_.back();
}

scratch_lease::~scratch_lease()
{
    if (!pooled_ || taken_.empty()) return;
    try {
        pool_state& s = state();
        std::lock_guard<std::mutex> lock(s.mutex);
        // Largest first: if the limit bites, the small ones are the ones kept.
        std::sort(taken_.begin(), taken_.end(), [](const bc::buffer& a, const bc::buffer& b) { return a.size() > b.size(); });
        for (auto& b : taken_) {
            if (s.bytes + b.size() > limit_) continue; // released with taken_
            auto& q = s.queues[queue_.get()];
            if (q.queue.get() == nullptr) q.queue = queue_;
            q.free.push_back(b);
            s.bytes += b.size();
        }
    } catch (...) {
        // Only bookkeeping failed: the buffers are released with taken_ instead of being kept.
    }
}

} // namespace detail

void release_scratch_memory()
{
    detail::pool_state& s = detail::state();
    std::map<cl_command_queue, detail::queue_pool> dropped;
    {
        std::lock_guard<std::mutex> lock(s.mutex);
        dropped.swap(s.queues);
        s.bytes = 0;
    }
}

} // namespace clprim
