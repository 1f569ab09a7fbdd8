// The scratch pool (see clprim/detail/scratch_pool.hpp): per in-order command queue, a list of
// free buffers; a lease takes the smallest that fits without wasting more than half of it.
#include <clprim/detail/checks.hpp>
#include <clprim/detail/knobs.hpp>
#include <clprim/detail/queue_state.hpp>
#include <clprim/detail/queue_order.hpp>
#include <clprim/detail/scratch_pool.hpp>
#include <clprim/scratch.hpp>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <mutex>
#include <string>
#include <utility>

namespace clprim {
namespace detail {

namespace {

struct queue_pool {
    bc::command_queue queue; // kept alive so its handle cannot name a later queue
    std::vector<bc::buffer> free;
};

struct device_memory_info {
    cl_ulong global = 0;    // CL_DEVICE_GLOBAL_MEM_SIZE
    cl_ulong max_alloc = 0; // CL_DEVICE_MAX_MEM_ALLOC_SIZE
};

struct pool_state {
    std::mutex mutex;
    std::map<cl_command_queue, queue_pool> queues;
    std::map<cl_device_id, device_memory_info> device_memory;
    // One private queue per (context, device) on which fresh buffers are touched (see allocate).
    std::map<std::pair<cl_context, cl_device_id>, bc::command_queue> touch_queues;
    std::size_t bytes = 0;
    unsigned fail_after = 0, fail_next = 0; // the test hook, under the mutex
};

pool_state& state()
{
    static pool_state* s = new pool_state; // never destroyed: no OpenCL release after the driver's exit
    return *s;
}

constexpr std::size_t min_bytes = 256;

// The device's memory sizes, looked up once per device (every lease asks), under the lock.
const device_memory_info& memory_of(pool_state& s, const bc::device& device)
{
    auto it = s.device_memory.find(device.id());
    if (it == s.device_memory.end())
        it = s.device_memory.emplace(device.id(), device_memory_info{device.global_memory_size(),
                                                                     device.get_info<cl_ulong>(CL_DEVICE_MAX_MEM_ALLOC_SIZE)})
                 .first;
    return it->second;
}

bool is_allocation_failure(cl_int err)
{
    return err == CL_MEM_OBJECT_ALLOCATION_FAILURE || err == CL_OUT_OF_RESOURCES || err == CL_OUT_OF_HOST_MEMORY;
}

// A fresh buffer of bytes, touched so that a driver allocating at first use allocates now; or
// the OpenCL error. The fault-injection hook answers first.
cl_int try_allocate(const bc::command_queue& queue, std::size_t bytes, bc::buffer& out)
{
    pool_state& s = state();
    {
        std::lock_guard<std::mutex> lock(s.mutex);
        if (s.fail_after > 0) {
            --s.fail_after;
        } else if (s.fail_next > 0) {
            --s.fail_next;
            return CL_MEM_OBJECT_ALLOCATION_FAILURE;
        }
    }
    const bc::context context = queue.get_context();
    cl_int err = CL_SUCCESS;
    const cl_mem mem = clCreateBuffer(context.get(), CL_MEM_READ_WRITE, bytes, nullptr, &err);
    if (err != CL_SUCCESS) return err;
    bc::buffer b(mem, false);
    // The touch runs on a queue of its own: on the call's queue a blocking write would also wait
    // for everything enqueued there before (the user's work), only to learn about this buffer.
    bc::command_queue touch;
    {
        std::lock_guard<std::mutex> lock(s.mutex);
        auto& q = s.touch_queues[{context.get(), queue.get_device().id()}];
        if (q.get() == nullptr) {
            const cl_command_queue h = clCreateCommandQueue(context.get(), queue.get_device().id(), 0, &err);
            if (err != CL_SUCCESS) return err;
            q = bc::command_queue(h, false);
        }
        touch = q;
    }
    const unsigned char byte = 0;
    err = clEnqueueWriteBuffer(touch.get(), mem, CL_TRUE, 0, 1, &byte, 0, nullptr, nullptr);
    if (err != CL_SUCCESS) return err;
    out = b;
    return CL_SUCCESS;
}

// Empties the pool for a retry: waits for each queue whose buffers are dropped (a buffer released
// while a command still uses it is freed only when that command ends), then releases them.
void release_pool_for_retry()
{
    pool_state& s = state();
    std::map<cl_command_queue, queue_pool> dropped;
    {
        std::lock_guard<std::mutex> lock(s.mutex);
        dropped.swap(s.queues);
        s.bytes = 0;
    }
    for (auto& entry : dropped)
        if (!entry.second.free.empty()) clFinish(entry.second.queue.get());
}

} // namespace

std::size_t scratch_limit_bytes(const bc::device& device)
{
    if (const auto mb = knob_number("CLPRIM_SCRATCH_LIMIT_MB", 0, std::size_t(1) << 40)) return *mb << 20;
    pool_state& s = state();
    std::lock_guard<std::mutex> lock(s.mutex);
    return std::size_t(memory_of(s, device).global / 4);
}

void scratch_fail_next(unsigned n, unsigned after)
{
    std::lock_guard<std::mutex> lock(state().mutex);
    state().fail_next = n;
    state().fail_after = n ? after : 0;
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
    taken_.push_back(allocate(bytes));
    return taken_.back();
}

bc::buffer scratch_lease::allocate(std::size_t bytes)
{
    std::size_t held = 0;
    for (const auto& b : taken_) held += b.size();
    return allocate_device_buffer(queue_, bytes, held);
}

bc::buffer allocate_device_buffer(const bc::command_queue& queue_, std::size_t bytes, std::size_t held)
{
    const bc::device device = queue_.get_device();
    device_memory_info mem;
    {
        pool_state& s = state();
        std::lock_guard<std::mutex> lock(s.mutex);
        mem = memory_of(s, device);
    }
    auto describe = [&] {
        return "a temporary buffer of " + std::to_string(bytes) + " bytes (" + std::to_string((bytes + (1u << 20) - 1) >> 20) +
               " MiB) was needed besides the " + std::to_string(held) + " bytes this call already holds; device '" +
               device.name() + "' has " + std::to_string(mem.global) + " bytes";
    };
    if (bytes > mem.max_alloc)
        throw out_of_device_memory("out of device memory: " + describe() + " and allows at most " +
                                   std::to_string(mem.max_alloc) + " bytes in one buffer");
    bc::buffer b;
    cl_int err = try_allocate(queue_, bytes, b);
    if (is_allocation_failure(err)) {
        release_pool_for_retry();
        err = try_allocate(queue_, bytes, b);
        if (is_allocation_failure(err))
            throw out_of_device_memory("out of device memory: " + describe() +
                                       "; allocation failed also after releasing the scratch pool (OpenCL error " +
                                       bc::opencl_error::to_string(err) + ")");
    }
    if (err != CL_SUCCESS) throw bc::opencl_error(err);
    return b;
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
    std::map<std::pair<cl_context, cl_device_id>, bc::command_queue> touch_queues;
    {
        std::lock_guard<std::mutex> lock(s.mutex);
        dropped.swap(s.queues);
        touch_queues.swap(s.touch_queues);
        s.bytes = 0;
    }
    detail::release_companion_queues();
    detail::release_queue_states();
}

} // namespace clprim
