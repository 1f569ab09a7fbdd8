// One-launch stable sort of a small range (see sort_small.hpp and sort_small.cl).
#include "sort_small.hpp"
#include "sort_support.hpp"

#include <clprim/detail/device_profile.hpp>
#include <clprim/detail/kernel_launch.hpp>

#include <map>
#include <tuple>

namespace clprim {
namespace detail {

namespace {

constexpr std::size_t largest_small_sort = 4096;
constexpr std::size_t small_group_cap = 256; // H100, 1024 uint keys: 0.026 ms at 256, 0.030 at 512

struct small_kernel {
    bc::kernel kernel;
    std::size_t wg = 1;
};

// Per host thread (kernel objects carry their arguments), per (context, device, options).
small_kernel& cached_kernel(const bc::command_queue& queue, const sort_request& r, std::size_t p)
{
    const device_profile& profile = profile_of(queue.get_device());
    const std::size_t wg = std::min({p / 2, small_group_cap, floor_pow2(profile.max_work_group_size)});
    const std::string options =
        sort_build_options(r) + " -DSMALL_P=" + std::to_string(p) + " -DSMALL_WG=" + std::to_string(wg);
    using key = std::tuple<cl_context, cl_device_id, std::string>;
    thread_local std::map<key, small_kernel> cache;
    const key k{queue.get_context().get(), queue.get_device().get(), options};
    auto it = cache.find(k);
    if (it == cache.end()) {
        bc::program program = algorithms_program(queue.get_context(), {"sort_key_order.cl", "sort_small.cl"}, options);
        it = cache.emplace(k, small_kernel{program.create_kernel("sort_small"), wg}).first;
    }
    return it->second;
}

} // namespace

std::size_t sort_small_max_keys(const sort_request& r, const bc::command_queue& queue)
{
    const device_profile& profile = profile_of(queue.get_device());
    const std::size_t pair_bytes = size_of(r.key_type) + sizeof(cl_uint);
    std::size_t p = largest_small_sort;
    while (p > 2 && p * pair_bytes > profile.local_mem_size / 2) p /= 2;
    return p * pair_bytes <= profile.local_mem_size / 2 ? p : 0;
}

void sort_small(const sort_request& r, bc::command_queue& queue)
{
    const std::size_t n = r.keys.size;
    const std::size_t p = std::max<std::size_t>(2, next_pow2(n));
    small_kernel& k = cached_kernel(queue, r, p);
    launch(queue, k.kernel, k.wg, k.wg, r.keys.buffer, cl_ulong(r.keys.offset), values_buffer_or(r),
           cl_ulong(r.has_values ? r.values.offset : 0), cl_uint(n));
}

} // namespace detail
} // namespace clprim
