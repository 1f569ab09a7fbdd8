// top_k / top_k_by_key (issue #30): a radix select on the device over (sortable key, index)
// (top_k.cl), then a stable radix sort of the k survivors; or, for a large k, a stable radix sort
// of every (sortable key, index) pair (top_k_policy.hpp). No host round trip on either path.
#include "ranges_overlap.hpp"
#include "top_k_policy.hpp"

#include <clprim/detail/algorithms_kernels.hpp>
#include <clprim/detail/device_limits.hpp>
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
    bc::kernel init, histogram, select, compact, gather, sortable, write;
};

top_k_kernels& kernels_for(const bc::command_queue& queue, const std::string& options)
{
    thread_local std::map<std::tuple<cl_context, cl_device_id, std::string>, top_k_kernels> cache;
    const auto key = std::make_tuple(queue.get_context().get(), queue.get_device().id(), options);
    auto it = cache.find(key);
    if (it != cache.end()) return it->second;
    const bc::program p = algorithms_program(queue.get_context(), {"sort_key_order.cl", "top_k.cl"}, options);
    top_k_kernels k{p.create_kernel("topk_init"),    p.create_kernel("topk_histogram"), p.create_kernel("topk_select"),
                    p.create_kernel("topk_compact"), p.create_kernel("topk_gather"),    p.create_kernel("topk_sortable"),
                    p.create_kernel("topk_write")};
    return cache.emplace(key, k).first->second;
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
        const top_k_policy pol = select_top_k_policy(profile_of(device), n, k);
        std::string options = type_options(r.key_type, "K") +
                              type_options(r.has_values ? r.value_type : element_type::uint32, "V") +
                              " -DTOPK_WG=" + std::to_string(pol.wg);
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
            const bc::buffer state = lease.buffer(8 * sizeof(cl_uint));
            const bc::buffer hist = lease.buffer(256 * sizeof(cl_uint));
            s = lease.buffer(k * kbytes);
            idx = lease.buffer(k * 4);
            const bc::buffer cs = lease.buffer(n * kbytes);
            const bc::buffer ci = lease.buffer(n * 4);
            const std::size_t global = pol.groups * pol.wg;
            const std::size_t digits = kbytes + 4; // 8-bit digits of the key, then of the index
            launch(queue, kern.init, 256, 256, state, hist, cl_uint(k));
            launch(queue, kern.histogram, global, pol.wg, r.keys.buffer, cl_ulong(r.keys.offset), cl_uint(n), cs, ci,
                   cl_uint(1), cl_uint(0), state, hist);
            launch(queue, kern.select, 256, 256, state, hist, cl_uint(0));
            launch(queue, kern.compact, global, pol.wg, r.keys.buffer, cl_ulong(r.keys.offset), cl_uint(n), state, s,
                   idx, cs, ci);
            for (std::size_t d = 1; d < digits; ++d) {
                launch(queue, kern.histogram, global, pol.wg, r.keys.buffer, cl_ulong(r.keys.offset), cl_uint(n), cs,
                       ci, cl_uint(0), cl_uint(d), state, hist);
                launch(queue, kern.select, 256, 256, state, hist, cl_uint(d));
            }
            launch(queue, kern.gather, global, pol.wg, state, cs, ci, s, idx);
            // The k survivors in no order: by index, then stably by key (ties by index).
            if (k > 1) {
                sort_pairs(queue, idx, element_type::uint32, s, st, k);
                sort_pairs(queue, s, st, idx, element_type::uint32, k);
            }
        }
        launch(queue, kern.write, round_up(k, 256), 256, s, idx, cl_ulong(k), r.keys_out.buffer,
               cl_ulong(r.keys_out.offset), vin, vin_off, vout, vout_off, with_values);
    });
}

} // namespace detail
} // namespace clprim
