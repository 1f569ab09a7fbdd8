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
    bc::kernel count, scatter, bucket_offsets, unpack, span;
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
    return cache
        .emplace(k, lsd_kernels{program.create_kernel("ssr_count"), program.create_kernel("ssr_scatter"),
                                program.create_kernel("ssr_bucket_offsets"), program.create_kernel("ssr_unpack"),
                                program.create_kernel("ssr_span")})
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

// A long-segment sort's device records and temporaries (every one taken before the first
// command that writes the caller's range).
struct lsd_setup {
    std::size_t tile, key_bytes, bits, radix, tiles = 0, m = 0, count;
    std::vector<cl_uint> seg, tile_seg;
    scratch_lease lease;
    bc::buffer d_seg, d_tiles, counts, tk, tv;
    lsd_setup(const sort_request& r, const std::vector<cl_ulong>& large, const segmented_sort_policy& p,
              bc::command_queue& queue, const char* who)
        : tile(p.lsd_wg * p.lsd_kpt), key_bytes(size_of(r.key_type)), bits(digit_bits(key_bytes)),
          radix(std::size_t(1) << bits), count(large.size() / 2), lease(queue)
    {
        m = segment_records(large, tile, seg, tile_seg, who);
        tiles = tile_seg.size();
        if (tiles == 0) return;
        d_seg = lease.buffer(seg.size() * sizeof(cl_uint));
        d_tiles = lease.buffer(tiles * sizeof(cl_uint));
        counts = lease.buffer(tiles * radix * sizeof(cl_uint));
        tk = lease.buffer(m * key_bytes);
        tv = r.has_values ? lease.buffer(m * size_of(r.value_type)) : tk;
    }
    // Without waiting (a blocking write would wait for every command before it, the GPU idle
    // meanwhile); the host records stay until the writes are done (the destructor waits, by
    // then behind the passes on the queue).
    std::vector<bc::event> writes;
    void upload(bc::command_queue& queue)
    {
        writes.push_back(queue.enqueue_write_buffer_async(d_seg, 0, seg.size() * sizeof(cl_uint), seg.data()));
        writes.push_back(queue.enqueue_write_buffer_async(d_tiles, 0, tiles * sizeof(cl_uint), tile_seg.data()));
    }
    ~lsd_setup()
    {
        for (auto& e : writes) {
            try {
                e.wait();
            } catch (...) {
                // The call is failing already; nothing to report here.
            }
        }
    }
    lsd_setup(const lsd_setup&) = delete;
    lsd_setup& operator=(const lsd_setup&) = delete;
};

constexpr cl_uint shift_from_span = 0xffffffffu; // SSR_SHIFT_FROM_SPAN

// One digit pass (ssr_count, the scan, ssr_scatter): from the caller's range into the packed
// temporary (from_user) or back; convert_in / convert_out: the keys enter as the caller's bits /
// leave as them (else as sortable bits). shift: the digit's, or shift_from_span (the kernels take
// it from ssr_span's words in `span`; any buffer otherwise).
void lsd_pass(const sort_request& r, lsd_setup& t, lsd_kernels& k, const segmented_sort_policy& p,
              bc::command_queue& queue, bool from_user, cl_uint shift, bool convert_in, bool convert_out,
              const bc::buffer& span)
{
    const bc::buffer& src = from_user ? r.keys.buffer : t.tk;
    const bc::buffer& dst = from_user ? t.tk : r.keys.buffer;
    const cl_ulong src_off = from_user ? r.keys.offset : 0, dst_off = from_user ? 0 : r.keys.offset;
    const buffer_range table{t.counts, 0, t.tiles * t.radix};
    const cl_uint zero = 0;
    launch(queue, k.count, t.tiles * p.lsd_wg, p.lsd_wg, src, src_off, cl_uint(!from_user), cl_uint(convert_in),
           shift, t.d_tiles, t.d_seg, t.counts, span);
    scan_impl(table, table, element_type::uint32, false, &zero, scan_algorithm::fast, queue);
    if (r.has_values) {
        const bc::buffer& vsrc = from_user ? r.values.buffer : t.tv;
        const bc::buffer& vdst = from_user ? t.tv : r.values.buffer;
        const cl_ulong vsrc_off = from_user ? r.values.offset : 0, vdst_off = from_user ? 0 : r.values.offset;
        launch(queue, k.scatter, t.tiles * p.lsd_wg, p.lsd_wg, src, src_off, cl_uint(!from_user), dst, dst_off,
               cl_uint(from_user), cl_uint(convert_in), cl_uint(convert_out), shift, t.d_tiles, t.d_seg, t.counts,
               span, vsrc, vsrc_off, vdst, vdst_off);
    } else {
        launch(queue, k.scatter, t.tiles * p.lsd_wg, p.lsd_wg, src, src_off, cl_uint(!from_user), dst, dst_off,
               cl_uint(from_user), cl_uint(convert_in), cl_uint(convert_out), shift, t.d_tiles, t.d_seg, t.counts,
               span);
    }
}

} // namespace

