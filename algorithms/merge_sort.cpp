// Stable merge sort (issues #6, #14): tiles sorted in registers and local memory, then one
// merge-path round per doubling of the run length (one co-rank search per work-item, serial
// merges from registers, coalesced loads and stores through local memory); on CPU devices, chunks sorted
// sequentially, then co-rank rounds (issue #13). See merge_sort.cl and merge_policy below.
#include "merge_rounds.hpp"

#include <clprim/detail/device_profile.hpp>
#include <clprim/detail/knobs.hpp>
#include "sort_support.hpp"

#include <clprim/detail/kernel_launch.hpp>
#include <clprim/detail/lookback_slots.hpp>
#include <clprim/detail/scratch_pool.hpp>
#include <clprim/detail/sort_trace.hpp>
#include <clprim/merge_sort.hpp>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace clprim {
namespace detail {


void merge_round_gpu(bc::command_queue& queue, bc::kernel& pk, bc::kernel& gk, const sort_place& a,
                     const sort_place& b, const sort_place& dst, std::size_t n, std::size_t L,
                     const merge_round_shape& shape, const bc::buffer& splits, bool last, bc::kernel* lead_kernel,
                     bc::kernel* gather_kernel, const bc::buffer* gathered, bool two_ranges, merge_arg_memo* partition_memo,
                     merge_arg_memo* round_memo)
{
    if (shape.span > 0) {
        const std::size_t span = shape.span;
        launch(queue, gk, ceil_div(n, span) * shape.wg, shape.wg, a.k, cl_ulong(a.koff), a.v, cl_ulong(a.voff), b.k,
               cl_ulong(b.koff), b.v, cl_ulong(b.voff), dst.k, cl_ulong(dst.koff), dst.v, cl_ulong(dst.voff),
               cl_ulong(n), cl_ulong(L), cl_uint(last ? 1 : 0), cl_ulong(span), local_bytes{shape.local});
        if (shape.flush & 2) queue.flush();
        return;
    }
    const std::size_t all_groups = ceil_div(n, shape.tile);
    const bool lead = lead_kernel && shape.lead_tiles > 0;
    const std::size_t groups = lead ? shape.lead_tiles + 1 : all_groups; // tile starts the partition finds
    // The whole runs' samples gathered first (merge_split_gather), where the shape asks and it pays.
    const unsigned gshift = gather_kernel && gathered && !lead ? merge_gather_shift(shape, n, L, two_ranges) : 0;
    if (gshift > 0)
        launch(queue, *gather_kernel, round_up(merge_gather_keys(n, L, gshift), shape.gather_wg), shape.gather_wg, a.k, cl_ulong(a.koff), b.k,
               cl_ulong(b.koff), cl_ulong(n), cl_ulong(L), cl_uint(gshift), *gathered);
    if (shape.split_per_group > 0)
        launch_memo(queue, pk, partition_memo, ceil_div(groups, shape.split_per_group) * shape.partition_wg, shape.partition_wg, a.k,
                    cl_ulong(a.koff), b.k, cl_ulong(b.koff), cl_ulong(n), cl_ulong(L), cl_ulong(shape.tile), splits,
                    cl_ulong(groups), cl_uint(shape.samples), cl_uint(shape.ends), local_bytes{shape.samples_bytes},
                    local_bytes{shape.flag_bytes}, gshift > 0 ? *gathered : a.k, cl_uint(gshift));
    else
        launch(queue, pk, round_up(groups, shape.partition_wg), shape.partition_wg, a.k, cl_ulong(a.koff), b.k,
               cl_ulong(b.koff), cl_ulong(n), cl_ulong(L), cl_ulong(shape.tile), splits, cl_ulong(groups));
    if (shape.flush & 1) queue.flush(); // the device starts the partition while the host sets up the merge
    if (!lead) {
        launch_memo(queue, gk, round_memo, groups * shape.wg, shape.wg, a.k, cl_ulong(a.koff), a.v, cl_ulong(a.voff), b.k,
                    cl_ulong(b.koff), b.v, cl_ulong(b.voff), dst.k, cl_ulong(dst.koff), dst.v, cl_ulong(dst.voff),
                    cl_ulong(n), cl_ulong(L), cl_uint(last ? 1 : 0), splits, local_bytes{shape.local});
        if (shape.flush & 2) queue.flush();
        return;
    }
    // The first lead_tiles tiles merged while the leading work-groups search the other starts,
    // then the rest merged.
    const std::size_t lead_tiles = shape.lead_tiles;
    const std::size_t search_groups = ceil_div(all_groups - (lead_tiles + 1), shape.wg);
    launch(queue, *lead_kernel, (search_groups + lead_tiles) * shape.wg, shape.wg, a.k, cl_ulong(a.koff), a.v,
           cl_ulong(a.voff), b.k, cl_ulong(b.koff), b.v, cl_ulong(b.voff), dst.k, cl_ulong(dst.koff), dst.v,
           cl_ulong(dst.voff), cl_ulong(n), cl_ulong(L), cl_uint(last ? 1 : 0), splits, local_bytes{shape.lead_local},
           cl_ulong(0), cl_ulong(search_groups), cl_ulong(lead_tiles + 1), cl_ulong(all_groups), cl_uint(shape.lead_samples),
           cl_uint(shape.ends));
    launch(queue, *lead_kernel, (all_groups - lead_tiles) * shape.wg, shape.wg, a.k, cl_ulong(a.koff), a.v,
           cl_ulong(a.voff), b.k, cl_ulong(b.koff), b.v, cl_ulong(b.voff), dst.k, cl_ulong(dst.koff), dst.v,
           cl_ulong(dst.voff), cl_ulong(n), cl_ulong(L), cl_uint(last ? 1 : 0), splits, local_bytes{shape.lead_local},
           cl_ulong(lead_tiles), cl_ulong(0), cl_ulong(0), cl_ulong(all_groups), cl_uint(0), cl_uint(0));
}

void merge_round_cpu(bc::command_queue& queue, bc::kernel& rk, const sort_place& a, const sort_place& b,
                     const sort_place& dst, std::size_t n, std::size_t L, std::size_t piece, bool last,
                     const bc::buffer& counter)
{
    // (the pieces taken in turn by about one work-group per compute unit)
    const std::size_t pieces = ceil_div(n, piece);
    const std::size_t groups = std::min(pieces, std::max<std::size_t>(1, profile_of(queue.get_device()).compute_units));
    launch(queue, rk, groups, 1, a.k, cl_ulong(a.koff), a.v, cl_ulong(a.voff), b.k, cl_ulong(b.koff), b.v,
           cl_ulong(b.voff), dst.k, cl_ulong(dst.koff), dst.v, cl_ulong(dst.voff), cl_ulong(n), cl_ulong(L),
           cl_ulong(piece), cl_uint(last ? 1 : 0), counter, cl_uint(pieces));
}

namespace {

// Whether merge_tile_sort_wide runs at its declared size on this queue's device: the driver's query,
// else one empty launch (n = 0: nothing read or written). Decided once per context, device and
// build options (the program), not per call.
bool wide_tile_sort_runs(bc::command_queue& queue, const bc::program& program, const std::string& options,
                         const sort_request& r, std::size_t wg, std::size_t local_bytes)
{
    static std::mutex mutex;
    static std::map<std::tuple<cl_context, cl_device_id, std::string>, bool> verdicts;
    const bc::device device = queue.get_device();
    const auto key = std::make_tuple(queue.get_context().get(), device.id(), options);
    std::lock_guard<std::mutex> lock(mutex);
    const auto known = verdicts.find(key);
    if (known != verdicts.end()) return known->second;
    bc::kernel k = program.create_kernel("merge_tile_sort_wide");
    bool runs = limits_for(k, device).max_work_group_size >= wg;
    if (!runs) {
        unsigned i = 0;
        for (int side = 0; side < 2; ++side) { // in, then out: the caller's buffers, untouched at n = 0
            k.set_arg(i++, r.keys.buffer);
            k.set_arg(i++, cl_ulong(0));
            k.set_arg(i++, values_buffer_or(r));
            k.set_arg(i++, cl_ulong(0));
        }
        k.set_arg(i++, cl_ulong(0)); // n
        k.set_arg(i++, cl_uint(0));
        k.set_arg(i++, local_bytes, nullptr);
        runs = launch_probe(queue, k, wg);
    }
    verdicts[key] = runs;
    return runs;
}

// The cpu path: (4) every chunk sorted by its own work-item, ending in buffer x, then (5) rounds
// of pairwise co-rank merges, the last one into the caller's range.
// The program's sources: with a comparator (its generated file, sort_comparator.hpp) that file
// first and merge_sort.cl built with -DMERGE_COMPARATOR (comparator_options); the tile sort
// (merge_sort_tile.cl) after merge_sort.cl.
// With merge_stream forced, the program also joins merge_stream.cl (built with -DMERGE_PROBES).
std::vector<std::string> merge_sources(const std::string& comparator, bool gpu = false, bool stream = false)
{
    std::vector<std::string> files{"sort_key_order.cl", "merge_sort.cl", "merge_sort_tile.cl"};
    if (!gpu) files.push_back("merge_cpu.cl"); // (built in only with -DMERGE_CPU_STREAMS: merge_cpu_options)
    if (gpu) files.push_back("merge_path_search.cl");
    if (stream) files.push_back("merge_stream.cl");
    if (!comparator.empty()) files.insert(files.begin(), comparator);
    return files;
}
std::string comparator_options(const std::string& comparator)
{
    return comparator.empty() ? std::string() : " -DMERGE_COMPARATOR";
}

void merge_sort_cpu(const sort_request& r, const merge_policy& pol, bc::command_queue& queue, const std::string& comparator)
{
    const std::size_t n = r.keys.size;
    const bc::program program =
        algorithms_program(queue.get_context(), merge_sources(comparator),
                           sort_build_options(r) + comparator_options(comparator) + " -DMERGE_ELEMS=8 -DMERGE_CPU_RUN=" +
                               std::to_string(pol.run) + merge_cpu_options(pol));
    bc::kernel ck = program.create_kernel("merge_cpu_chunks");
    bc::kernel rk = program.create_kernel("merge_cpu_round");
    const std::size_t chunk = ceil_div(n, pol.chunks);
    const std::size_t chunks = ceil_div(n, chunk);
    unsigned passes = 0, rounds = 0;
    for (std::size_t w = pol.run; w < chunk; w <<= 1) ++passes;
    for (std::size_t L = chunk; L < n; L <<= 1) ++rounds;

    using place = sort_place;
    const place caller = place::caller(r);
    scratch_lease lease(queue); // reused from the last call on this queue where it fits
    place scratch{lease.buffer(n * size_of(r.key_type)), bc::buffer(), 0, 0};
    scratch.v = r.has_values ? lease.buffer(n * value_bytes(r)) : scratch.k;
    // The rounds' piece counter (word 0 of the queue's look-back slots), taken before anything is
    // enqueued: an allocation that fails leaves the caller's data as it was.
    const bc::buffer counter = rounds > 0 ? take_lookback_slots(queue, 1).buffer : scratch.k;
    // Stage (4) ends where an even number of rounds later the result lands in the caller.
    const place x = rounds % 2 == 0 ? caller : scratch;
    const place y = rounds % 2 == 0 ? scratch : caller;
    y.set_args(ck, x.set_args(ck, caller.set_args(ck, 0)));
    ck.set_arg(12, cl_ulong(n));
    ck.set_arg(13, cl_ulong(chunk));
    ck.set_arg(14, cl_uint(passes));
    ck.set_arg(15, cl_uint(rounds == 0 ? 1 : 0));
    launch_1d(queue, ck, chunks, 1);

    const std::size_t piece = merge_cpu_piece(pol, n);
    place src = x, dst = y;
    unsigned round = 0;
    for (std::size_t L = chunk; L < n; L <<= 1) {
        ++round;
        merge_round_cpu(queue, rk, src, src, dst, n, L, piece, round == rounds, counter);
        std::swap(src, dst);
    }
}

} // namespace

void merge_sort_impl(const sort_request& r, bc::command_queue& user_queue)
{
    merge_sort_impl(r, std::string(), user_queue);
}

void merge_sort_impl(const sort_request& r, const std::string& comparator, bc::command_queue& user_queue)
{
    in_order_scope scope(user_queue); // in order on out-of-order queues too (queue_order.hpp)
    bc::command_queue& queue = scope.queue();
    const char* who = "clprim::merge_sort";
    const bc::device device = queue.get_device();
    check_sort_types(r, device, who);
    const std::size_t n = r.keys.size;
    if (n < 2) return;

    guarded(who, [&] {
        const std::size_t kbytes = size_of(r.key_type);
        const std::size_t vbytes = r.has_values ? value_bytes(r) : 0;
        const merge_policy pol = select_merge_policy(profile_of(device), n, kbytes, vbytes);
        if (pol.cpu) return merge_sort_cpu(r, pol, queue, comparator);
        sort_observer* const trace = sort_trace(); // examples/sort_steps: tiny tiles, runs after each round
        const std::size_t elems = trace && trace->merge_elems() ? trace->merge_elems() : pol.elems;
        const bc::context& context = queue.get_context();
        const bool stream = pol.stream_tiles > 0;
        std::string options = sort_build_options(r) + comparator_options(comparator) + " -DMERGE_ELEMS=" +
                              std::to_string(elems) + (stream ? " -DMERGE_PROBES=" + std::to_string(pol.probes) : "") +
                              merge_split_options(pol) + pol.options;
        if (pol.wide_group) options += " -DMERGE_SORT_WG=" + std::to_string(pol.wide_group);
        const bc::program program = algorithms_program(context, merge_sources(comparator, true, stream), options);
        bc::kernel tk = program.create_kernel("merge_tile_sort");
        bc::kernel gk = program.create_kernel(stream ? "merge_stream" : "merge_global");
        bc::kernel pk = program.create_kernel(pol.split_probes ? "merge_partition_search" : "merge_partition");

        // The policy's work-group, no larger than these kernels allow here (registers); the
        // rounds' may be smaller (merge_stream's local memory), a power of two all the same.
        const std::size_t round_group = stream ? pol.round_group : pol.group;
        std::size_t wg = std::min({round_group, pow2_group_size(tk, device, pol.group), pow2_group_size(gk, device, round_group)});
        std::size_t swg = std::max(wg, std::min(pol.sort_group, pow2_group_size(tk, device, pol.sort_group)));
        if (pol.wide_group && pol.sort_group == pol.wide_group && pol.wide >= 0 && !trace &&
            (pol.wide > 0 || (swg < pol.wide_group &&
                              wide_tile_sort_runs(queue, program, options + comparator, r, pol.wide_group,
                                                  tile_sort_local_bytes(pol.wide_group * elems, kbytes, vbytes))))) {
            tk = program.create_kernel("merge_tile_sort_wide");
            swg = pol.wide_group;
        }
        if (trace && trace->merge_group()) wg = swg = trace->merge_group();
        const std::size_t tile = wg * elems;       // a merge round's output per work-group
        const std::size_t sort_tile = swg * elems; // the tile sort's runs (tile * 2^k)
        const std::size_t groups = ceil_div(n, tile);
        merge_round_shape shape{wg, tile, 0,
                                stream ? merge_stream_local_bytes(tile, kbytes, vbytes) : merge_round_local_bytes(tile, kbytes, vbytes)};
        set_split_shape(shape, pol, kbytes, pow2_group_size(pk, device, pol.split_probes ? pol.split_group : 128), groups);

        unsigned rounds = 0;
        for (std::size_t L = sort_tile; L < n; L <<= 1) ++rounds;
        // The hidden partition (merge_policy::split_lead), where merge_global_split runs at wg.
        bc::kernel lk, gather_kernel;
        bc::kernel* lead_kernel = nullptr;
        if (!stream && shape.lead_tiles > 0) {
            lk = program.create_kernel("merge_global_split");
            if (pow2_group_size(lk, device, wg) >= wg) lead_kernel = &lk;
        }

        // The caller's range is one of the two ping-pong buffers (holding sortable bits between
        // rounds); the scratch pair is taken up front, before anything is enqueued.
        using place = sort_place;
        const place caller = place::caller(r);
        place scratch = caller;
        bc::buffer splits, gathered;
        scratch_lease lease(queue); // reused from the last call on this queue where they fit
        // The last round's gathered samples (merge_split_gather: its one pair of runs).
        const unsigned gshift = rounds > 0 && !stream ? merge_gather_shift(shape, n, sort_tile << (rounds - 1), false) : 0;
        if (gshift > 0) {
            gather_kernel = program.create_kernel("merge_split_gather");
            shape.gather_wg = pow2_group_size(gather_kernel, device, 256);
            gathered = lease.buffer(merge_gather_keys(n, sort_tile << (rounds - 1), gshift) * kbytes);
        }
        if (rounds > 0) {
            splits = lease.buffer((stream ? 1 : groups) * sizeof(cl_ulong));
            scratch.k = lease.buffer(n * kbytes);
            scratch.v = r.has_values ? lease.buffer(n * vbytes) : scratch.k;
            scratch.koff = scratch.voff = 0;
        }
        const std::size_t tile_local = tile_sort_local_bytes(sort_tile, kbytes, vbytes);

        // The tile sort writes where an even number of rounds later the result lands in the caller.
        place src = (rounds % 2 == 0) ? caller : scratch;
        src.set_args(tk, caller.set_args(tk, 0));
        tk.set_arg(8, cl_ulong(n));
        tk.set_arg(9, cl_uint(rounds == 0 ? 1 : 0));
        tk.set_arg(10, tile_local, nullptr);
        launch_1d(queue, tk, ceil_div(n, sort_tile) * swg, swg);
        if (trace) trace->merge_round(queue, 0, sort_tile, src.k, src.koff, n, rounds == 0);

        // Runs of L = sort_tile * 2^round: every pair of runs is a whole number of output tiles.
        unsigned round = 0;
        for (std::size_t L = sort_tile; L < n; L <<= 1) {
            ++round;
            const place dst = src.same_keys(caller) ? scratch : caller;
            if (stream) shape.span = merge_stream_span(pol, tile, L, n, false, device.compute_units());
            merge_round_gpu(queue, pk, gk, src, src, dst, n, L, shape, splits, round == rounds, lead_kernel,
                            gshift > 0 ? &gather_kernel : nullptr, gshift > 0 ? &gathered : nullptr);
            if (trace) trace->merge_round(queue, round, 2 * L, dst.k, dst.koff, n, round == rounds);
            src = dst;
        }
    });
}

} // namespace detail
} // namespace clprim
