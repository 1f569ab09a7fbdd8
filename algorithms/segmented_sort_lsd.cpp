// The long segments of clprim::segmented_sort in one segmented LSD radix sort: tiles and their
// segments laid out on the host (the long segments' ranges are on the host already), then per
// digit ssr_count, clprim's exclusive scan of the segment-major count table, ssr_scatter
// (kernels and the argument in segmented_sort_lsd.cl).
#include "segmented_sort_lsd.hpp"
#include "sort_support.hpp"

#include <clprim/detail/algorithms_kernels.hpp>
#include <clprim/detail/kernel_launch.hpp>
#include <clprim/detail/scratch_pool.hpp>
#include <clprim/scan.hpp>

#include <limits>
#include <map>
#include <string>
#include <tuple>

namespace clprim {
namespace detail {

const char* segmented_value_word(std::size_t bytes)
{
    switch (bytes) {
    case 1: return "uchar";
    case 2: return "ushort";
    case 4: return "uint";
    case 8: return "ulong";
    case 16: return "ulong2";
    default: return "ulong4";
    }
}

namespace {

struct lsd_kernels {
    bc::kernel count, scatter;
};

std::size_t digit_bits(std::size_t key_bytes) { return key_bytes == 1 ? 4 : 8; } // an even number of passes

lsd_kernels& cached_lsd_kernels(const bc::command_queue& queue, const sort_request& r, const segmented_sort_policy& p)
{
    using key = std::tuple<cl_context, cl_device_id, int, std::size_t, bool, bool, std::size_t, std::size_t>;
    thread_local std::map<key, lsd_kernels> cache;
    const std::size_t value_bytes = r.has_values ? size_of(r.value_type) : 0;
    const key k{queue.get_context().get(), queue.get_device().get(), int(r.key_type), value_bytes, r.has_values,
                r.order == sort_order::descending, p.lsd_wg, p.lsd_kpt};
    auto it = cache.find(k);
    if (it != cache.end()) return it->second;
    std::string options = type_options(r.key_type, "K") + " -DSSR_WG=" + std::to_string(p.lsd_wg) +
                          " -DSSR_KPT=" + std::to_string(p.lsd_kpt) +
                          " -DSSR_BITS=" + std::to_string(digit_bits(size_of(r.key_type)));
    if (r.order == sort_order::descending) options += " -DSORT_DESCENDING";
    if (r.has_values) options += std::string(" -DSSR_HAS_VALUES -DSSR_V=") + segmented_value_word(value_bytes);
    const bc::program program = algorithms_program(
        queue.get_context(), {"sort_key_order.cl", "workgroup_scan.cl", "workgroup_histogram.cl", "segmented_sort_lsd.cl"},
        options);
    return cache.emplace(k, lsd_kernels{program.create_kernel("ssr_count"), program.create_kernel("ssr_scatter")})
        .first->second;
}

// The records of the segments [pairs[2i], pairs[2i+1]): (begin, length, packed start, first
// tile) in seg, and each tile's segment for tiles of `tile` keys in tile_seg; returns the keys in
// all (at most 2^32 - 1: more only from malformed offsets).
std::size_t segment_records(const std::vector<cl_ulong>& pairs, std::size_t tile, std::vector<cl_uint>& seg,
                            std::vector<cl_uint>& tile_seg, const char* who)
{
    const std::size_t count = pairs.size() / 2;
    seg.assign(4 * count, 0);
    std::size_t m = 0;
    for (std::size_t i = 0; i < count; ++i) {
        const std::size_t len = std::size_t(pairs[2 * i + 1] - pairs[2 * i]);
        if (m + len > std::size_t(std::numeric_limits<cl_uint>::max()))
            throw invalid_argument_error(std::string(who) + ": malformed offsets name more than 2^32 keys");
        seg[4 * i] = cl_uint(pairs[2 * i]);
        seg[4 * i + 1] = cl_uint(len);
        seg[4 * i + 2] = cl_uint(m);
        seg[4 * i + 3] = cl_uint(tile_seg.size());
        tile_seg.insert(tile_seg.end(), ceil_div(len, tile), cl_uint(i));
        m += len;
    }
    return m;
}

} // namespace

void segmented_lsd_sort(const sort_request& r, const std::vector<cl_ulong>& large, const segmented_sort_policy& p,
                        bc::command_queue& queue, const char* who)
{
    const std::size_t tile = p.lsd_wg * p.lsd_kpt;
    const std::size_t key_bytes = size_of(r.key_type);
    const std::size_t radix = std::size_t(1) << digit_bits(key_bytes);
    // Per segment (begin, length, packed start, first tile); per tile its segment.
    std::vector<cl_uint> seg, tile_seg;
    const std::size_t m = segment_records(large, tile, seg, tile_seg, who);
    const std::size_t tiles = tile_seg.size();
    if (tiles == 0) return;
    const std::size_t value_bytes = r.has_values ? size_of(r.value_type) : 0;
    lsd_kernels& k = cached_lsd_kernels(queue, r, p);

    scratch_lease lease(queue);
    const bc::buffer d_seg = lease.buffer(seg.size() * sizeof(cl_uint));
    const bc::buffer d_tiles = lease.buffer(tiles * sizeof(cl_uint));
    const bc::buffer counts = lease.buffer(tiles * radix * sizeof(cl_uint));
    const bc::buffer tk = lease.buffer(m * key_bytes);
    const bc::buffer tv = r.has_values ? lease.buffer(m * value_bytes) : tk;
    queue.enqueue_write_buffer(d_seg, 0, seg.size() * sizeof(cl_uint), seg.data());
    queue.enqueue_write_buffer(d_tiles, 0, tiles * sizeof(cl_uint), tile_seg.data());

    const std::size_t passes = key_bytes * 8 / digit_bits(key_bytes);
    const buffer_range table{counts, 0, tiles * radix};
    const cl_uint zero = 0;
    for (std::size_t pass = 0; pass < passes; ++pass) {
        const bool from_user = pass % 2 == 0; // even passes: caller -> packed; odd: packed -> caller
        const bc::buffer& src = from_user ? r.keys.buffer : tk;
        const bc::buffer& dst = from_user ? tk : r.keys.buffer;
        const cl_ulong src_off = from_user ? r.keys.offset : 0, dst_off = from_user ? 0 : r.keys.offset;
        const cl_uint shift = cl_uint(pass * digit_bits(key_bytes));
        const cl_uint convert_in = pass == 0, convert_out = pass + 1 == passes;
        launch(queue, k.count, tiles * p.lsd_wg, p.lsd_wg, src, src_off, cl_uint(!from_user), convert_in, shift, d_tiles,
               d_seg, counts);
        scan_impl(table, table, element_type::uint32, false, &zero, scan_algorithm::fast, queue);
        if (r.has_values) {
            const bc::buffer& vsrc = from_user ? r.values.buffer : tv;
            const bc::buffer& vdst = from_user ? tv : r.values.buffer;
            const cl_ulong vsrc_off = from_user ? r.values.offset : 0, vdst_off = from_user ? 0 : r.values.offset;
            launch(queue, k.scatter, tiles * p.lsd_wg, p.lsd_wg, src, src_off, cl_uint(!from_user), dst, dst_off,
                   cl_uint(from_user), convert_in, convert_out, shift, d_tiles, d_seg, counts, vsrc, vsrc_off, vdst,
                   vdst_off);
        } else {
            launch(queue, k.scatter, tiles * p.lsd_wg, p.lsd_wg, src, src_off, cl_uint(!from_user), dst, dst_off,
                   cl_uint(from_user), convert_in, convert_out, shift, d_tiles, d_seg, counts);
        }
    }
}

} // namespace detail
} // namespace clprim
