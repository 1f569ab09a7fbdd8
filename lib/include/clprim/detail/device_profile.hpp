#pragma once
// What clprim knows about a device, computed once per device and kept: its kind, vendor, limits
// and capabilities. Every device-kind decision of the library (which path, which tuning) reads
// this; nothing else inspects device types or platform names.
#include <clprim/config.hpp>

#include <cstddef>
#include <string>

namespace clprim {
namespace detail {

enum class device_kind { cpu, gpu, other }; // other: accelerators, custom devices

// How far the library may rely on work-groups making progress while others wait for them.
//   none:      nothing is assumed; a work-group that waits must be able to do the work itself
//              (the look-back's fallback, primitives/lookback.cl).
//   resident:  a work-group that has started runs to completion (measured on NVIDIA GPUs and on
//              PoCL's pthread device, where a work-group is one host thread's loop).
enum class forward_progress { none, resident };

struct device_profile {
    device_kind kind = device_kind::other;
    std::string name;            // CL_DEVICE_NAME
    std::string platform;        // CL_PLATFORM_NAME
    bool nvidia = false;         // NVIDIA's OpenCL driver: inline PTX, nanosleep, match.any
    bool pocl = false;           // Portable Computing Language
    std::size_t compute_units = 1;
    std::size_t max_work_group_size = 1; // the device's, not a kernel's (limits_for gives those)
    std::size_t local_mem_size = 0;      // bytes per work-group
    cl_ulong global_mem_size = 0;
    cl_ulong max_alloc_size = 0;
    bool fp64 = false;
    bool subgroups = false;              // cl_khr_subgroups or cl_intel_subgroups
    forward_progress progress = forward_progress::none;

    bool is_gpu() const { return kind == device_kind::gpu; }
    bool is_cpu() const { return kind == device_kind::cpu; }
};

// The profile of device (computed on first use, then shared; thread-safe).
const device_profile& profile_of(const bc::device& device);

} // namespace detail
} // namespace clprim
