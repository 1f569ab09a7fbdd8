// top_k / top_k_by_key (issue #30): a sampled threshold, one filtering read and a radix select
// over the candidates on the device (top_k.cl), then a stable radix sort of the k survivors; or,
// for a large k, a stable radix sort of every (sortable key, index) pair (top_k_policy.hpp). No
// host round trip on either path.
#include "ranges_overlap.hpp"
#include "sort_support.hpp"
#include "top_k_policy.hpp"

#include <clprim/detail/algorithms_kernels.hpp>
#include <clprim/detail/device_limits.hpp>
#include <clprim/detail/kernel_cache.hpp>
#include <clprim/detail/kernel_launch.hpp>
#include <clprim/detail/scratch_pool.hpp>
#include <clprim/radix_sort.hpp>
#include <clprim/top_k.hpp>

#include <map>
#include <string>
#include <tuple>

namespace clprim {
namespace detail {

namespace {

struct top_k_kernels {
    bc::kernel sample, filter, pass, gather, sort_small, sortable, write, write_composite;
};

top_k_kernels& kernels_for(const bc::command_queue& queue, const std::string& options)
{
    return per_thread_kernels<top_k_kernels>(std::make_tuple(queue.get_context().get(), queue.get_device().id(), options), [&] {
        const bc::program p = algorithms_program(queue.get_context(), {"sort_key_order.cl", "top_k.cl"}, options);
        return top_k_kernels{p.create_kernel("topk_sample"),     p.create_kernel("topk_filter"),
                             p.create_kernel("topk_pass"),       p.create_kernel("topk_gather"),
                             p.create_kernel("topk_sort_small"), p.create_kernel("topk_sortable"),
                             p.create_kernel("topk_write"),      p.create_kernel("topk_write_composite")};
    });
}

// A stable ascending radix sort of count keys (buffer keys, type kt) carrying values (uint32).
void sort_pairs(bc::command_queue& queue, const bc::buffer& keys, element_type kt, const bc::buffer& values,
                element_type vt, std::size_t count)
{
    sort_request r;
    r.keys = {keys, 0, count};
    r.key_type = kt;
    r.values = {values, 0, count};
    r.value_type = vt;
    r.has_values = true;
    r.order = sort_order::ascending;
    radix_sort_impl(r, queue);
}


} // namespace

void top_k_impl(const top_k_request& r, bc::command_queue& user_queue, const char* who)
{
    const std::size_t kbytes = size_of(r.key_type);
    const std::size_t vbytes = r.has_values ? size_of(r.value_type) : 0;
    const bool bad = ranges_overlap(r.keys_out, kbytes, r.keys, kbytes) ||
                     (r.has_values && (ranges_overlap(r.keys_out, kbytes, r.values, vbytes) ||
                                       ranges_overlap(r.values_out, vbytes, r.keys, kbytes) ||
                                       ranges_overlap(r.values_out, vbytes, r.values, vbytes) ||
                                       ranges_overlap(r.values_out, vbytes, r.keys_out, kbytes)));
    if (bad) throw invalid_argument_error(std::string(who) + ": an output range overlaps an input or the other output");
    const bc::device device = user_queue.get_device();
    require_type_support(r.key_type, device, who);
    if (r.has_values) require_type_support(r.value_type, device, who);
    const std::size_t n = r.keys.size, k = r.k;
    if (k == 0) return;

    in_order_scope scope(user_queue); // in order on out-of-order queues too (queue_order.hpp)
    bc::command_queue& queue = scope.queue();
    guarded(who, [&] {
        const top_k_policy pol = select_top_k_policy(profile_of(device), n, k, kbytes);
        std::string options = type_options(r.key_type, "K") +
                              type_options(r.has_values ? r.value_type : element_type::uint32, "V") +
                              " -DTOPK_WG=" + std::to_string(pol.wg) + " -DTOPK_ITEMS=" + std::to_string(pol.items) +
                              " -DTOPK_SMALL=" + std::to_string(pol.small);
        if (r.order == sort_order::descending) options += " -DSORT_DESCENDING";
        top_k_kernels& kern = kernels_for(queue, options);
        const element_type st = bits_type(kbytes); // sortable bits
        const cl_uint with_values = r.has_values ? 1 : 0;
        const bc::buffer& vin = r.has_values ? r.values.buffer : r.keys.buffer;
        const bc::buffer& vout = r.has_values ? r.values_out.buffer : r.keys_out.buffer;
        const cl_ulong vin_off = r.has_values ? r.values.offset : 0, vout_off = r.has_values ? r.values_out.offset : 0;
        scratch_lease lease(queue); // every temporary before the first command
        bc::buffer s, idx;
        if (!pol.select) {
            s = lease.buffer(n * kbytes);
            idx = lease.buffer(n * 4);
            launch(queue, kern.sortable, round_up(n, 256), 256, r.keys.buffer, cl_ulong(r.keys.offset), cl_ulong(n), s, idx);
            sort_pairs(queue, s, st, idx, element_type::uint32, n); // stable: equal keys by index
        } else {
            const bc::buffer state = lease.buffer(12 * sizeof(cl_uint));
            const bc::buffer hist = lease.buffer(256 * sizeof(cl_uint));
            s = lease.buffer(k * kbytes);
            idx = lease.buffer(k * 4);
            const bc::buffer cs = lease.buffer(n * kbytes); // candidates: at most every element
            const bc::buffer ci = lease.buffer(n * 4);
            // Keys of up to 32 bits: the survivors as composites (one ulong sort instead of two).
            const bool compose = kbytes <= 4 && k > pol.small;
            const bc::buffer comp = compose ? lease.buffer(k * sizeof(cl_ulong)) : s;
            const std::size_t global = pol.groups * pol.wg;
            const std::size_t filter_global = ceil_div(n, pol.wg * pol.items) * pol.wg;
            const std::size_t digits = kbytes + 4; // 8-bit digits of the key, then of the index
            launch(queue, kern.sample, 256, 256, r.keys.buffer, cl_ulong(r.keys.offset), cl_uint(n), cl_uint(pol.samples),
                   cl_uint(pol.need), cl_uint(k), state, hist, local_bytes{pol.samples * kbytes});
            // The second read (rarely needed) on the grid-stride grid: an idle launch is short. Not
            // launched when it cannot be needed: `need` distinct samples are at or below T, so at
            // least `need` elements pass the first (all of them when need > samples).
            for (cl_uint extra : {0u, 1u})
                if (!extra || pol.need < k)
                    launch(queue, kern.filter, extra ? std::min(filter_global, global) : filter_global, pol.wg,
                           r.keys.buffer, cl_ulong(r.keys.offset), cl_uint(n), cl_uint(k), extra, state, cs, ci);
            for (std::size_t d = 0; d < digits; ++d) launch(queue, kern.pass, global, pol.wg, cs, ci, cl_uint(d), state, hist);
            launch(queue, kern.gather, global, pol.wg, state, cs, ci, s, idx, comp, cl_uint(compose ? 1 : 0));
            // The k survivors in no order: sorted by (key, index) in one work-group when few...
            if (k <= pol.small) {
                const std::size_t swg = std::min<std::size_t>(pow2_group_size(kern.sort_small, device, 256),
                                                              next_pow2(std::max<std::size_t>(1, k / 2)));
                launch(queue, kern.sort_small, swg, swg, s, idx, cl_uint(k), r.keys_out.buffer,
                       cl_ulong(r.keys_out.offset), vin, vin_off, vout, vout_off, with_values);
                return;
            }
            // ... else as composites, one radix sort ...
            if (compose) {
                sort_request c;
                c.keys = {comp, 0, k};
                c.key_type = element_type::uint64;
                radix_sort_impl(c, queue);
                launch(queue, kern.write_composite, round_up(k, 256), 256, comp, cl_ulong(k), r.keys_out.buffer,
                       cl_ulong(r.keys_out.offset), vin, vin_off, vout, vout_off, with_values);
                return;
            }
            // ... or by index, then stably by key (ties by index).
            sort_pairs(queue, idx, element_type::uint32, s, st, k);
            sort_pairs(queue, s, st, idx, element_type::uint32, k);
        }
        launch(queue, kern.write, round_up(k, 256), 256, s, idx, cl_ulong(k), r.keys_out.buffer,
               cl_ulong(r.keys_out.offset), vin, vin_off, vout, vout_off, with_values);
    });
}

} // namespace detail
} // namespace clprim
