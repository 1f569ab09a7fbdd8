// clprim::copy_if: count the passing elements per tile, scan the counts with clprim's own scan,
// scatter (kernels in copy_if.cl, over the work-group building blocks).
#include <clprim/copy_if.hpp>
#include <clprim/detail/device_limits.hpp>
#include <clprim/detail/kernel_launch.hpp>
#include <clprim/detail/primitives_kernels.hpp>
#include <clprim/detail/queue_order.hpp>
#include <clprim/detail/scratch_pool.hpp>
#include <clprim/scan.hpp>

#include <algorithm>
#include <map>
#include <mutex>
#include <tuple>

namespace clprim {
namespace detail {

namespace {

const char* const who = "clprim::copy_if";

// Tuning, in one place: 256 work-items (full occupancy, few tiles to scan) and 64 bytes per
// work-item per tile (16 uints / 8 ulongs: enough work per barrier to stay memory-bound).
struct copy_if_kernels {
    bc::kernel count, scatter;
    std::size_t wg = 1, items = 1;
    std::size_t tile() const { return wg * items; }
};

std::size_t scan_scratch(std::size_t wg) { return 2 * wg + ((2 * wg) >> 5) + 1; } // WG_SCAN_SCRATCH
std::size_t tile_slots(std::size_t tile) { return tile + ((tile - 1) >> 5); }     // CPY_PAD(tile-1)+1

copy_if_kernels make_kernels(const bc::command_queue& queue, element_type type, const std::string& pred_file)
{
    copy_if_kernels k;
    const std::size_t elem = size_of(type);
    k.items = elem == 4 ? 16 : 8;
    const bc::context context = queue.get_context();
    const bc::device device = queue.get_device();
    bc::program program = primitives_program(
        context, {pred_file, "workgroup_reduce.cl", "workgroup_scan.cl", "workgroup_histogram.cl", "workgroup_api.cl", "copy_if.cl"},
        type_options(type, "T") + " -DCPY_ITEMS=" + std::to_string(k.items));
    k.count = program.create_kernel("copy_if_count");
    k.scatter = program.create_kernel("copy_if_scatter");
    const auto lc = limits_for(k.count, device);
    const auto ls = limits_for(k.scatter, device);
    k.wg = floor_pow2(std::max<std::size_t>(1, std::min<std::size_t>({256, lc.max_work_group_size, ls.max_work_group_size})));
    while (k.wg > 1 && tile_slots(k.tile()) * elem + scan_scratch(k.wg) * 4 > ls.local_mem_size) k.wg /= 2;
    return k;
}

// Per host thread (kernel objects carry their arguments), per (context, device, type, predicate).
copy_if_kernels& cached_kernels(const bc::command_queue& queue, element_type type, const std::string& pred_file)
{
    using key = std::tuple<cl_context, cl_device_id, int, std::string>;
    thread_local std::map<key, copy_if_kernels> cache;
    const key k{queue.get_context().get(), queue.get_device().get(), int(type), pred_file};
    auto it = cache.find(k);
    if (it == cache.end()) it = cache.emplace(k, make_kernels(queue, type, pred_file)).first;
    return it->second;
}

} // namespace

std::size_t copy_if_impl(const buffer_range& in, const buffer_range& out, element_type type,
                         const std::string& pred_file, bc::command_queue& user_queue)
{
    // The output may be written anywhere in [out.offset, out.offset + min(n, room)).
    const std::size_t reach = std::min(in.size, out.size);
    if (in.size > 0 && reach > 0 && in.buffer.get() == out.buffer.get() && in.offset < out.offset + reach &&
        out.offset < in.offset + in.size)
        throw invalid_argument_error("clprim::copy_if: the result range overlaps the input");
    require_type_support(type, user_queue.get_device(), who);
    if (in.size == 0) return 0;

    cl_ulong total = 0;
    in_order_scope scope(user_queue); // in order on out-of-order queues too (queue_order.hpp)
    bc::command_queue& queue = scope.queue();
    guarded(who, [&] {
        copy_if_kernels& k = cached_kernels(queue, type, pred_file);
        const std::size_t elem = size_of(type);
        const std::size_t tiles = ceil_div(in.size, k.tile());
        scratch_lease lease(queue);
        const bc::buffer counts = lease.buffer((tiles + 1) * sizeof(cl_ulong));

        k.count.set_arg(0, in.buffer);
        k.count.set_arg(1, cl_ulong(in.offset));
        k.count.set_arg(2, cl_ulong(in.size));
        k.count.set_arg(3, counts);
        k.count.set_arg(4, scan_scratch(k.wg) * sizeof(cl_uint), nullptr);
        launch_1d(queue, k.count, tiles * k.wg, k.wg);

        // counts[g] -> first output slot of tile g; counts[tiles] -> the total.
        const buffer_range c{counts, 0, tiles + 1};
        const cl_ulong zero = 0;
        scan_impl(c, c, element_type::uint64, false, &zero, scan_algorithm::fast, queue);

        // The total comes back while the scatter runs (an in-order queue finishes the read
        // before the scatter starts; the call waits for the read only).
        bc::event read = queue.enqueue_read_buffer_async(counts, tiles * sizeof(cl_ulong), sizeof total, &total);

        k.scatter.set_arg(0, in.buffer);
        k.scatter.set_arg(1, cl_ulong(in.offset));
        k.scatter.set_arg(2, cl_ulong(in.size));
        k.scatter.set_arg(3, out.buffer);
        k.scatter.set_arg(4, cl_ulong(out.offset));
        k.scatter.set_arg(5, cl_ulong(out.size));
        k.scatter.set_arg(6, counts);
        k.scatter.set_arg(7, tile_slots(k.tile()) * elem, nullptr);
        k.scatter.set_arg(8, scan_scratch(k.wg) * sizeof(cl_uint), nullptr);
        launch_1d(queue, k.scatter, tiles * k.wg, k.wg);
        read.wait();
    });
    if (total > out.size)
        throw invalid_argument_error("clprim::copy_if: " + std::to_string(total) + " elements pass but the result has room for " +
                                     std::to_string(out.size));
    return std::size_t(total);
}

} // namespace detail
} // namespace clprim