void segmented_lsd_sort(const sort_request& r, const std::vector<cl_ulong>& large, const segmented_sort_policy& p,
                        bc::command_queue& queue, const char* who)
{
    lsd_setup t(r, large, p, queue, who);
    if (t.tiles == 0) return;
    lsd_kernels& k = cached_lsd_kernels(queue, r, p);
    t.upload(queue);
    // Even passes: caller -> packed; odd: packed -> caller (an even number of them).
    const std::size_t passes = t.key_bytes * 8 / t.bits;
    for (std::size_t pass = 0; pass < passes; ++pass)
        lsd_pass(r, t, k, p, queue, pass % 2 == 0, cl_uint(pass * t.bits), pass == 0, pass + 1 == passes, t.d_seg);
}

void segmented_msd_sort(const sort_request& r, const std::vector<cl_ulong>& large, const segmented_sort_policy& p,
                        bc::command_queue& queue, const char* who)
{
    lsd_setup t(r, large, p, queue, who);
    if (t.tiles == 0) return;
    const std::size_t buckets = t.count * t.radix; // fewer than n / 32: uint offsets
    const bc::buffer sub = t.lease.buffer((buckets + 1) * sizeof(cl_uint));
    const bc::buffer span = p.msd_span ? t.lease.buffer(2 * sizeof(cl_uint)) : t.d_seg;
    lsd_kernels& k = cached_lsd_kernels(queue, r, p);
    t.upload(queue);
    // The digit: the top one, or (msd_span) the one ending at the highest bit in which some
    // segment's keys differ (keys of few bits, such as small integers, would otherwise all fall
    // in one bucket); caller -> packed, the keys as the caller's bits on both sides.
    cl_uint shift = cl_uint(t.key_bytes * 8 - t.bits);
    if (p.msd_span) {
        const cl_uint zero = 0;
        queue.enqueue_fill_buffer(span, &zero, sizeof zero, 0, 2 * sizeof(cl_uint));
        launch(queue, k.span, t.tiles * p.lsd_wg, p.lsd_wg, r.keys.buffer, cl_ulong(r.keys.offset), t.d_tiles, t.d_seg,
               span);
        shift = shift_from_span;
    }
    lsd_pass(r, t, k, p, queue, true, shift, true, true, span);
    launch(queue, k.bucket_offsets, round_up(buckets + 1, p.lsd_wg), p.lsd_wg, t.d_seg, cl_uint(t.count), t.counts,
           cl_uint(t.m), sub);
    // Every bucket sorted in the temporary (the second level never takes this form again).
    sort_request packed = r;
    packed.keys = {t.tk, 0, t.m};
    if (r.has_values) packed.values = {t.tv, 0, t.m};
    segmented_sort_nested(packed, buffer_range{sub, 0, buckets + 1}, queue);
    // Back into the caller's range: one copy where the long segments lie there as one run in
    // their order (their packed starts are their distances from the first), else one per tile.
    bool one_run = true;
    for (std::size_t i = 0; i < t.count && one_run; ++i) one_run = large[2 * i] - large[0] == t.seg[4 * i + 2];
    const std::size_t key_bytes = t.key_bytes, value_bytes = r.has_values ? size_of(r.value_type) : 0;
    if (one_run) {
        queue.enqueue_copy_buffer(t.tk, r.keys.buffer, 0, (r.keys.offset + large[0]) * key_bytes, t.m * key_bytes);
        if (r.has_values)
            queue.enqueue_copy_buffer(t.tv, r.values.buffer, 0, (r.values.offset + large[0]) * value_bytes,
                                      t.m * value_bytes);
    } else if (r.has_values) {
        launch(queue, k.unpack, t.tiles * p.lsd_wg, p.lsd_wg, t.tk, r.keys.buffer, cl_ulong(r.keys.offset), t.d_tiles,
               t.d_seg, t.tv, r.values.buffer, cl_ulong(r.values.offset));
    } else {
        launch(queue, k.unpack, t.tiles * p.lsd_wg, p.lsd_wg, t.tk, r.keys.buffer, cl_ulong(r.keys.offset), t.d_tiles,
               t.d_seg);
    }
}

} // namespace detail
} // namespace clprim
