// Counting sort of 16-bit keys alone (see radix_counting16.cl): clprim's histogram over the key
// range (65535 bins of one key each; the last key is counted as the rest), then count16_scan and
// count16_fill.
#include "radix_counting16.hpp"
#include "sort_support.hpp"

#include <clprim/detail/algorithms_kernels.hpp>
#include <clprim/detail/kernel_launch.hpp>
#include <clprim/detail/scratch_pool.hpp>
#include <clprim/histogram.hpp>

#include <map>
#include <tuple>

namespace clprim {
namespace detail {

namespace {

constexpr std::size_t scan_wg = 256;
constexpr std::size_t fill_items = 16; // outputs per work-item (C16_ITEMS)

struct counting16_kernels {
    bc::kernel scan, fill;
    std::size_t fill_wg = 64;
};

// Per host thread, by context, device, key type and order.
counting16_kernels& kernels_for(const bc::command_queue& queue, const sort_request& r)
{
    using key = std::tuple<cl_context, cl_device_id, int, int>;
    thread_local std::map<key, counting16_kernels> cache;
    const key k{queue.get_context().get(), queue.get_device().id(), int(r.key_type), int(r.order)};
    auto it = cache.find(k);
    if (it != cache.end()) return it->second;
    const bc::program program = algorithms_program(queue.get_context(), {"sort_key_order.cl", "radix_counting16.cl"},
                                                   sort_build_options(r) + " -DC16_SCAN_WG=" + std::to_string(scan_wg));
    counting16_kernels ks;
    ks.scan = program.create_kernel("count16_scan");
    ks.fill = program.create_kernel("count16_fill");
    ks.fill_wg = pow2_group_size(ks.fill, queue.get_device(), 256);
    return cache.emplace(k, ks).first->second;
}

} // namespace

void radix_sort_counting16(const sort_request& r, bc::command_queue& queue)
{
    const std::size_t n = r.keys.size;
    counting16_kernels& k = kernels_for(queue, r);
    scratch_lease lease(queue);
    const bc::buffer counts = lease.buffer(65535 * sizeof(cl_uint));
    const bc::buffer starts = lease.buffer(65537 * sizeof(cl_uint));
    const cl_uint zero = 0;
    queue.enqueue_fill_buffer(counts, &zero, sizeof zero, 0, 65535 * sizeof(cl_uint));
    // Bin v: the key lower + v (its ordered value), v < 65535.
    const buffer_range out{counts, 0, 65535};
    if (r.key_type == element_type::int16) {
        const cl_short lower = -32768, upper = 32767;
        histogram_impl(r.keys, out, 65535, r.key_type, &lower, &upper, queue);
    } else {
        const cl_ushort lower = 0, upper = 65535;
        histogram_impl(r.keys, out, 65535, r.key_type, &lower, &upper, queue);
    }
    launch(queue, k.scan, scan_wg, scan_wg, counts, cl_uint(n), starts);
    launch(queue, k.fill, round_up(ceil_div(n, fill_items), k.fill_wg), k.fill_wg, r.keys.buffer, cl_ulong(r.keys.offset),
           cl_uint(n), starts);
}

} // namespace detail
} // namespace clprim
