// Device-wide inclusive and exclusive scans (kernels in scan.cl, work-group scans in
// workgroup_scan.cl).
#include <clprim/detail/device_limits.hpp>
#include <clprim/detail/primitives_kernels.hpp>
#include <clprim/scan.hpp>

#include <algorithm>
#include <string>

namespace clprim {
namespace detail {

namespace {

constexpr cl_uint flag_inclusive = 1, flag_use_offsets = 2, flag_write_sums = 4;

struct scan_kernels {
    bc::kernel scan_tiles, reduce_tiles, add_tile_offsets;
    std::size_t wg = 1;         // work-group size
    std::size_t items = 1;      // elements per work-item
    std::size_t elem = 4;       // bytes per element
    std::size_t tile() const { return wg * items; }
};

std::size_t scratch_elements(std::size_t wg) { return 2 * wg + ((2 * wg) >> 5) + 1; } // WG_SCAN_SCRATCH
std::size_t tile_slots(std::size_t tile) { return tile + ((tile - 1) >> 5); }         // SCAN_TILE_PAD(tile-1)+1

scan_kernels make_kernels(const bc::command_queue& queue, element_type type, scan_algorithm algorithm)
{
    scan_kernels k;
    k.elem = size_of(type);
    // 16 uints or 8 ulongs (64 bytes) per work-item: enough work per barrier to keep the kernel
    // bound by memory, while a 256-item tile still fits local memory several times per SM.
    k.items = k.elem == 4 ? 16 : 8;
    const int wg_algo = algorithm == scan_algorithm::hillis_steele ? 0 : algorithm == scan_algorithm::blelloch ? 1 : 2;
    const std::string options = type_options(type, "T") + " -DSCAN_ITEMS=" + std::to_string(k.items) +
                                " -DSCAN_WG=" + std::to_string(wg_algo);
    const bc::context context = queue.get_context();
    bc::program program = primitives_program(context, {"workgroup_scan.cl", "scan.cl"}, options);
    k.scan_tiles = program.create_kernel("scan_tiles");
    k.reduce_tiles = program.create_kernel("reduce_tiles");
    k.add_tile_offsets = program.create_kernel("add_tile_offsets");

    const bc::device device = queue.get_device();
    const auto lim_scan = limits_for(k.scan_tiles, device);
    const auto lim_reduce = limits_for(k.reduce_tiles, device);
    const auto lim_add = limits_for(k.add_tile_offsets, device);
    const std::size_t max_wg = std::min({lim_scan.max_work_group_size, lim_reduce.max_work_group_size,
                                         lim_add.max_work_group_size});
    // 256 items: full occupancy on GPUs with small register files per item, and a tile large
    // enough that the scan of tile totals is a tiny fraction of the work.
    k.wg = floor_pow2(std::max<std::size_t>(1, std::min<std::size_t>(256, max_wg)));
    while (k.wg > 1 && (tile_slots(k.tile()) + scratch_elements(k.wg)) * k.elem > lim_scan.local_mem_size)
        k.wg /= 2;
    return k;
}

// Scans n elements from (in, in_off) into (out, out_off); init is used by an exclusive scan.
void scan_level(scan_kernels& k, bc::command_queue& queue, const bc::buffer& in, std::size_t in_off,
                const bc::buffer& out, std::size_t out_off, std::size_t n, bool inclusive, const void* init,
                scan_algorithm algorithm)
{
    const std::size_t tile = k.tile();
    const std::size_t tiles = ceil_div(n, tile);
    const cl_uint incl = inclusive ? flag_inclusive : 0;
    const unsigned char zero[8] = {};

    auto run_scan = [&](cl_uint flags, const bc::buffer& aux, const void* start) {
        bc::kernel& s = k.scan_tiles;
        s.set_arg(0, in);
        s.set_arg(1, cl_ulong(in_off));
        s.set_arg(2, out);
        s.set_arg(3, cl_ulong(out_off));
        s.set_arg(4, cl_ulong(n));
        s.set_arg(5, aux); // offsets (read) or sums (written), as flags say
        s.set_arg(6, aux);
        s.set_arg(7, flags);
        s.set_arg(8, k.elem, start);
        s.set_arg(9, tile_slots(tile) * k.elem, nullptr);
        s.set_arg(10, scratch_elements(k.wg) * k.elem, nullptr);
        queue.enqueue_1d_range_kernel(s, 0, tiles * k.wg, k.wg);
    };

    if (tiles == 1) {
        run_scan(incl, out, init);
        return;
    }

    // One total per tile, scanned (exclusive, from init) in place by the next level.
    bc::buffer sums(queue.get_context(), tiles * k.elem, CL_MEM_READ_WRITE);
    if (algorithm == scan_algorithm::fast) {
        bc::kernel& r = k.reduce_tiles;
        r.set_arg(0, in);
        r.set_arg(1, cl_ulong(in_off));
        r.set_arg(2, cl_ulong(n));
        r.set_arg(3, sums);
        r.set_arg(4, scratch_elements(k.wg) * k.elem, nullptr);
        queue.enqueue_1d_range_kernel(r, 0, tiles * k.wg, k.wg);
        scan_level(k, queue, sums, 0, sums, 0, tiles, false, init, algorithm);
        run_scan(incl | flag_use_offsets, sums, zero);
    } else {
        run_scan(incl | flag_write_sums, sums, zero);
        scan_level(k, queue, sums, 0, sums, 0, tiles, false, init, algorithm);
        bc::kernel& a = k.add_tile_offsets;
        a.set_arg(0, out);
        a.set_arg(1, cl_ulong(out_off));
        a.set_arg(2, cl_ulong(n));
        a.set_arg(3, sums);
        a.set_arg(4, cl_uint(tile));
        queue.enqueue_1d_range_kernel(a, 0, tiles * k.wg, k.wg);
    }
}

} // namespace

void scan_impl(const buffer_range& in, const buffer_range& out, element_type type, bool inclusive,
               const void* init, scan_algorithm algorithm, bc::command_queue& queue)
{
    const char* who = inclusive ? "clprim::inclusive_scan" : "clprim::exclusive_scan";
    if (algorithm != scan_algorithm::hillis_steele && algorithm != scan_algorithm::blelloch &&
        algorithm != scan_algorithm::fast)
        throw invalid_argument_error(std::string(who) + ": unknown scan_algorithm");
    if (in.size != out.size)
        throw invalid_argument_error(std::string(who) + ": input and output lengths differ");
    if (init == nullptr) throw invalid_argument_error(std::string(who) + ": init is null");
    // In place (same buffer, same offset) is fine: every tile is read before it is written.
    // Any other overlap would let one tile overwrite input another has yet to read.
    if (in.size > 0 && in.buffer.get() == out.buffer.get() && in.offset != out.offset &&
        in.offset < out.offset + out.size && out.offset < in.offset + in.size)
        throw invalid_argument_error(std::string(who) +
                                     ": output overlaps the input (only result == first is allowed)");
    guarded(who, [&] {
        require_type_support(type, queue.get_device(), who);
        if (in.size == 0) return;
        scan_kernels k = make_kernels(queue, type, algorithm);
        scan_level(k, queue, in.buffer, in.offset, out.buffer, out.offset, in.size, inclusive, init, algorithm);
    });
}

} // namespace detail
} // namespace clprim
