// Stable merge sort (issues #6, #14): tiles sorted in registers and local memory, then one
// merge-path round per doubling of the run length (one co-rank search per work-item, serial
// merges from registers, coalesced loads and stores through local memory); on CPU devices, chunks sorted
// sequentially, then co-rank rounds (issue #13). See merge_sort.cl and merge_policy below.
#include "merge_rounds.hpp"

#include <clprim/detail/device_profile.hpp>
#include <clprim/detail/knobs.hpp>
#include "sort_support.hpp"

#include <clprim/detail/kernel_launch.hpp>
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

namespace {

// Local memory of the GPU kernels, in bytes, for tiles of `tile` keys: the tile sort holds the
// keys (plus one look-ahead slot) and, with values, a 32-bit index per key; afterwards the
// values alone. The merge round holds the keys and the values side by side.
std::size_t tile_sort_local_bytes(std::size_t tile, std::size_t kbytes, std::size_t vbytes)
{
    const std::size_t merging = round_up((tile + 1) * kbytes, 8) + (vbytes ? tile * 4 : 0); // indices 8-aligned
    return round_up(std::max(merging, tile * vbytes), 8);
}
std::size_t merge_local_bytes(std::size_t tile, std::size_t kbytes, std::size_t vbytes)
{
    return std::max(tile_sort_local_bytes(tile, kbytes, vbytes), merge_round_local_bytes(tile, kbytes, vbytes));
}

} // namespace

