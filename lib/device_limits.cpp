#include <clprim/detail/device_limits.hpp>

namespace clprim {
namespace detail {

device_limits limits_for(const bc::kernel& kernel, const bc::device& device)
{
    device_limits l{};
    l.max_work_group_size = kernel.get_work_group_info<std::size_t>(device, CL_KERNEL_WORK_GROUP_SIZE);
    l.preferred_multiple =
        kernel.get_work_group_info<std::size_t>(device, CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE);
    l.local_mem_size = device.local_memory_size();
    l.compute_units = device.compute_units();
    l.is_gpu = (device.type() & CL_DEVICE_TYPE_GPU) != 0;
    if (l.preferred_multiple == 0) l.preferred_multiple = 1;
    return l;
}

bool launch_probe(bc::command_queue& queue, const bc::kernel& kernel, std::size_t wg)
{
    try {
        queue.enqueue_1d_range_kernel(kernel, 0, wg, wg);
        queue.finish();
    } catch (const bc::opencl_error&) {
        return false;
    }
    return true;
}

std::size_t floor_pow2(std::size_t x)
{
    std::size_t p = 1;
    while (p * 2 <= x) p *= 2;
    return p;
}

} // namespace detail
} // namespace clprim
