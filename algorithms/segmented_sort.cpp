// clprim::segmented_sort / segmented_sort_by_key: segments binned by size on the device
// (segmented_sort_bin.cl), each size class sorted by its own strategy (kernels and the argument
// in segmented_sort.cl; shape in segmented_sort_policy.hpp), the few longer than a work-group's
// tile by the radix sort on their sub-ranges, many of them by one segmented LSD radix sort or its
// MSD form (segmented_sort_lsd.cpp).
#include "segmented_sort_lsd.hpp"
#include "segmented_sort_policy.hpp"
#include "sort_support.hpp"

#include <clprim/detail/algorithms_kernels.hpp>
#include <clprim/detail/kernel_launch.hpp>
#include <clprim/detail/queue_order.hpp>
#include <clprim/detail/scratch_pool.hpp>
#include <clprim/radix_sort.hpp>
#include <clprim/scan.hpp>
#include <clprim/segmented_sort.hpp>

#include <algorithm>
#include <cstring>
#include <limits>
#include <map>
#include <tuple>
#include <utility>
#include <vector>

namespace clprim {
namespace detail {

namespace {

struct segsort_kernels {
    bc::kernel scout, count, ids, local, cpu, gather, scatter; // gather/scatter: 32-bit keys only
    bc::kernel tiny;    // segsort_tiny, its own program (inline PTX may be refused), made at first use
    bool tiny_tried = false;
};

// segsort_tiny (segmented_sort_tiny.cl) for these kernels' options, or a null kernel where its
// program does not build (then segsort_local's direct mode takes the tiny segments).
bc::kernel& tiny_kernel(segsort_kernels& k, const bc::command_queue& queue, const std::string& options,
                        const segmented_sort_policy& p)
{
    if (!k.tiny_tried) {
        k.tiny_tried = true;
        try {
            k.tiny = algorithms_program(queue.get_context(),
                                        {"sort_key_order.cl", "segmented_sort.cl", "segmented_sort_tiny.cl"},
                                        options + (p.tiny_shuffle ? " -DST_SHUFFLE" : ""))
                         .create_kernel("segsort_tiny");
        } catch (const build_error&) {
            k.tiny = bc::kernel();
        }
    }
    return k.tiny;
}

// The GPU kernels' local tile (the CPU path's program has none: a constant, so one program serves
// every call whatever its longest segment).
std::size_t local_tile(const segmented_sort_policy& p) { return p.cpu ? 4096 : p.tile; }

std::string program_options(const sort_request& r, element_type offset_type, const segmented_sort_policy& p)
{
    std::string options = type_options(r.key_type, "K") + " -DOFF=" + cl_name(offset_type) +
                          " -DSS_TILE=" + std::to_string(local_tile(p)) + " -DSS_WG=" + std::to_string(p.wg) +
                          " -DSS_MIN_SLICE=" + std::to_string(std::size_t(1) << p.min_log);
    if (r.order == sort_order::descending) options += " -DSORT_DESCENDING";
    if (p.cpu)
        options += " -DSS_CPU_PATH -DSS_CPU_RANK=" + std::to_string(p.cpu_rank) +
                   " -DSS_CPU_REUSE=" + std::to_string(p.cpu_reuse);
    // Values move as their bytes (4 or 8 here; 8/16/32-byte vector values would be ulong2/4...).
    if (r.has_values) options += std::string(" -DSS_HAS_VALUES -DSS_V=") + segmented_value_word(size_of(r.value_type));
    return options;
}

segsort_kernels make_kernels(const bc::command_queue& queue, const sort_request& r, element_type offset_type,
                             const segmented_sort_policy& p)
{
    const std::string options = program_options(r, offset_type, p);
    const bc::program program =
        p.cpu ? algorithms_program(queue.get_context(),
                                   {"sort_key_order.cl", "segmented_sort.cl", "segmented_sort_bin.cl", "segmented_sort_cpu.cl"},
                                   options)
              : algorithms_program(queue.get_context(), {"sort_key_order.cl", "segmented_sort.cl", "segmented_sort_bin.cl"},
                                   options);
    segsort_kernels k;
    k.scout = program.create_kernel("segsort_scout");
    k.count = program.create_kernel("segsort_count");
    k.ids = program.create_kernel("segsort_ids");
    if (p.cpu) k.cpu = program.create_kernel("segsort_cpu");
    else k.local = program.create_kernel("segsort_local");
    if (size_of(r.key_type) == 4) {
        k.gather = program.create_kernel("segsort_gather");
        k.scatter = program.create_kernel("segsort_scatter");
    }
    return k;
}

segsort_kernels& cached_kernels(const bc::command_queue& queue, const sort_request& r, element_type offset_type,
                                const segmented_sort_policy& p)
{
    using key = std::tuple<cl_context, cl_device_id, int, int, int, bool, bool, bool, std::size_t, std::size_t,
                           std::size_t>;
    thread_local std::map<key, segsort_kernels> cache;
    const key k{queue.get_context().get(), queue.get_device().get(), int(r.key_type), int(r.value_type), int(offset_type),
                r.has_values, r.order == sort_order::descending, p.cpu, local_tile(p), p.wg, p.cpu_rank};
    auto it = cache.find(k);
    if (it == cache.end()) it = cache.emplace(k, make_kernels(queue, r, offset_type, p)).first;
    return it->second;
}

// (begin, end) pairs in the order of their begins (segments do not overlap where well formed).
void sort_pairs_by_begin(std::vector<cl_ulong>& large)
{
    const std::size_t count = large.size() / 2;
    std::vector<std::pair<cl_ulong, cl_ulong>> v(count);
    for (std::size_t i = 0; i < count; ++i) v[i] = {large[2 * i], large[2 * i + 1]};
    std::sort(v.begin(), v.end());
    for (std::size_t i = 0; i < count; ++i) {
        large[2 * i] = v[i].first;
        large[2 * i + 1] = v[i].second;
    }
}

// The long segments ((begin, end) pairs from the device). A few: the radix sort on each
// sub-range, in place, longest first (the first call takes the largest temporaries, the others
// find them in the pool). Many: its MSD form (one digit pass, then a nested segmented sort of
// the buckets; never inside the nested sort itself) or one segmented LSD radix sort of all of
// them (segmented_sort_lsd.cpp) or, 32-bit keys and by policy, all packed as (segment rank, key)
// words into one radix sort (segsort_gather / segsort_scatter).
void sort_long_segments(const sort_request& r, std::vector<cl_ulong>& large, segsort_kernels& k,
                        const segmented_sort_policy& p, bc::command_queue& queue, const char* who, bool nested)
{
    const std::size_t count = large.size() / 2;
    using mode = segmented_sort_policy::long_mode;
    if (count > p.calls_up_to && p.many_long == mode::msd && !nested) {
        segmented_msd_sort(r, large, p, queue, who);
        return;
    }
    if (count > p.calls_up_to && (p.many_long != mode::packed || size_of(r.key_type) != 4)) {
        segmented_lsd_sort(r, large, p, queue, who);
        return;
    }
    if (count <= p.calls_up_to) {
        std::vector<std::size_t> order(count);
        for (std::size_t i = 0; i < count; ++i) order[i] = i;
        std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
            return large[2 * a + 1] - large[2 * a] > large[2 * b + 1] - large[2 * b];
        });
        for (std::size_t i : order) {
            sort_request sub = r;
            sub.keys.offset = r.keys.offset + std::size_t(large[2 * i]);
            sub.keys.size = std::size_t(large[2 * i + 1] - large[2 * i]);
            if (r.has_values) {
                sub.values.offset = r.values.offset + std::size_t(large[2 * i]);
                sub.values.size = sub.keys.size;
            }
            radix_sort_impl(sub, queue);
        }
        return;
    }
    std::vector<cl_ulong> starts(count + 1, 0);
    for (std::size_t i = 0; i < count; ++i) starts[i + 1] = starts[i] + (large[2 * i + 1] - large[2 * i]);
    const std::size_t m = std::size_t(starts[count]);
    if (m > std::size_t(std::numeric_limits<cl_uint>::max()))
        throw invalid_argument_error(std::string(who) + ": malformed offsets name more than 2^32 keys");
    const std::size_t value_bytes = r.has_values ? size_of(r.value_type) : 4;
    scratch_lease lease(queue);
    const bc::buffer d_starts = lease.buffer(starts.size() * sizeof(cl_ulong));
    const bc::buffer d_pairs = lease.buffer(large.size() * sizeof(cl_ulong));
    const bc::buffer ck = lease.buffer(m * sizeof(cl_ulong));
    const bc::buffer cv = r.has_values ? lease.buffer(m * sizeof(cl_uint)) : ck;
    const bc::buffer tv = r.has_values ? lease.buffer(m * value_bytes) : ck;
    queue.enqueue_write_buffer(d_starts, 0, starts.size() * sizeof(cl_ulong), starts.data());
    queue.enqueue_write_buffer(d_pairs, 0, large.size() * sizeof(cl_ulong), large.data());
    const bc::buffer& values = r.has_values ? r.values.buffer : r.keys.buffer;
    const cl_ulong voff = r.has_values ? r.values.offset : 0;
    const std::size_t wg = 64, global = round_up(m, wg);
    launch(queue, k.gather, global, wg, r.keys.buffer, cl_ulong(r.keys.offset), values, voff, d_starts, d_pairs,
           cl_uint(count), cl_ulong(m), ck, cv, tv);
    sort_request packed;
    packed.keys = {ck, 0, m};
    packed.key_type = element_type::uint64;
    if (r.has_values) {
        packed.values = {cv, 0, m};
        packed.value_type = element_type::uint32;
        packed.has_values = true;
    }
    radix_sort_impl(packed, queue);
    launch(queue, k.scatter, global, wg, r.keys.buffer, cl_ulong(r.keys.offset), values, voff, d_starts, d_pairs,
           cl_uint(count), cl_ulong(m), ck, cv, tv);
}

} // namespace

