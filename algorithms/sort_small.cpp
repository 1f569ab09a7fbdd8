// One-launch stable sort of a small range (see sort_small.hpp and sort_small.cl).
#include "sort_small.hpp"
#include "sort_small_host.hpp"
#include "sort_small_policy.hpp"
#include "sort_small_tiles.hpp"
#include "sort_support.hpp"

#include <clprim/detail/algorithms_kernels.hpp>
#include <clprim/detail/device_profile.hpp>
#include <clprim/detail/kernel_launch.hpp>
#include <clprim/detail/queue_info.hpp>

#include <map>
#include <tuple>

namespace clprim {
namespace detail {

namespace {

// Bytes of one element of the registers kernel's network (sort_small.cl, small_elem): the
// sortable key alone, or (key, index) packed into 4 (8/16-bit keys), 8 (32-bit) or 16 bytes.
std::size_t element_bytes(const sort_request& r)
{
    const std::size_t k = size_of(r.key_type);
    if (!r.has_values) return k;
    return k <= 2 ? 4 : 2 * k;
}

// Local memory of the kernel that sorts P elements.
std::size_t local_bytes_for(const sort_small_policy& p, const sort_request& r, std::size_t padded)
{
    if (p.kernel == sort_small_kernel::network) return padded * (size_of(r.key_type) + sizeof(cl_uint));
    return padded * element_bytes(r);
}

std::size_t log2_of(std::size_t pow2)
{
    std::size_t b = 0;
    while ((std::size_t(1) << b) < pow2) ++b;
    return b;
}

struct small_kernel {
    bc::kernel kernel;
    std::size_t wg = 1;
    kernel_arg_memo args;
};

// Per host thread (kernel objects carry their arguments), per (context, device, types, order,
// kernel, P, elements per work-item): found without building the options text.
small_kernel& cached_kernel(const bc::command_queue& queue, const small_queue_ids& ids, const device_profile& profile,
                            const sort_request& r, const sort_small_policy& pol, std::size_t p)
{
    const bool warp = pol.kernel == sort_small_kernel::warp;
    const bool registers = pol.kernel == sort_small_kernel::registers || warp;
    const std::size_t items = registers ? sort_small_items(pol, profile, p) : 0;
    using key = std::tuple<cl_context, cl_device_id, int, int, int, int, std::size_t, std::size_t>;
    thread_local std::map<key, small_kernel> cache;
    const key k{ids.context, ids.device, int(r.key_type), r.has_values ? int(r.value_type) : -1, int(r.order),
                int(pol.kernel), p, items};
    auto it = cache.find(k);
    if (it != cache.end()) return it->second;
    std::size_t wg = 0;
    std::string options = sort_build_options(r) + " -DSMALL_P=" + std::to_string(p);
    if (registers) {
        wg = p / items;
        const std::size_t one = local_bytes_for(pol, r, p);
        const int buffers = 2 * one + 256 <= profile.local_mem_size ? 2 : 1;
        options += " -DSMALL_E=" + std::to_string(items) + " -DSMALL_LOG_E=" + std::to_string(log2_of(items)) +
                   " -DSMALL_LOG_P=" + std::to_string(log2_of(p)) + " -DSMALL_BUFFERS=" + std::to_string(buffers);
        if (warp) {
            // NVIDIA: steps between the work-items of a warp (32 consecutive ones) by shuffles.
            const std::size_t lane_log = profile.nvidia ? std::min<std::size_t>(5, log2_of(wg)) : 0;
            options += " -DSW_LANE_LOG=" + std::to_string(lane_log);
            if (lane_log > 0) options += " -DSW_LANE_MASK=" + std::to_string(wg >= 32 ? 0xffffffffu : (1u << wg) - 1u) + "u";
        }
    } else {
        wg = std::min({p / 2, pol.max_wg, floor_pow2(profile.max_work_group_size)});
    }
    options += " -DSMALL_WG=" + std::to_string(wg);
    bc::program program =
        warp ? algorithms_program(queue.get_context(), {"sort_key_order.cl", "sort_small.cl", "sort_small_warp.cl"}, options)
             : algorithms_program(queue.get_context(), {"sort_key_order.cl", "sort_small.cl"}, options);
    bc::kernel kernel = program.create_kernel(warp ? "sort_small_warp" : registers ? "sort_small_registers" : "sort_small");
    small_require_group(kernel, ids.device, wg, "the small sort's kernel");
    return cache.emplace(k, small_kernel{kernel, wg, {}}).first->second;
}

} // namespace

namespace {

// The largest range one work-group takes.
std::size_t one_group_max(const sort_request& r, const device_profile& profile, const sort_small_policy& pol)
{
    // The network kernel keeps its old budget (half the local memory); the registers kernel may
    // take all of it (one work-group runs).
    const std::size_t budget = pol.kernel == sort_small_kernel::network ? profile.local_mem_size / 2 : profile.local_mem_size;
    std::size_t p = pol.max_keys;
    while (p > 2 && local_bytes_for(pol, r, p) > budget) p /= 2;
    return local_bytes_for(pol, r, p) <= budget ? p : 0;
}

} // namespace

std::size_t sort_small_max_keys(const sort_request& r, const bc::command_queue& queue)
{
    const device_profile& profile = *info_of(queue).profile; // no driver query (queue_info.hpp)
    const sort_small_policy pol = select_sort_small_policy(profile);
    const std::size_t one = one_group_max(r, profile, pol);
    if (pol.tiles_max <= one) return one;
    const std::size_t tile = sort_small_tiles_tile(r, profile, pol);
    return tile == 0 ? one : std::max(one, std::min(pol.tiles_max, tile * sort_small_tiles_max_tiles));
}

void sort_small(const sort_request& r, bc::command_queue& queue)
{
    const std::size_t n = r.keys.size;
    const queue_info& info = info_of(queue); // no driver query on this thread's last queues
    const small_queue_ids ids{info.device.id(), info.context.get()};
    const device_profile& profile = *info.profile;
    const sort_small_policy pol = select_sort_small_policy(profile);
    if (n > one_group_max(r, profile, pol)) return sort_small_tiles(r, queue, ids, profile, pol);
    const std::size_t p = std::max<std::size_t>(2, next_pow2(n));
    small_kernel& k = cached_kernel(queue, ids, profile, r, pol, p);
    // Keys alone: (keys, key offset, n); pairs: (keys, key offset, values, value offset, n).
    if (r.has_values) k.args.set(k.kernel, r.keys.buffer, cl_ulong(r.keys.offset), r.values.buffer, cl_ulong(r.values.offset), cl_uint(n));
    else k.args.set(k.kernel, r.keys.buffer, cl_ulong(r.keys.offset), cl_uint(n));
    launch_1d(queue, k.kernel, k.wg, k.wg);
}

} // namespace detail
} // namespace clprim
