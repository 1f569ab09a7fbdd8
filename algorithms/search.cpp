// lower_bound / upper_bound (issue #30): many queries over one sorted range, one work-item per
// query; the plain path searches global memory, the cached one first the top levels of the search
// tree held in local memory (search.cl, search_policy.hpp).
#include "ranges_overlap.hpp"
#include "search_policy.hpp"

#include <clprim/detail/algorithms_kernels.hpp>
#include <clprim/detail/device_limits.hpp>
#include <clprim/detail/kernel_launch.hpp>
#include <clprim/detail/scratch_pool.hpp>
#include <clprim/search.hpp>

#include <limits>
#include <map>
#include <string>
#include <tuple>

namespace clprim {
namespace detail {

namespace {

struct search_kernels {
    bc::kernel plain, samples, cached;
};

// Kernels per host thread, by context, device, key and index type.
search_kernels& kernels_for(const bc::command_queue& queue, element_type type, bool index64)
{
    thread_local std::map<std::tuple<cl_context, cl_device_id, element_type, bool>, search_kernels> cache;
    const auto key = std::make_tuple(queue.get_context().get(), queue.get_device().id(), type, index64);
    auto it = cache.find(key);
    if (it != cache.end()) return it->second;
    const bc::program program =
        algorithms_program(queue.get_context(), {"sort_key_order.cl", "search.cl"},
                           type_options(type, "K") + (index64 ? " -DINDEX=ulong" : " -DINDEX=uint"));
    search_kernels k{program.create_kernel("search_plain"), program.create_kernel("search_samples"),
                     program.create_kernel("search_cached")};
    return cache.emplace(key, k).first->second;
}

} // namespace

void search_impl(const buffer_range& sorted, const buffer_range& values, const buffer_range& result,
                 element_type type, bool index64, bool upper, bc::command_queue& user_queue, const char* who)
{
    const std::size_t kbytes = size_of(type), ibytes = index64 ? 8 : 4;
    if (ranges_overlap(result, ibytes, sorted, kbytes) || ranges_overlap(result, ibytes, values, kbytes))
        throw invalid_argument_error(std::string(who) + ": the result overlaps the range or the values");
    if (!index64 && sorted.size > std::numeric_limits<cl_uint>::max())
        throw invalid_argument_error(std::string(who) + ": a cl_uint result cannot index a range this long");
    const bc::device device = user_queue.get_device();
    require_type_support(type, device, who);
    const std::size_t n = sorted.size, nq = values.size;
    if (nq == 0) return;

    in_order_scope scope(user_queue); // in order on out-of-order queues too (queue_order.hpp)
    bc::command_queue& queue = scope.queue();
    guarded(who, [&] {
        const device_profile& profile = profile_of(device);
        const search_policy pol = select_search_policy(profile, n, nq, kbytes);
        search_kernels& k = kernels_for(queue, type, index64);
        // An empty range stands in with the values' buffer (never read: every answer is 0).
        const buffer_range& a = n ? sorted : values;
        const cl_uint up = upper ? 1 : 0;
        if (!pol.cached || n == 0) {
            const std::size_t wg = floor_pow2(std::min(pol.wg, limits_for(k.plain, device).max_work_group_size));
            launch(queue, k.plain, round_up(nq, wg), wg, a.buffer, cl_ulong(a.offset), cl_ulong(n), values.buffer,
                   cl_ulong(values.offset), cl_ulong(nq), result.buffer, cl_ulong(result.offset), up);
            return;
        }
        const cl_uint m = cl_uint(pol.samples);
        scratch_lease lease(queue);
        const bc::buffer samples = lease.buffer(m * kbytes);
        const std::size_t swg = floor_pow2(std::min<std::size_t>(256, limits_for(k.samples, device).max_work_group_size));
        launch(queue, k.samples, round_up(m, swg), swg, a.buffer, cl_ulong(a.offset), cl_ulong(n), m, samples);
        const std::size_t wg = floor_pow2(std::min(pol.wg, limits_for(k.cached, device).max_work_group_size));
        const std::size_t groups = ceil_div(nq, wg * pol.items);
        launch(queue, k.cached, groups * wg, wg, a.buffer, cl_ulong(a.offset), cl_ulong(n), samples, m, values.buffer,
               cl_ulong(values.offset), cl_ulong(nq), result.buffer, cl_ulong(result.offset), up,
               local_bytes{m * kbytes});
    });
}

} // namespace detail
} // namespace clprim
