#pragma once
// One place where the library's multi-kernel algorithms enqueue their kernels, so a developer can
// see where the time of a composed algorithm (a radix sort pass: count, scan, scatter) goes.
// When kernel_profile is switched on and the queue was created with CL_QUEUE_PROFILING_ENABLE,
// every launch's event is kept under its kernel's name; kernel_profile_report() sums them.
#include <clprim/config.hpp>

#include <cstddef>
#include <string>
#include <vector>

namespace clprim {
namespace detail {

// Enqueues kernel over global work-items in work-groups of local (global a multiple of local).
bc::event launch_1d(bc::command_queue& queue, const bc::kernel& kernel, std::size_t global, std::size_t local);

struct kernel_time {
    std::string name;
    std::size_t launches = 0;
    double ms = 0; // summed device time (CL_PROFILING_COMMAND_START..END)
};

// Names the launches of this host thread in the profile while it lives: "<kernel>/<label>", so
// launches of one kernel in different roles (the bitonic sort's full and short rows launches) are timed apart.
class profile_label {
public:
    explicit profile_label(const char* label);
    ~profile_label();
    profile_label(const profile_label&) = delete;
    profile_label& operator=(const profile_label&) = delete;

private:
    const char* previous_;
};

// Off by default (and without cost then). Switching it on clears what was recorded.
void kernel_profile(bool on);
// Waits for the recorded events and returns the times per kernel name, in first-launch order;
// clears the record.
std::vector<kernel_time> kernel_profile_report();

} // namespace detail
} // namespace clprim