namespace {

// The call (segmented_sort_impl), or the second level of the MSD form (nested: its long
// segments never take that form again).
void segmented_sort_run(const sort_request& r, const buffer_range& offsets, element_type offset_type,
                        bc::command_queue& user_queue, bool nested)
{
    const char* who = r.has_values ? "clprim::segmented_sort_by_key" : "clprim::segmented_sort";
    check_sort_types(r, user_queue.get_device(), who);
    const std::size_t n = r.keys.size;
    const std::size_t num_segments = offsets.size - 1;
    if (n > std::size_t(std::numeric_limits<cl_uint>::max()) || num_segments >= std::size_t(std::numeric_limits<cl_uint>::max()))
        throw invalid_argument_error(std::string(who) + ": more than 2^32 - 1 keys or segments");
    if (n < 2 || num_segments == 0) return;

    in_order_scope scope(user_queue); // in order on out-of-order queues too (queue_order.hpp)
    bc::command_queue& queue = scope.queue();
    guarded(who, [&] {
        segmented_sort_policy p = select_segmented_sort_policy(profile_of(queue.get_device()), size_of(r.key_type), r.has_values);
        p.tile = p.longest(n);
        segsort_kernels& k = cached_kernels(queue, r, offset_type, p);
        const std::size_t bin_wg = 64;
        const std::size_t items = round_up(ceil_div(num_segments, p.spt), bin_wg);
        const std::size_t table_size = (p.classes + 1) * items + 1;
        // Class 0 (longer than the tile): well-formed offsets have at most n / (tile + 1) of them.
        const std::size_t cap = n / (p.tile + 1) + 1;
        const std::size_t key_bytes = size_of(r.key_type), value_bytes = r.has_values ? size_of(r.value_type) : 4;

        // Temporaries of the binning and of the CPU kernel, before anything is enqueued.
        scratch_lease lease(queue);
        const bc::buffer table = lease.buffer(table_size * sizeof(cl_uint));
        const bc::buffer list = lease.buffer(num_segments * sizeof(cl_uint));
        // The pairs after a head holding the class starts (segsort_ids): one read brings both.
        const std::size_t head = (p.classes + 3) / 2;
        const bc::buffer pairs = lease.buffer((head + cap * 2) * sizeof(cl_ulong));
        bc::buffer tk, tv;
        if (p.cpu) {
            // (segments of up to cpu_reuse keys: a slice per work-item after the first n)
            const std::size_t slots = n + p.groups * p.cpu_reuse;
            tk = lease.buffer(slots * key_bytes);
            tv = r.has_values ? lease.buffer(slots * value_bytes) : tk;
        }

        const cl_uint classes = cl_uint(p.classes), min_log = cl_uint(p.min_log), step_log = cl_uint(p.step_log);
        const bc::buffer& values = r.has_values ? r.values.buffer : r.keys.buffer;
        const cl_ulong voff = r.has_values ? r.values.offset : 0;
        const cl_uint tiny = !p.cpu && p.tiny > 0; // class 1 counted, not listed: see below
        const cl_uint zero = 0;
        const auto bin_mode = p.bin_for(n, num_segments);
        const bool round_trip = n > p.tile, scout = round_trip && bin_mode != segmented_sort_policy::bin_mode::lists;
        const bool early = scout && bin_mode == segmented_sort_policy::bin_mode::early;
        // (With the scout, segsort_ids writes no pairs: the scout's stay for the host to read.)
        auto bin = [&] {
            launch(queue, k.count, items, bin_wg, offsets.buffer, cl_ulong(offsets.offset), cl_ulong(num_segments),
                   cl_ulong(n), cl_uint(p.spt), classes, min_log, step_log, cl_ulong(p.tile), table, cl_uint(items));
            const buffer_range t{table, 0, table_size};
            scan_impl(t, t, element_type::uint32, false, &zero, scan_algorithm::fast, queue);
            launch(queue, k.ids, items, bin_wg, offsets.buffer, cl_ulong(offsets.offset), cl_ulong(num_segments),
                   cl_ulong(n), cl_uint(p.spt), classes, min_log, step_log, cl_ulong(p.tile), tiny, table,
                   cl_uint(items), list, pairs, cl_uint(scout ? 0 : cap), cl_uint(head));
        };

        // Inputs longer than the tile: one read brings every class's start in the list (its
        // count: no launch for a class without segments, each launch sized to its class) and the
        // first long segments' ranges (usually all of them). With the scout
        // (segsort_scout: counts and long ranges in one launch), the lists are made after the
        // read and only where a listed class has segments; else segsort_ids copies the class
        // starts to the head of the pairs. Inputs no longer than the tile have no long segment:
        // no round trip, every class that can have segments launched (each reads its count on
        // the device).
        std::vector<cl_uint> starts(p.classes + 2);
        // Up to 1024 long ranges come with the counts (16 KiB: the read's latency, not its bytes,
        // is what costs); more take a second read.
        const std::size_t ahead = std::min<std::size_t>(cap, 1024);
        std::vector<cl_ulong> large(2 * ahead);
        const std::size_t first_listed = tiny ? 2 : 1; // the first class that needs the lists
        bool listed = true;
        std::vector<cl_ulong> got(round_trip ? head + 2 * ahead : 0);
        if (scout) {
            queue.enqueue_fill_buffer(pairs, &zero, sizeof zero, 0, (p.classes + 1) * sizeof(cl_uint));
            launch(queue, k.scout, items, bin_wg, offsets.buffer, cl_ulong(offsets.offset), cl_ulong(num_segments),
                   cl_ulong(n), cl_uint(p.spt), classes, min_log, step_log, cl_ulong(p.tile), pairs, cl_uint(head),
                   cl_uint(cap));
            bc::event read = queue.enqueue_read_buffer_async(pairs, 0, got.size() * sizeof(cl_ulong), got.data());
            // early: the lists made while the read comes back (they write only temporaries).
            if (early) bin();
            read.wait();
        } else {
            bin();
            if (round_trip) queue.enqueue_read_buffer(pairs, 0, got.size() * sizeof(cl_ulong), got.data());
        }
        if (round_trip) {
            std::copy(got.begin() + std::ptrdiff_t(head), got.end(), large.begin());
            if (scout) {
                std::vector<cl_uint> counts(p.classes + 1);
                std::memcpy(counts.data(), got.data(), counts.size() * sizeof(cl_uint));
                listed = false;
                for (std::size_t c = 0; c <= p.classes; ++c) {
                    starts[c + 1] = starts[c] + counts[c];
                    listed = listed || (c >= first_listed && counts[c] > 0);
                }
            } else {
                std::memcpy(starts.data(), got.data(), starts.size() * sizeof(cl_uint));
            }
        } else {
            for (std::size_t d = 1; d <= p.classes; ++d) { // class d: slice(d - 1), at least shortest
                const std::size_t shortest = d == 1 ? 2 : p.slice(d - 2) + 1;
                starts[d + 1] = starts[d] + cl_uint(shortest <= n ? std::min(num_segments, n / shortest) : 0);
            }
        }
        // The long segments first, so that every temporary (the radix sort's included) is had
        // before the first command that writes the caller's data.
        const std::size_t todo = std::min<std::size_t>(starts[1] - starts[0], cap);
        if (todo > 0) {
            large.resize(2 * todo);
            if (todo > ahead)
                queue.enqueue_read_buffer(pairs, (head + 2 * ahead) * sizeof(cl_ulong), 2 * (todo - ahead) * sizeof(cl_ulong),
                                          large.data() + 2 * ahead);
            if (scout) sort_pairs_by_begin(large); // arrival order: put back in segment order
            sort_long_segments(r, large, k, p, queue, who, nested);
        }
        if (scout && listed && !early) bin();

        if (p.cpu) {
            if (starts[p.classes + 1] > starts[1])
                launch(queue, k.cpu, p.groups, 1, r.keys.buffer, cl_ulong(r.keys.offset), values, voff, cl_ulong(n),
                       offsets.buffer, cl_ulong(offsets.offset), list, table, cl_uint(items), cl_uint(1), tk, tv);
            return;
        }
        // Class 1 with `tiny`: by segment number (a warp each, or segsort_local's direct mode),
        // not from the list; then one launch per size class with segments, a group per
        // SS_TILE / slice of them (without the round trip: starts holds upper bounds of the counts).
        if (tiny && starts[2] > starts[1]) {
            bc::kernel* warp = p.tiny_warp ? &tiny_kernel(k, queue, program_options(r, offset_type, p), p) : nullptr;
            if (warp && warp->get() != nullptr) {
                const std::size_t groups = std::min(p.groups, ceil_div(num_segments, p.wg));
                launch(queue, *warp, groups * p.wg, p.wg, r.keys.buffer, cl_ulong(r.keys.offset), cl_ulong(n),
                       offsets.buffer, cl_ulong(offsets.offset), cl_ulong(num_segments));
            } else {
                const std::size_t slice = p.slice(0);
                const std::size_t groups = std::min(p.groups, ceil_div(num_segments, p.tile / slice));
                launch(queue, k.local, groups * p.wg, p.wg, r.keys.buffer, cl_ulong(r.keys.offset), values, voff,
                       cl_ulong(n), offsets.buffer, cl_ulong(offsets.offset), list, table, cl_uint(items), cl_uint(1),
                       cl_uint(slice), cl_uint(num_segments));
            }
        }
        for (std::size_t c = 0; c < p.classes; ++c) {
            const std::size_t in_class = starts[c + 2] - starts[c + 1];
            if (in_class == 0 || (tiny && c == 0)) continue;
            const std::size_t slice = p.slice(c);
            const std::size_t groups = std::min(p.groups, ceil_div(in_class, p.tile / slice));
            launch(queue, k.local, groups * p.wg, p.wg, r.keys.buffer, cl_ulong(r.keys.offset), values, voff,
                   cl_ulong(n), offsets.buffer, cl_ulong(offsets.offset), list, table, cl_uint(items),
                   cl_uint(c + 1), cl_uint(slice), cl_uint(0));
        }
    });
}

} // namespace

void segmented_sort_impl(const sort_request& r, const buffer_range& offsets, element_type offset_type,
                         bc::command_queue& queue)
{
    segmented_sort_run(r, offsets, offset_type, queue, false);
}

void segmented_sort_nested(const sort_request& r, const buffer_range& offsets, bc::command_queue& queue)
{
    segmented_sort_run(r, offsets, element_type::uint32, queue, true);
}

} // namespace detail
} // namespace clprim