merge_policy choose_merge_policy(const bc::device& device, std::size_t n, std::size_t kbytes, std::size_t vbytes)
{
    merge_policy p;
    p.cpu = profile_of(device).is_cpu();
    if (const auto forced = knob_choice("CLPRIM_MERGE_PATH", {"cpu", "gpu"})) p.cpu = *forced == 0;
    // gpu: 256 work-items; keys per work-item by the registers a work-item holds while it merges
    // (a key and, with values, a 32-bit index per output): 17 for 32-bit keys alone, 11 for 32-bit
    // keys with values or 64-bit keys alone, 7 for 64-bit keys with values. H100, 2^26 random
    // uint keys (docs/DEVELOPERS.md): 256 x 17 (14 rounds) 4.30-4.45 ms, 512 x 17 (13) 4.30-4.42,
    // 512 x 11 4.26-4.52, 256 x 13 4.36-4.57, 128 x 17 4.43; uint -> uint pairs: 256 x 11 8.5-8.7 ms,
    // 256 x 13 9.2-11.5, 256 x 17 16.8 (the merge kernel at 128+ registers: one work-group per SM).
    p.group = 256;
    const std::size_t words = kbytes / 4 + (vbytes ? 1 : 0);
    p.elems = words <= 1 ? 17 : words == 2 ? 11 : 7;
    if (const auto tune = knob_numbers("CLPRIM_MERGE_GPU_TUNE", 1, 2, 1, 1024)) { // "group[,elems]"
        if (((*tune)[0] & ((*tune)[0] - 1)) == 0) p.group = (*tune)[0];
        if (tune->size() == 2 && (*tune)[1] <= 64) p.elems = (*tune)[1];
    }
    // The tile must fit the device's local memory (queried, never assumed): fewer work-items first.
    const std::size_t local = device.local_memory_size();
    while (p.group > 1 && merge_local_bytes(p.group * p.elems, kbytes, vbytes) > local) p.group /= 2;
    while (p.elems > 1 && merge_local_bytes(p.group * p.elems, kbytes, vbytes) > local) --p.elems;
    // No larger than the input needs.
    p.group = std::min(p.group, next_pow2(ceil_div(n, p.elems)));
    // The tile sort takes twice the round's work-group where its local memory and the kernel allow
    // (CLPRIM_MERGE_SORT_GROUP overrides): its runs of 2 * group * elems keys save one global round
    // (a sweep over the data) for one more merge level in local memory. On the H100 the tile sort
    // kernel allows 256 work-items (its registers), so it runs 256 x 17 there: 0.71 ms, then 14
    // rounds of 0.19 ms + 0.027 ms (partition) at 2^26 uint keys.
    p.sort_group = p.group * 2;
    if (tile_sort_local_bytes(p.sort_group * p.elems, kbytes, vbytes) > local) p.sort_group = p.group;
    if (const auto sg = knob_number("CLPRIM_MERGE_SORT_GROUP", 1, 1024)) {
        const std::size_t g = *sg;
        if (g >= p.group && g <= 1024 && (g & (g - 1)) == 0 && tile_sort_local_bytes(g * p.elems, kbytes, vbytes) <= local)
            p.sort_group = g;
    }
    // With values, a tile sort built for sort_group work-items (merge_tile_sort_wide), used where
    // the plain kernel's query allows fewer: at 512 x 11 on the H100, 2^26 uint -> uint, the tile
    // sort takes 1.12 -> 1.22 ms and saves a round (0.39 ms): 6.97 -> 6.70 ms. Keys alone stay with
    // the plain kernel (512 x 17 built so: 3.75 -> 3.95 ms, its registers capped at 128).
    // CLPRIM_MERGE_WIDE=on|off: take it wherever it is built (no query, no probe; tests force it on
    // devices whose plain kernel already takes sort_group) or never.
    if (vbytes && p.sort_group > p.group) p.wide_group = p.sort_group;
    if (const auto w = knob_choice("CLPRIM_MERGE_WIDE", {"auto", "on", "off"})) p.wide = *w == 1 ? 1 : *w == 2 ? -1 : 0;
    p.sort_group = std::min(p.sort_group, std::max(p.group, next_pow2(ceil_div(n, p.elems))));
    // The rounds: merge_partition + merge_global, or merge_stream where forced with stream_tiles
    // tiles per work-group and probes positions per search step (CLPRIM_MERGE_STREAM=
    // "tiles[,probes[,group]]", tiles 0: the split kernels). H100, 2^26 uint, merge of two halves:
    // split kernels 0.233-0.243 ms, merge_stream 0.44-0.76 ms over every shape tried (docs/RESULTS.md,
    // "s4-merge"). merge_stream's two windows of keys and values must fit local memory: fewer
    // work-items where they do not.
    // A third number caps the rounds' work-group (a power of two, at most the tile sort's).
    std::size_t round_cap = p.group;
    if (const auto st = knob_numbers("CLPRIM_MERGE_STREAM", 1, 3, 0, 4096)) {
        p.stream_tiles = (*st)[0];
        if (st->size() >= 2 && (*st)[1] >= 1 && (*st)[1] <= 128) p.probes = (*st)[1];
        if (st->size() == 3 && (*st)[2] >= 1) round_cap = std::min(p.group, floor_pow2((*st)[2]));
    }
    // CLPRIM_MERGE_STREAM_GROUPS=<per compute unit>: every round spread over that many work-groups
    // per compute unit instead of stream_tiles tiles each (0: tiles).
    if (const auto g = knob_number("CLPRIM_MERGE_STREAM_GROUPS", 0, 1024)) p.stream_groups = *g;
    if (p.stream_groups > 0 && p.stream_tiles == 0) p.stream_tiles = 1; // merge_stream, spread by groups
    p.round_group = round_cap;
    while (p.round_group > 1 && merge_stream_local_bytes(p.round_group * p.elems, kbytes, vbytes) + 1024 > local)
        p.round_group /= 2;
    // CLPRIM_MERGE_OPTIONS adds build options (measurements). No register cap: with the full-tile
    // rounds (merge_sort.cl) every cap tried was slower on the H100 (2^26 uint -> uint, a round:
    // uncapped 0.359 ms, 48 regs 0.378, 40 0.519, 32 0.806; keys alone at 32: 0.23 -> 0.55 ms).
    p.options = knob_options("CLPRIM_MERGE_OPTIONS");

    // Measured on PoCL (2-core AMD EPYC, 2^24 uint keys): see docs/DEVELOPERS.md.
    p.chunks = 4 * std::max<cl_uint>(1, device.compute_units());
    p.run = 16;
    if (const auto tune = knob_numbers("CLPRIM_MERGE_CPU_TUNE", 1, 2, 1)) { // "chunks[,run]"
        p.chunks = (*tune)[0];
        if (tune->size() == 2 && (*tune)[1] <= 64) p.run = (*tune)[1];
    }
    p.chunks = std::max<std::size_t>(1, std::min(p.chunks, ceil_div(n, 4 * p.run))); // no tiny chunks
    return p;
}

void merge_round_gpu(bc::command_queue& queue, bc::kernel& pk, bc::kernel& gk, const sort_place& a,
                     const sort_place& b, const sort_place& dst, std::size_t n, std::size_t L,
                     const merge_round_shape& shape, const bc::buffer& splits, bool last)
{
    if (shape.span > 0) {
        const std::size_t span = shape.span;
        launch(queue, gk, ceil_div(n, span) * shape.wg, shape.wg, a.k, cl_ulong(a.koff), a.v, cl_ulong(a.voff), b.k,
               cl_ulong(b.koff), b.v, cl_ulong(b.voff), dst.k, cl_ulong(dst.koff), dst.v, cl_ulong(dst.voff),
               cl_ulong(n), cl_ulong(L), cl_uint(last ? 1 : 0), cl_ulong(span), local_bytes{shape.local});
        return;
    }
    const std::size_t groups = ceil_div(n, shape.tile);
    launch(queue, pk, round_up(groups, shape.partition_wg), shape.partition_wg, a.k, cl_ulong(a.koff), b.k,
           cl_ulong(b.koff), cl_ulong(n), cl_ulong(L), cl_ulong(shape.tile), splits, cl_ulong(groups));
    launch(queue, gk, groups * shape.wg, shape.wg, a.k, cl_ulong(a.koff), a.v, cl_ulong(a.voff), b.k,
           cl_ulong(b.koff), b.v, cl_ulong(b.voff), dst.k, cl_ulong(dst.koff), dst.v, cl_ulong(dst.voff),
           cl_ulong(n), cl_ulong(L), cl_uint(last ? 1 : 0), splits, local_bytes{shape.local});
}

