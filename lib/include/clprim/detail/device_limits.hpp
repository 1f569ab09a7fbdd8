#pragma once
#include <clprim/config.hpp>
#include <cstddef>

namespace clprim {
namespace detail {

// What a kernel may use on a device, read from the device rather than assumed.
struct device_limits {
    std::size_t max_work_group_size;  // for this kernel on this device
    std::size_t preferred_multiple;   // CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE
    std::size_t local_mem_size;       // bytes of local memory per work-group
    std::size_t compute_units;
    bool is_gpu;
};

device_limits limits_for(const bc::kernel& kernel, const bc::device& device);

// Whether one work-group of wg work-items of `kernel` (its arguments set for a launch that reads
// and writes nothing, e.g. n = 0) runs on this queue's device: enqueued and waited for, any
// OpenCL error read as no. For kernels declared with reqd_work_group_size(wg) whose
// CL_KERNEL_WORK_GROUP_SIZE reports less: NVIDIA's driver reports 256 for such kernels built for
// 512 work-items, and they run at 512 (H100). Callers keep the verdict; it costs a round trip.
bool launch_probe(bc::command_queue& queue, const bc::kernel& kernel, std::size_t wg);

// Largest power of two <= x (x > 0).
std::size_t floor_pow2(std::size_t x);
inline std::size_t ceil_div(std::size_t a, std::size_t b) { return (a + b - 1) / b; }
inline std::size_t round_up(std::size_t a, std::size_t b) { return ceil_div(a, b) * b; }

} // namespace detail
} // namespace clprim
