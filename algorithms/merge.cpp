// The public merge / merge_by_key (issue #30): the merge sort's rounds (merge_rounds.hpp), run
// once over two ranges. The program is merge_sort.cl built with -DMERGE_TWO_RANGES: one pair of
// runs (the first range, then the second, each its own buffer and offset), keys converted to
// sortable bits as they are read, back to keys as they are stored. GPU path: the split search
// (merge_partition or merge_path_search.cl's merge_partition_search: one co-rank search per output
// tile) and merge_global (one co-rank search per work-item in local memory, serial merges from
// registers), or with the policy's split_lead merge_global_split (the search hidden behind
// merging: three launches), or where forced (CLPRIM_MERGE_STREAM) merge_stream (one
// launch: each work-group searches its own piece of both ranges and streams through it a tile at
// a time; merge_stream.cl), or where the policy walks (small merges of 32-bit keys on NVIDIA,
// CLPRIM_MERGE_WALK) merge_walk (one launch of persistent work-groups, each searching its start
// once and walking its share a tile at a time; merge_walk.cl); CPU devices: merge_cpu_round (one long co-rank piece
// per work-item). The path and the shape come from the merge sort's policy (select_merge_policy in merge_policy.hpp,
// CLPRIM_MERGE_PATH / CLPRIM_MERGE_GPU_TUNE / CLPRIM_MERGE_CPU_TUNE force them).
#include "merge_rounds.hpp"
#include "ranges_overlap.hpp"

#include <clprim/detail/lookback_slots.hpp>
#include <clprim/detail/queue_info.hpp>
#include <clprim/detail/scratch_pool.hpp>
#include <clprim/merge.hpp>

#include <map>
#include <string>
#include <tuple>
#include <vector>

