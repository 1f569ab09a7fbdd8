// Device profiles, computed once per device (see clprim/detail/device_profile.hpp).
#include <clprim/detail/device_profile.hpp>

#include <map>
#include <memory>
#include <mutex>

namespace clprim {
namespace detail {

namespace {

device_profile make_profile(const bc::device& device)
{
    device_profile p;
    const cl_device_type type = device.type();
    p.kind = (type & CL_DEVICE_TYPE_GPU) ? device_kind::gpu : (type & CL_DEVICE_TYPE_CPU) ? device_kind::cpu : device_kind::other;
    p.name = device.name();
    p.platform = device.platform().name();
    p.nvidia = p.platform.find("NVIDIA") != std::string::npos;
    p.pocl = p.platform.find("Portable Computing Language") != std::string::npos;
    p.compute_units = std::max<std::size_t>(1, device.compute_units());
    p.max_work_group_size = device.max_work_group_size();
    p.local_mem_size = device.local_memory_size();
    p.global_mem_size = device.global_memory_size();
    p.max_alloc_size = device.get_info<cl_ulong>(CL_DEVICE_MAX_MEM_ALLOC_SIZE);
    p.fp64 = device.supports_extension("cl_khr_fp64");
    p.subgroups = device.supports_extension("cl_khr_subgroups") || device.supports_extension("cl_intel_subgroups");
    // Where a started work-group is known to run to completion while others spin on it. GPUs in
    // general are not (Apple, Mali, some AMD parts); the look-back's fallback covers them.
    p.progress = (p.nvidia && p.is_gpu()) || p.pocl ? forward_progress::resident : forward_progress::none;
    return p;
}

} // namespace

const device_profile& profile_of(const bc::device& device)
{
    static std::mutex mutex;
    static auto* profiles = new std::map<cl_device_id, std::unique_ptr<device_profile>>; // never destroyed
    std::lock_guard<std::mutex> lock(mutex);
    auto& slot = (*profiles)[device.id()];
    if (!slot) slot = std::make_unique<device_profile>(make_profile(device));
    return *slot;
}

} // namespace detail
} // namespace clprim