void merge_round_cpu(bc::command_queue& queue, bc::kernel& rk, const sort_place& a, const sort_place& b,
                     const sort_place& dst, std::size_t n, std::size_t L, std::size_t piece, bool last)
{
    launch(queue, rk, ceil_div(n, piece), 1, a.k, cl_ulong(a.koff), a.v, cl_ulong(a.voff), b.k, cl_ulong(b.koff),
           b.v, cl_ulong(b.voff), dst.k, cl_ulong(dst.koff), dst.v, cl_ulong(dst.voff), cl_ulong(n), cl_ulong(L),
           cl_ulong(piece), cl_uint(last ? 1 : 0));
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
std::vector<std::string> merge_sources(const std::string& comparator, bool stream = false)
{
    std::vector<std::string> files{"sort_key_order.cl", "merge_sort.cl", "merge_sort_tile.cl"};
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
                               std::to_string(pol.run));
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
    // Stage (4) ends where an even number of rounds later the result lands in the caller.
    const place x = rounds % 2 == 0 ? caller : scratch;
    const place y = rounds % 2 == 0 ? scratch : caller;
    y.set_args(ck, x.set_args(ck, caller.set_args(ck, 0)));
    ck.set_arg(12, cl_ulong(n));
    ck.set_arg(13, cl_ulong(chunk));
    ck.set_arg(14, cl_uint(passes));
    ck.set_arg(15, cl_uint(rounds == 0 ? 1 : 0));
    launch_1d(queue, ck, chunks, 1);

    const std::size_t piece = ceil_div(n, pol.chunks);
    place src = x, dst = y;
    unsigned round = 0;
    for (std::size_t L = chunk; L < n; L <<= 1) {
        ++round;
        merge_round_cpu(queue, rk, src, src, dst, n, L, piece, round == rounds);
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
        const merge_policy pol = choose_merge_policy(device, n, kbytes, vbytes);
        if (pol.cpu) return merge_sort_cpu(r, pol, queue, comparator);
        sort_observer* const trace = sort_trace(); // examples/sort_steps: tiny tiles, runs after each round
        const std::size_t elems = trace && trace->merge_elems() ? trace->merge_elems() : pol.elems;
        const bc::context& context = queue.get_context();
        const bool stream = pol.stream_tiles > 0;
        std::string options = sort_build_options(r) + comparator_options(comparator) + " -DMERGE_ELEMS=" +
                              std::to_string(elems) + (stream ? " -DMERGE_PROBES=" + std::to_string(pol.probes) : "") +
                              pol.options;
        if (pol.wide_group) options += " -DMERGE_SORT_WG=" + std::to_string(pol.wide_group);
        const bc::program program = algorithms_program(context, merge_sources(comparator, stream), options);
        bc::kernel tk = program.create_kernel("merge_tile_sort");
        bc::kernel gk = program.create_kernel(stream ? "merge_stream" : "merge_global");
        bc::kernel pk = program.create_kernel("merge_partition");

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
        merge_round_shape shape{wg, tile, std::min(pow2_group_size(pk, device, 128), next_pow2(groups)),
                                stream ? merge_stream_local_bytes(tile, kbytes, vbytes) : merge_round_local_bytes(tile, kbytes, vbytes)};

        unsigned rounds = 0;
        for (std::size_t L = sort_tile; L < n; L <<= 1) ++rounds;

        // The caller's range is one of the two ping-pong buffers (holding sortable bits between
        // rounds); the scratch pair is taken up front, before anything is enqueued.
        using place = sort_place;
        const place caller = place::caller(r);
        place scratch = caller;
        bc::buffer splits;
        scratch_lease lease(queue); // reused from the last call on this queue where they fit
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
            merge_round_gpu(queue, pk, gk, src, src, dst, n, L, shape, splits, round == rounds);
            if (trace) trace->merge_round(queue, round, 2 * L, dst.k, dst.koff, n, round == rounds);
            src = dst;
        }
    });
}

} // namespace detail
} // namespace clprim