namespace clprim {
namespace detail {

namespace {

// Where a range's keys and values are, as the kernels take them (values: the keys' buffer when
// there are none, never read).
sort_place place_of(const buffer_range& k, const buffer_range& v, bool has_values)
{
    return has_values ? sort_place{k.buffer, v.buffer, k.offset, v.offset} : sort_place{k.buffer, k.buffer, k.offset, 0};
}

struct merge_kernels {
    bc::kernel partition, round, cpu_round, lead; // lead: merge_global_split (where it can run)
    bc::kernel gather;                            // merge_split_gather
    bc::kernel walk;                              // merge_walk (where the policy walks)
    bc::kernel overlap;                           // merge_overlap (where the policy overlaps)
    std::size_t round_wg = 0, partition_wg = 0, lead_wg = 0, gather_wg = 0; // the GPU kernels' largest work-groups (queried once)
    // The scalar arguments the partition and merge_global were last given (merge_arg_memo: only
    // those that changed are set again; these kernel objects are this thread's and merge.cpp's alone).
    merge_arg_memo partition_args, round_args, overlap_args;
};

// Kernels per host thread, by context, device and build options.
merge_kernels& kernels_for(const bc::command_queue& queue, cl_context context, cl_device_id device, const std::string& options,
                           bool cpu, bool stream, const merge_policy& pol)
{
    const bool search = pol.split_probes > 0;
    const bool walk = !cpu && !stream && pol.walk_per_cu > 0;
    const bool overlap = !cpu && !stream && !walk && pol.overlap > 0;
    thread_local std::map<std::tuple<cl_context, cl_device_id, std::string, bool, bool, bool, bool>, merge_kernels> cache;
    const auto key = std::make_tuple(context, device, options, stream, search, walk, overlap);
    auto it = cache.find(key);
    if (it != cache.end()) return it->second;
    std::vector<std::string> files{"sort_key_order.cl", "merge_sort.cl"};
    if (cpu) files.push_back("merge_cpu.cl"); // (built in only with -DMERGE_CPU_STREAMS: merge_cpu_options)
    if (!cpu) files.push_back("merge_path_search.cl");
    if (stream) files.push_back("merge_stream.cl");
    if (walk) files.push_back("merge_walk.cl");
    if (overlap) {
        files.push_back("lookback.cl");
        files.push_back("merge_overlap.cl");
    }
    const bc::program program = algorithms_program(queue.get_context(), files, options);
    merge_kernels k;
    if (cpu) k.cpu_round = program.create_kernel("merge_cpu_round");
    else if (walk) {
        k.walk = program.create_kernel("merge_walk");
        k.round_wg = pow2_group_size(k.walk, queue.get_device(), 1024);
    } else if (overlap) {
        k.overlap = program.create_kernel("merge_overlap");
        k.round_wg = pow2_group_size(k.overlap, queue.get_device(), 1024);
    } else {
        k.partition = program.create_kernel(search ? "merge_partition_search" : "merge_partition");
        k.round = program.create_kernel(stream ? "merge_stream" : "merge_global");
        k.round_wg = pow2_group_size(k.round, queue.get_device(), 1024);
        k.partition_wg = pow2_group_size(k.partition, queue.get_device(), search ? pol.split_group : 128);
        if (search) {
            k.gather = program.create_kernel("merge_split_gather");
            k.gather_wg = pow2_group_size(k.gather, queue.get_device(), 256);
        }
        if (!stream) {
            k.lead = program.create_kernel("merge_global_split");
            k.lead_wg = pow2_group_size(k.lead, queue.get_device(), 1024);
        }
    }
    return cache.emplace(key, k).first->second;
}

// The shape of a thread's last merge call and what it took (merge_impl: a repeated call skips the
// policy, the options string and the kernel look-up). kernels points into kernels_for's cache
// (never erased).
struct last_merge_call {
    cl_context context = nullptr;
    cl_device_id device = nullptr;
    std::size_t n = 0, n1 = 0;
    element_type key_type = element_type::uint32, value_type = element_type::uint32;
    bool has_values = false;
    sort_order order = sort_order::ascending;
    merge_policy policy;
    merge_kernels* kernels = nullptr;
    int walk_async = 0;
};

} // namespace

void merge_impl(const merge_request& r, bc::command_queue& user_queue, const char* who)
{
    const std::size_t kbytes = size_of(r.key_type);
    const std::size_t vbytes = r.has_values ? size_of(r.value_type) : 0;
    // Checks before anything is enqueued: no output over an input or over the other output.
    const bool bad = ranges_overlap(r.keys_out, kbytes, r.keys1, kbytes) || ranges_overlap(r.keys_out, kbytes, r.keys2, kbytes) ||
                     (r.has_values &&
                      (ranges_overlap(r.keys_out, kbytes, r.values1, vbytes) || ranges_overlap(r.keys_out, kbytes, r.values2, vbytes) ||
                       ranges_overlap(r.values_out, vbytes, r.keys1, kbytes) || ranges_overlap(r.values_out, vbytes, r.keys2, kbytes) ||
                       ranges_overlap(r.values_out, vbytes, r.values1, vbytes) ||
                       ranges_overlap(r.values_out, vbytes, r.values2, vbytes) ||
                       ranges_overlap(r.values_out, vbytes, r.keys_out, kbytes)));
    if (bad) throw invalid_argument_error(std::string(who) + ": an output range overlaps an input or the other output");
    // The queue's device, context and profile as this thread last asked for them (queue_info.hpp:
    // no driver query, no Boost.Compute device object made and destroyed per call).
    const queue_info& qi = info_of(user_queue);
    const device_profile& profile = *qi.profile;
    const cl_device_id device_id = qi.device.id();
    const cl_context context = qi.context.get();
    require_type_support(r.key_type, user_queue, who);
    if (r.has_values) require_type_support(r.value_type, user_queue, who);
    const std::size_t n1 = r.keys1.size, n = n1 + r.keys2.size;
    if (n == 0) return;

    in_order_scope scope(user_queue); // in order on out-of-order queues too (queue_order.hpp)
    bc::command_queue& queue = scope.queue();
    guarded(who, [&] {
        // A call like this thread's last one (same context, device, sizes, types and order; the
        // GPU path; no CLPRIM_MERGE_* knob set, now or then) takes that call's policy and kernels:
        // no knob reads, no options string, no cache look-up before the first launch.
        thread_local last_merge_call last;
        const bool cacheable = !knobs_with_prefix("CLPRIM_MERGE_");
        const bool repeat = cacheable && last.kernels && last.context == context && last.device == device_id && last.n == n &&
                            last.n1 == n1 && last.key_type == r.key_type && last.value_type == r.value_type &&
                            last.has_values == r.has_values && last.order == r.order;
        merge_policy fresh;
        merge_kernels* kp = last.kernels;
        int walk_async = last.walk_async;
        if (!repeat) {
            fresh = select_merge_policy(profile, n, kbytes, vbytes, true);
            const merge_policy& pol = fresh;
            sort_request sr;
            sr.key_type = r.key_type;
            sr.value_type = r.value_type;
            sr.has_values = r.has_values;
            sr.order = r.order;
            const std::size_t e = pol.cpu ? 8 : pol.elems;
            const bool st = !pol.cpu && pol.stream_tiles > 0;
            const bool walk = !pol.cpu && !st && pol.walk_per_cu > 0;
            const bool overlap = !pol.cpu && !st && !walk && pol.overlap > 0;
            // The walk's double-buffered windows: NVIDIA's asynchronous copies for 4- and 8-byte keys
            // (2), plain copies elsewhere (1).
            walk_async = !walk || !pol.walk_async ? 0 : profile.nvidia && (kbytes == 4 || kbytes == 8) ? 2 : 1;
            const std::string options = sort_build_options(sr) + " -DMERGE_TWO_RANGES -DMERGE_ELEMS=" + std::to_string(e) +
                                        (st ? " -DMERGE_PROBES=" + std::to_string(pol.probes) : std::string()) +
                                        (walk ? " -DMERGE_WALK_PROBES=" + std::to_string(pol.walk_probes) +
                                                       " -DMERGE_WALK_STAGE=" + std::to_string(pol.walk_stage ? 1 : 0) +
                                                       " -DMERGE_WALK_ASYNC=" + std::to_string(walk_async) +
                                                       " -DMERGE_WALK_CP_BYTES=" + std::to_string(kbytes)
                                              : std::string()) +
                                        (pol.cpu ? merge_cpu_options(pol) : merge_split_options(pol) + pol.options) +
                                        (!pol.cpu && pol.l2_prefetch > 0 ? " -DMERGE_L2_PREFETCH=" + std::to_string(pol.l2_prefetch) : std::string()) +
                                        (overlap ? (profile.nvidia ? " -DLB_NANOSLEEP" : "") + lookback_build_options() +
                                                       " -DMERGE_OVERLAP_PROBES=" + std::to_string(pol.overlap_probes) +
                                                       " -DMERGE_PATH_IN_FLIGHT=" + std::to_string(pol.overlap_probes) +
                                                       " -DMERGE_SAMPLES_IN_FLIGHT=" + std::to_string(pol.overlap_samples_in_flight) +
                                                       (profile.nvidia && pol.overlap_regs > 0
                                                            ? " -cl-nv-maxrregcount=" + std::to_string(pol.overlap_regs)
                                                            : std::string())
                                                 : std::string());
            kp = &kernels_for(queue, context, device_id, options, pol.cpu, st, pol);
            if (cacheable && !pol.cpu)
                last = last_merge_call{context, device_id, n, n1, r.key_type, r.value_type, r.has_values, r.order, fresh, kp, walk_async};
            else
                last.kernels = nullptr;
        }
        const merge_policy& pol = repeat ? last.policy : fresh;
        merge_kernels& k = *kp;
        const bool st = !pol.cpu && pol.stream_tiles > 0;
        const bool walk = !pol.cpu && !st && pol.walk_per_cu > 0;
        const std::size_t elems = pol.cpu ? 8 : pol.elems;
        const bool stream = !pol.cpu && pol.stream_tiles > 0;
        // An empty input stands in with the other one's buffers (never read), so that no kernel
        // argument is a null buffer.
        const sort_place a = place_of(r.keys1, r.values1, r.has_values);
        const sort_place b = place_of(r.keys2, r.values2, r.has_values);
        const sort_place aa = n1 ? a : b, bb = r.keys2.size ? b : a;
        const sort_place dst = place_of(r.keys_out, r.values_out, r.has_values);
        if (pol.cpu)
            return merge_round_cpu(queue, k.cpu_round, aa, bb, dst, n, n1, merge_cpu_piece(pol, n), true,
                                   take_lookback_slots(queue, 1).buffer);
        if (walk) {
            // The persistent walk: wg work-items (the windows must fit local memory), spans of
            // whole tiles spread evenly over walk_per_cu work-groups per compute unit.
            const std::size_t local = profile.local_mem_size;
            std::size_t wg = std::min(pol.group, k.round_wg);
            while (wg > 1 && merge_walk_local_bytes(wg * elems, kbytes, vbytes, pol.walk_stage, walk_async > 0) + 8 * pol.walk_probes + 64 > local) wg /= 2;
            const std::size_t tile = wg * elems, tiles = ceil_div(n, tile);
            const std::size_t per = pol.walk_tiles > 0 ? pol.walk_tiles
                                                       : ceil_div(tiles, std::max<std::size_t>(1, profile.compute_units) * pol.walk_per_cu);
            merge_round_shape shape{wg, tile, 0, merge_walk_local_bytes(tile, kbytes, vbytes, pol.walk_stage, walk_async > 0)};
            shape.span = per * tile;
            shape.flush = pol.flush;
            return merge_round_gpu(queue, k.partition, k.walk, aa, bb, dst, n, n1, shape, bc::buffer(), true);
        }

        if (pol.overlap > 0) { // (the policy never pairs it with merge_stream or the walk)
            // One launch: `searchers` work-groups find the tile starts chunk after chunk (wg starts a
            // chunk), the other work-groups merge one tile each as its start and end appear in the
            // queue's look-back slots (merge_overlap.cl).
            const std::size_t wg = std::min(pol.group, k.round_wg);
            const std::size_t tile = wg * elems, groups = ceil_div(n, tile);
            const std::size_t searchers = std::min(pol.overlap, ceil_div(groups, wg));
            const std::size_t room = profile.local_mem_size > 1024 ? profile.local_mem_size - 1024 : 0;
            std::size_t samples = pol.split_samples;
            while (samples > 0 && 2 * samples * kbytes + wg * 4 > room) samples /= 2;
            const std::size_t local = round_up(std::max(merge_round_local_bytes(tile, kbytes, vbytes), 2 * samples * kbytes + wg * 4), 32);
            const lookback_slots slots = take_lookback_slots(queue, 1 + groups);
            if (!pol.arg_memo) k.overlap_args.valid = false;
            // (CLPRIM_MERGE_OVERLAP_TWICE=1, measurements: the same launch again with the same epoch,
            // whose merges find every start published: the merge's own time in this kernel)
            for (int twice = pol.overlap_twice ? 2 : 1; twice > 0; --twice)
                launch_memo(queue, k.overlap, &k.overlap_args, (searchers + groups) * wg, wg, aa.k, cl_ulong(aa.koff), aa.v,
                            cl_ulong(aa.voff), bb.k, cl_ulong(bb.koff), bb.v, cl_ulong(bb.voff), dst.k, cl_ulong(dst.koff), dst.v,
                            cl_ulong(dst.voff), cl_ulong(n), cl_ulong(n1), cl_uint(1), local_bytes{local}, cl_ulong(groups),
                            cl_uint(samples), cl_uint(pol.split_ends), cl_uint(searchers), slots.buffer, cl_uint(slots.epoch),
                            cl_uint(pol.overlap_eager > 0 ? pol.overlap_eager : searchers));
            return;
        }
        const std::size_t wg = std::min(stream ? pol.round_group : pol.group, k.round_wg);
        const std::size_t tile = wg * elems;
        const std::size_t groups = ceil_div(n, tile);
        merge_round_shape shape{wg, tile, 0,
                                stream ? merge_stream_local_bytes(tile, kbytes, vbytes) : merge_round_local_bytes(tile, kbytes, vbytes)};
        set_split_shape(shape, pol, kbytes, k.partition_wg, groups);
        shape.flush = pol.flush;
        if (stream) return merge_round_gpu(queue, k.partition, k.round, aa, bb, dst, n, n1,
                                           [&] { shape.span = merge_stream_span(pol, tile, n1, n, true, profile.compute_units); return shape; }(),
                                           bc::buffer(), true);
        scratch_lease lease(queue);
        const bc::buffer splits = lease.buffer(groups * sizeof(cl_ulong));
        shape.gather_wg = k.gather_wg;
        const unsigned gshift = merge_gather_shift(shape, n, n1, true);
        const bc::buffer gathered = gshift > 0 ? lease.buffer(merge_gather_keys(n, n1, gshift) * kbytes) : bc::buffer();
        if (!pol.arg_memo) k.partition_args.valid = k.round_args.valid = false; // (set in full below)
        merge_round_gpu(queue, k.partition, k.round, aa, bb, dst, n, n1, shape, splits, true,
                        k.lead_wg >= wg ? &k.lead : nullptr, gshift > 0 ? &k.gather : nullptr, &gathered, true,
                        pol.arg_memo ? &k.partition_args : nullptr, pol.arg_memo ? &k.round_args : nullptr);
    });
}

} // namespace detail
} // namespace clprim
