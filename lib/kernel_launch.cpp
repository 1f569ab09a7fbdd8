// Kernel launches with optional per-kernel device timing (see kernel_launch.hpp).
#include <clprim/detail/kernel_launch.hpp>

#include <atomic>
#include <chrono>
#include <mutex>
#include <utility>

namespace clprim {
namespace detail {

namespace {

struct profile_record {
    std::atomic<bool> on{false};
    std::mutex mutex;
    std::vector<std::pair<std::string, bc::event>> events;
};

profile_record& record()
{
    static profile_record r;
    return r;
}

thread_local const char* current_label = nullptr;

} // namespace

profile_label::profile_label(const char* label) : previous_(current_label) { current_label = label; }
profile_label::~profile_label() { current_label = previous_; }

bc::event launch_1d(bc::command_queue& queue, const bc::kernel& kernel, std::size_t global, std::size_t local)
{
    profile_record& r = record();
    if (!r.on.load(std::memory_order_relaxed) ||
        !(queue.get_info<cl_command_queue_properties>(CL_QUEUE_PROPERTIES) & CL_QUEUE_PROFILING_ENABLE)) {
        // No event unless kernel_profile wants it: creating one cost about 2 us of host time per
        // launch through NVIDIA's driver (8.0 against 5.8 us an enqueue, bench sort_small_probe),
        // which at 2^10 elements is a tenth of a call.
        const cl_int err = clEnqueueNDRangeKernel(queue.get(), kernel.get(), 1, nullptr, &global,
                                                  local != 0 ? &local : nullptr, 0, nullptr, nullptr);
        if (err != CL_SUCCESS) BOOST_THROW_EXCEPTION(bc::opencl_error(err));
        return bc::event();
    }
    bc::event e = queue.enqueue_1d_range_kernel(kernel, 0, global, local);
    std::lock_guard<std::mutex> lock(r.mutex);
    r.events.emplace_back(current_label ? kernel.name() + "/" + current_label : kernel.name(), e);
    return e;
}

void kernel_profile(bool on)
{
    profile_record& r = record();
    std::lock_guard<std::mutex> lock(r.mutex);
    r.events.clear();
    r.on = on;
}

std::vector<kernel_time> kernel_profile_report()
{
    profile_record& r = record();
    std::lock_guard<std::mutex> lock(r.mutex);
    std::vector<kernel_time> out;
    for (auto& [name, event] : r.events) {
        event.wait();
        const double ms = double(event.duration<std::chrono::nanoseconds>().count()) / 1e6;
        auto it = out.begin();
        while (it != out.end() && it->name != name) ++it;
        if (it == out.end()) it = out.insert(out.end(), kernel_time{name, 0, 0});
        ++it->launches;
        it->ms += ms;
    }
    r.events.clear();
    return out;
}

} // namespace detail
} // namespace clprim
