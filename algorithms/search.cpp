// lower_bound / upper_bound (issue #30): many queries over one sorted range; the plain path
// searches global memory (one work-item per query), the cached one first the top levels of the
// search tree held in local memory, the sorted one sorts the queries first and answers tiles of
// neighbouring queries from one slice of the range (search.cl), the tree one descends a B+tree
// built over the range for the call (search_tree.cl); search_policy.hpp chooses.
#include "ranges_overlap.hpp"
#include "search_policy.hpp"

#include <clprim/detail/algorithms_kernels.hpp>
#include <clprim/detail/device_limits.hpp>
#include <clprim/detail/kernel_cache.hpp>
#include <clprim/detail/kernel_launch.hpp>
#include <clprim/detail/scratch_pool.hpp>
#include <clprim/radix_sort.hpp>
#include <clprim/search.hpp>

#include <limits>
#include <map>
#include <string>
#include <tuple>

namespace clprim {
namespace detail {

namespace {

// log2 of a power of two.
std::size_t log2_pow2(std::size_t x)
{
    std::size_t s = 0;
    while ((std::size_t(1) << s) < x) ++s;
    return s;
}

struct search_kernels {
    bc::kernel plain, samples, cached, keys, partition, sorted, tree_build, tree;
};

// Kernels per host thread, by context, device and build options.
search_kernels& kernels_for(const bc::command_queue& queue, const std::string& options)
{
    return per_thread_kernels<search_kernels>(std::make_tuple(queue.get_context().get(), queue.get_device().id(), options), [&] {
        const bc::program p = algorithms_program(queue.get_context(), {"sort_key_order.cl", "search.cl", "search_tree.cl"}, options);
        return search_kernels{p.create_kernel("search_plain"),      p.create_kernel("search_samples"),
                              p.create_kernel("search_cached"),     p.create_kernel("search_keys"),
                              p.create_kernel("search_partition"),  p.create_kernel("search_sorted"),
                              p.create_kernel("search_tree_build"), p.create_kernel("search_tree")};
    });
}

// The sorted path: the queries' ordered keys and positions sorted (radix), bounds of every
// work-group's slice of the range, then the tiles answered and scattered back.
void search_sorted(bc::command_queue& queue, search_kernels& k, const search_policy& pol, const buffer_range& a,
                   const buffer_range& values, const buffer_range& result, element_type type, cl_uint up)
{
    const bc::device device = queue.get_device();
    const std::size_t n = a.size, nq = values.size, kbytes = size_of(type);
    const element_type ordered = kbytes == 8 ? element_type::uint64 : element_type::uint32;
    const std::size_t wg = floor_pow2(std::min(pol.wg, limits_for(k.sorted, device).max_work_group_size));
    const std::size_t tile = wg * pol.items, groups = ceil_div(nq, tile);
    scratch_lease lease(queue);
    const bc::buffer qs = lease.buffer(nq * kbytes), qi = lease.buffer(nq * sizeof(cl_uint));
    const bc::buffer bounds = lease.buffer((groups + 1) * sizeof(cl_ulong));
    launch(queue, k.keys, round_up(nq, 256), 256, values.buffer, cl_ulong(values.offset), cl_ulong(nq), qs, qi);
    sort_request r;
    r.keys = {qs, 0, nq};
    r.key_type = ordered;
    r.values = {qi, 0, nq};
    r.value_type = element_type::uint32;
    r.has_values = true;
    radix_sort_impl(r, queue);
    launch(queue, k.partition, round_up(groups + 1, 256), 256, a.buffer, cl_ulong(a.offset), cl_ulong(n), qs,
           cl_ulong(nq), cl_ulong(tile), cl_ulong(groups), bounds, up);
    launch(queue, k.sorted, groups * wg, wg, a.buffer, cl_ulong(a.offset), qs, qi, cl_ulong(nq), bounds,
           result.buffer, cl_ulong(result.offset), up, local_bytes{pol.slice * kbytes}, cl_uint(pol.slice));
}

// The tree path (search_tree.cl): levels 1..L of the B+tree (level k: m_k = ceil(n / F^k) keys,
// each padded to whole nodes) built in one launch, the top one (at most `samples` keys) then
// loaded by every work-group of the query kernel. n >= 1.
void search_tree(bc::command_queue& queue, search_kernels& k, const search_policy& pol, const buffer_range& a,
                 const buffer_range& values, const buffer_range& result, element_type type, cl_uint up)
{
    const bc::device device = queue.get_device();
    const std::size_t n = a.size, nq = values.size, kbytes = size_of(type);
    const std::size_t shift = log2_pow2(pol.node / kbytes), F = std::size_t(1) << shift;
    auto count = [&](std::size_t level) { // m_level
        const std::size_t sh = level * shift;
        return sh >= 64 ? std::size_t(1) : ((n - 1) >> sh) + 1;
    };
    std::size_t levels = 1, total = 0, top_off = 0;
    while (count(levels) > pol.samples) ++levels;
    for (std::size_t l = 1; l <= levels; ++l) {
        if (l == levels) top_off = total;
        total += round_up(count(l), F);
    }
    const std::size_t top = count(levels);
    scratch_lease lease(queue);
    const bc::buffer tree = lease.buffer(total * kbytes);
    const std::size_t bwg = floor_pow2(std::min<std::size_t>(256, limits_for(k.tree_build, device).max_work_group_size));
    launch(queue, k.tree_build, std::min(round_up(total, bwg), bwg * 4096), bwg, a.buffer, cl_ulong(a.offset),
           cl_ulong(n), cl_uint(levels), cl_ulong(total), tree);
    const std::size_t wg = floor_pow2(std::min(pol.wg, limits_for(k.tree, device).max_work_group_size));
    // `items` queries per work-item, but at least 8 work-groups per compute unit where the
    // queries allow (few queries: more work-items in flight, each with fewer).
    const std::size_t units = std::max<std::size_t>(1, device.compute_units());
    const std::size_t groups = std::max(ceil_div(nq, wg * pol.items), std::min(ceil_div(nq, wg), 8 * units));
    const cl_uint aligned = (a.offset * kbytes) % 16 == 0 ? 1 : 0;
    launch(queue, k.tree, groups * wg, wg, a.buffer, cl_ulong(a.offset), cl_ulong(n), tree, cl_uint(levels),
           cl_ulong(top_off), cl_uint(top), values.buffer, cl_ulong(values.offset), cl_ulong(nq), result.buffer,
           cl_ulong(result.offset), up, aligned, local_bytes{top * kbytes});
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
        const std::string options = type_options(type, "K") + (index64 ? " -DINDEX=ulong" : " -DINDEX=uint") +
                                    " -DSEARCH_ITEMS=" + std::to_string(pol.items) +
                                    " -DSEARCH_NODE_SHIFT=" + std::to_string(log2_pow2(pol.node / kbytes)) +
                                    " -DSEARCH_TREE_LANES=" + std::to_string(pol.lanes);
        search_kernels& k = kernels_for(queue, options);
        // An empty range stands in with the values' buffer (never read: every answer is 0).
        const buffer_range& a = n ? sorted : values;
        const cl_uint up = upper ? 1 : 0;
        if (pol.path == search_path::plain || n == 0) {
            const std::size_t wg = floor_pow2(std::min(pol.wg, limits_for(k.plain, device).max_work_group_size));
            launch(queue, k.plain, round_up(nq, wg), wg, a.buffer, cl_ulong(a.offset), cl_ulong(n), values.buffer,
                   cl_ulong(values.offset), cl_ulong(nq), result.buffer, cl_ulong(result.offset), up);
            return;
        }
        if (pol.path == search_path::sorted) return search_sorted(queue, k, pol, a, values, result, type, up);
        if (pol.path == search_path::tree) return search_tree(queue, k, pol, a, values, result, type, up);
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
