// The by-key and selection family (reduce_by_key, the scans by key, unique, run_length_encode,
// partition_copy, stable_partition, copy_if's count overload): one segmented scan with a fused
// prologue and epilogue per mode (primitives/by_key.cl), on the path by_key_policy.hpp picks;
// ranges that one work-group holds in one launch (by_key_small.cpp) first.
#include "by_key_cpu.hpp"
#include "by_key_policy.hpp"
#include "by_key_small.hpp"
#include "copy_if_partition.hpp"
#include "copy_if_unique.hpp"
#include "count_read.hpp"

#include <clprim/detail/by_key_impl.hpp>
#include <clprim/detail/device_limits.hpp>
#include <clprim/detail/kernel_launch.hpp>
#include <clprim/detail/lookback_slots.hpp>
#include <clprim/detail/primitives_kernels.hpp>
#include <clprim/detail/queue_info.hpp>
#include <clprim/detail/scratch_pool.hpp>

#include <algorithm>
#include <cstring>
#include <limits>
#include <map>
#include <tuple>

namespace clprim {
namespace detail {

namespace {

constexpr cl_uint flag_inclusive = 1, flag_write_count = 2;

struct by_key_kernels {
    bc::kernel lookback, chunk_reduce, chunk_scan, partition_back; // the last one: partition only
    bc::kernel cpu_partition_back; // by_key_cpu.cl's (chunks path; partition only)
    bc::kernel cpu_single;         // by_key_cpu_single.cl's (chunks path in one launch)
    by_key_policy policy;
    std::size_t wg = 1;
    std::size_t compute_units = 1;
    bool nvidia = false;
    bool shfl_scan = false; // BK_SHFL_SCAN built in
    // The pairs the tile scan's scratch holds (sc, sv): one per warp with shuffles, else the
    // ping-pong scan's two per work-item.
    std::size_t scan_pairs(std::size_t group) const { return shfl_scan ? std::max<std::size_t>(1, group / 32) : 2 * group; }
};

bool has_values(by_key_mode m)
{
    return m == by_key_mode::reduce || m == by_key_mode::scan || m == by_key_mode::run_length;
}

by_key_kernels make_kernels(const bc::command_queue& queue, const by_key_call& call, const by_key_policy& policy)
{
    by_key_kernels k;
    k.policy = policy;
    const bc::device device = queue.get_device();
    const device_profile& profile = profile_of(device);
    k.nvidia = profile.nvidia;
    const std::string extra = knob_options("CLPRIM_BY_KEY_OPTIONS");
    std::string options = type_options(call.key_type, "K") + " " + type_options(call.value_type, "V") +
                          " -DBK_MODE=" + std::to_string(int(call.mode)) + " -DBK_ITEMS=" + std::to_string(policy.items) +
                          " -DBK_INDEX=" + (policy.index_epilogue ? "1" : "0") +
                          (profile.nvidia ? " -DLB_NANOSLEEP -DBK_PTX" : "") + lookback_build_options() + extra;
    // The warp pieces need whole warps: work-groups a multiple of 32 (the policy's 256 are).
    const bool warps = policy.wg % 32 == 0;
    k.shfl_scan = policy.shfl_scan && warps;
    if (k.shfl_scan) options += " -DBK_SHFL_SCAN";
    if (policy.warp_lookback && warps) options += " -DBK_WARP_LOOKBACK";
    if (policy.group_order) options += " -DBK_GROUP_ORDER=1";
    if (policy.stage_vec) options += " -DBK_STAGE_VEC=1";
    if (policy.rle_positions) options += " -DBK_RLE_POSITIONS=1";
    if (policy.slot16) options += " -DBK_SLOT16=1";
    if (policy.lean_quick) options += " -DBK_LEAN_QUICK=1";
    if (policy.lean_preread) options += " -DBK_LEAN_PREREAD=1";
    if (policy.prefetch > 0) options += " -DBK_LEAN_PREFETCH=" + std::to_string(policy.prefetch);
    if (policy.persist > 0) options += " -DBK_LEAN_PERSIST=" + std::to_string(policy.persist);
    if (policy.lean_sub > 1) options += " -DBK_LEAN_SUB=" + std::to_string(policy.lean_sub);
    if (extra.find("BK_EARLY=") == std::string::npos) options += policy.early_stream ? " -DBK_EARLY=1" : " -DBK_EARLY=0";
    if (policy.register_cap > 0 && extra.find("maxrregcount") == std::string::npos)
        options += " -cl-nv-maxrregcount=" + std::to_string(policy.register_cap);
    std::vector<std::string> files{"workgroup_segmented.cl", "lookback.cl", "by_key.cl", "by_key_warp.cl", "by_key_lookback.cl",
                                   "by_key_tile.cl", "by_key_registers.cl", "by_key_gather.cl", "by_key_lean.cl",
                                   "by_key_lean2.cl", "by_key_cpu.cl", "by_key_cpu_single.cl"};
    if (!call.op_file.empty()) files.insert(files.begin(), call.op_file);
    bc::program program = primitives_program(queue.get_context(), files, options);
    k.lookback = program.create_kernel(policy.kernel == by_key_policy::kernel::gather  ? "by_key_gather"
                                       : policy.kernel == by_key_policy::kernel::lean ? "by_key_lean"
                                                                                      : "by_key_lookback");
    k.chunk_reduce = program.create_kernel("by_key_cpu_count"); // the chunks path (by_key_cpu.cl)
    k.chunk_scan = program.create_kernel("by_key_cpu_emit");
    k.cpu_single = program.create_kernel("by_key_cpu_single");
    if (call.mode == by_key_mode::partition) {
        k.partition_back = program.create_kernel("by_key_partition_back");
        k.cpu_partition_back = program.create_kernel("by_key_cpu_partition_back");
    }
    const auto lim = limits_for(k.lookback, device);
    k.compute_units = std::max<std::size_t>(1, profile.compute_units);
    const std::size_t elem = size_of(call.value_type);
    k.wg = floor_pow2(std::max<std::size_t>(1, std::min(policy.wg, lim.max_work_group_size)));
    // The staged tile (keys, and values where the mode has them; one pad slot every 32), the
    // scan's pairs and the look-back window (32 counts, flags and values).
    const std::size_t kelem = size_of(call.key_type),
                      telem = kelem + (has_values(call.mode) && !policy.rle_positions ? elem : 0);
    auto local_need = [&](std::size_t wg) {
        const std::size_t tile = wg * policy.items;
        return (tile + tile / 32 + 1) * telem + k.scan_pairs(wg) * (4 + elem) + 32 * (8 + elem) + 64 + // BK_TILE_PAD(tile) + 1
               (policy.kernel != by_key_policy::kernel::gather ? 0 // woff, wmask, own or idx:
                : policy.index_epilogue                             ? 12 + tile * 2
                                                                    : 2 * wg * 4 + 2 * (tile / 32 + 1) * 4 + 2);
    };
    const std::size_t least = (policy.shfl_scan || policy.warp_lookback) && warps ? 32 : 1;
    while (k.wg > least && local_need(k.wg) > lim.local_mem_size) k.wg /= 2;
    return k;
}

// Per host thread (kernel objects carry their arguments), per (context, device, mode, types,
// operator, tile shape).
by_key_kernels& cached_kernels(const bc::command_queue& queue, const by_key_call& call)
{
    const std::size_t staged = size_of(call.key_type) + (has_values(call.mode) ? size_of(call.value_type) : 0);
    const by_key_policy policy =
        select_by_key_policy(profile_of(queue.get_device()), staged, call.keys.size, call.mode == by_key_mode::partition,
                             call.mode == by_key_mode::run_length, call.mode == by_key_mode::scan,
                             call.mode == by_key_mode::reduce);
    using key = std::tuple<cl_context, cl_device_id, int, int, int, std::string, std::size_t, std::size_t, int, bool,
                           std::size_t, bool, bool, bool, bool, bool, bool, bool, bool, bool, std::size_t, int, std::size_t, std::string>;
    thread_local std::map<key, by_key_kernels> cache;
    const key k{queue.get_context().get(), queue.get_device().get(), int(call.mode), int(call.key_type),
                int(call.value_type), call.op_file, policy.wg, policy.items, int(policy.kernel), policy.index_epilogue,
                policy.register_cap, policy.shfl_scan, policy.warp_lookback, policy.group_order, policy.stage_vec,
                policy.early_stream, policy.rle_positions, policy.slot16, policy.lean_quick, policy.lean_preread, policy.prefetch, policy.persist, policy.lean_sub, knob_options("CLPRIM_BY_KEY_OPTIONS") + lookback_build_options()};
    auto it = cache.find(k);
    if (it == cache.end()) it = cache.emplace(k, make_kernels(queue, call, policy)).first;
    it->second.policy.path = policy.path; // the path and chunk knobs are read per call
    it->second.policy.min_chunk = policy.min_chunk;
    it->second.policy.chunks_per_cu = policy.chunks_per_cu;
    it->second.policy.single_pass = policy.single_pass, it->second.policy.piece = policy.piece;
    it->second.policy.persist_groups = policy.persist_groups; // (the launch's, not the program's)
    return it->second;
}

bool overlap(const buffer_range& a, const buffer_range& b)
{
    return a.size > 0 && b.size > 0 && a.buffer.get() == b.buffer.get() && a.offset < b.offset + b.size &&
           b.offset < a.offset + a.size;
}

} // namespace

std::size_t by_key_impl(const by_key_call& call, bc::command_queue& user_queue, const char* who)
{
    const std::size_t n = call.keys.size;
    const by_key_mode mode = call.mode;
    const bool values = has_values(mode) && mode != by_key_mode::run_length;
    if (values && call.values.size != n) throw invalid_argument_error(std::string(who) + ": values range is too short");
    if (n > std::size_t(std::numeric_limits<cl_uint>::max()))
        throw invalid_argument_error(std::string(who) + ": more than 2^32 - 1 elements");
    // What the outputs may be written over (at most n elements each), against the inputs.
    const buffer_range reach1{call.out1.buffer, call.out1.offset, std::min(n, call.out1.size)};
    const buffer_range reach2{call.out2.buffer, call.out2.offset, std::min(n, call.out2.size)};
    const bool in_place = mode == by_key_mode::scan && values && call.out2.buffer.get() == call.values.buffer.get() &&
                          call.out2.offset == call.values.offset;
    if (overlap(reach1, call.keys) || overlap(reach2, call.keys) || overlap(reach1, reach2) ||
        (values && overlap(reach1, call.values)) || (values && !in_place && overlap(reach2, call.values)))
        throw invalid_argument_error(std::string(who) + ": a result range overlaps an input or another result");
    if (call.count_result && (overlap(*call.count_result, reach1) || overlap(*call.count_result, reach2) ||
                              overlap(*call.count_result, call.keys) || (values && overlap(*call.count_result, call.values))))
        throw invalid_argument_error(std::string(who) + ": count_result overlaps another range");
    require_type_support(call.key_type, user_queue, who); // (no driver query: queue_info.hpp)
    require_type_support(call.value_type, user_queue, who);
    const bool wants_count = mode != by_key_mode::scan;
    if (n == 0) {
        if (call.count_result) {
            const cl_ulong zero = 0;
            in_order_scope scope(user_queue);
            guarded(who, [&] { // a fill: no wait, nothing of the host's to keep alive
                scope.queue().enqueue_fill_buffer(call.count_result->buffer, &zero, sizeof zero,
                                                  call.count_result->offset * sizeof(cl_ulong), sizeof zero);
            });
        }
        return 0;
    }

    cl_ulong count = 0;
    in_order_scope scope(user_queue); // in order on out-of-order queues too (queue_order.hpp)
    bc::command_queue& queue = scope.queue();
    guarded(who, [&] {
        if (mode == by_key_mode::unique && unique_takes_copy_if(profile_of(queue.get_device()))) {
            // unique through copy_if's single pass (copy_if_unique.hpp): the count to the
            // caller's count_result or to this thread's result word, read back here.
            const buffer_range count_out =
                call.count_result ? *call.count_result : buffer_range{result_device_word(queue.get_context()), 0, 1};
            copy_if_unique_launch(call.keys, call.out1, call.key_type, count_out.buffer, count_out.offset, queue);
            if (!call.count_result) read_result_word(queue, count_out.buffer, sizeof count, &count);
            return;
        }
        if (mode == by_key_mode::partition && partition_takes_copy_if(profile_of(queue.get_device()))) {
            // partition_copy through copy_if's single pass (copy_if_partition.hpp), the count as unique's.
            const buffer_range count_out =
                call.count_result ? *call.count_result : buffer_range{result_device_word(queue.get_context()), 0, 1};
            copy_if_partition_launch(call.keys, call.out1, call.out2, call.key_type, call.op_file, count_out.buffer,
                                     count_out.offset, queue);
            if (!call.count_result) read_result_word(queue, count_out.buffer, sizeof count, &count);
            return;
        }
        auto read_count = [&](const bc::buffer& word) { // the one round trip
            static const result_read forms[] = {result_read::plain,        result_read::pinned,      result_read::async,
                                                result_read::flush_pinned, result_read::flush_async, result_read::spin};
            const int form = select_by_key_read(*info_of(queue).profile,
                                                mode == by_key_mode::reduce || mode == by_key_mode::run_length);
            read_result_word(queue, word, sizeof count, &count, forms[form]);
        };
        // One work-group where it holds the range (by_key_small.cpp): one launch, nothing else.
        buffer_range small_count;
        if (by_key_small_launch(call, call.count_result || wants_count, queue, &small_count)) {
            if (!call.count_result && wants_count) read_count(small_count.buffer);
            return;
        }
        by_key_kernels& k = cached_kernels(queue, call);
        const std::size_t velem = size_of(call.value_type);
        // The count goes to the caller's count_result, or to this thread's result word
        // (count_read.hpp), read back at the end.
        buffer_range count_out{call.keys.buffer, 0, 0};
        bool write_count = false;
        if (call.count_result) {
            count_out = *call.count_result;
            write_count = true;
        } else if (wants_count) {
            count_out = buffer_range{result_device_word(queue.get_context()), 0, 1};
            write_count = true;
        }
        const bc::buffer& vals = values ? call.values.buffer : call.keys.buffer;
        const std::size_t vals_off = values ? call.values.offset : 0;
        const bc::buffer& out1 = call.out1.size ? call.out1.buffer : call.keys.buffer;
        const bc::buffer& out2 = call.out2.size ? call.out2.buffer : call.keys.buffer;
        const cl_uint flags = (call.inclusive ? flag_inclusive : 0) | (write_count ? flag_write_count : 0);
        // The kernels' arguments 0..14 are the same on every path (BK_ARGS in by_key.cl).
        auto set_common = [&](bc::kernel& kern, const auto& init_value) {
            set_kernel_args(kern, call.keys.buffer, cl_ulong(call.keys.offset), vals, cl_ulong(vals_off), cl_ulong(n),
                            out1, cl_ulong(call.out1.offset), cl_ulong(call.out1.size), out2, cl_ulong(call.out2.offset),
                            cl_ulong(call.out2.size), count_out.buffer, cl_ulong(count_out.offset), flags, init_value);
        };
        unsigned char init_bytes[8] = {}; // V init: velem bytes (1 to 8)
        if (call.init) std::memcpy(init_bytes, call.init, velem);
        auto set_args = [&](bc::kernel& kern) { set_common(kern, raw_value{velem, init_bytes}); };
        if (k.policy.path == by_key_policy::path::lookback) {
            const std::size_t tile = k.wg * k.policy.items * k.policy.lean_sub; // (a look-back's)
            const std::size_t tiles = ceil_div(n, tile);
            const std::size_t slots = mode == by_key_mode::unique || mode == by_key_mode::partition ? 1 : velem == 8 ? 3 : 2;
            // (word 0 the tile counter; one word more: BK_SLOT16's slots start 16-byte aligned at word 2)
            const lookback_slots status = take_lookback_slots(queue, 2 + tiles * slots);
            set_args(k.lookback);
            const std::size_t staged = k.wg * k.policy.items; // (lean_sub: a sub-tile's)
            const std::size_t slots_per_tile = staged + (staged >> 5) + 1; // BK_TILE_PAD(staged) + 1
            set_kernel_args_from(k.lookback, 15, status.buffer, status.epoch, local_bytes{k.scan_pairs(k.wg) * 4},
                                 local_bytes{k.scan_pairs(k.wg) * velem}, local_bytes{slots_per_tile * size_of(call.key_type)},
                                 local_bytes{has_values(mode) && !k.policy.rle_positions ? slots_per_tile * velem : 1});
            if (k.policy.kernel == by_key_policy::kernel::gather) { // woff, wmask, own (BK_OWN_STEP 32), idx
                const bool search = !k.policy.index_epilogue;
                set_kernel_args_from(k.lookback, 21, local_bytes{search ? k.wg * 4 : 4}, local_bytes{search ? k.wg * 4 : 4},
                                     local_bytes{search ? 2 * (tile / 32 + 1) * 4 : 4}, local_bytes{search ? 2 : tile * 2});
            }
            // (persistent lean groups: a few a compute unit, each taking tile after tile)
            const std::size_t groups = k.policy.persist > 0
                                           ? std::min(tiles, k.policy.persist_groups * k.compute_units)
                                           : tiles;
            launch_1d(queue, k.lookback, groups * k.wg, k.wg);
        } else { // (by_key_cpu.cpp: one launch, or two)
            by_key_cpu_launch(queue, k.policy, {k.chunk_reduce, k.chunk_scan, k.cpu_single}, n, k.compute_units, velem,
                              mode == by_key_mode::unique || mode == by_key_mode::partition ? 1 : velem == 8 ? 3 : 2,
                              in_place, set_args);
        }
        if (!call.count_result && wants_count) read_count(count_out.buffer);
    });
    if (call.count_result || !wants_count) return 0;
    // Results found too small once the count is known (what fits was written).
    std::size_t need1 = count, need2 = count;
    if (mode == by_key_mode::unique) need2 = 0;
    if (mode == by_key_mode::partition) need2 = call.out2.buffer.get() ? n - count : 0; // copy_if: no second group
    if (need1 > call.out1.size || need2 > call.out2.size)
        throw invalid_argument_error(std::string(who) + ": " + std::to_string(count) +
                                     " results do not fit the result range");
    return std::size_t(count);
}

std::size_t stable_partition_impl(const buffer_range& range, element_type type, const std::string& pred_file,
                                  const buffer_range* count_result, bc::command_queue& user_queue)
{
    const char* who = "clprim::stable_partition";
    if (count_result && overlap(*count_result, range))
        throw invalid_argument_error(std::string(who) + ": count_result overlaps the range");
    require_type_support(type, user_queue.get_device(), who);
    const std::size_t n = range.size;
    in_order_scope scope(user_queue);
    bc::command_queue& queue = scope.queue();
    cl_ulong count = 0;
    guarded(who, [&] {
        if (partition_takes_copy_if(profile_of(queue.get_device()))) { // one tile: one launch (copy_if_partition.hpp)
            const buffer_range word = count_result ? *count_result : buffer_range{result_device_word(queue.get_context()), 0, 1};
            if (copy_if_partition_in_place(range, type, pred_file, word.buffer, word.offset, queue)) {
                if (!count_result) read_result_word(queue, word.buffer, sizeof count, &count);
                return;
            }
        }
        // partition_copy into two scratch halves (count on the device), then one kernel copies
        // both groups back.
        const std::size_t elem = size_of(type);
        scratch_lease lease(queue);
        const bc::buffer tmp = lease.buffer(std::max<std::size_t>(1, 2 * n) * elem);
        const buffer_range count_out = count_result ? *count_result : buffer_range{lease.buffer(sizeof(cl_ulong)), 0, 1};
        by_key_call call;
        call.mode = by_key_mode::partition;
        call.keys = range;
        call.out1 = buffer_range{tmp, 0, n};
        call.out2 = buffer_range{tmp, n, n};
        call.key_type = call.value_type = type;
        call.op_file = pred_file;
        call.count_result = &count_out;
        by_key_impl(call, queue, who);
        if (n > 0 && partition_takes_copy_if(profile_of(queue.get_device()))) {
            copy_if_partition_back(range, type, tmp, count_out.buffer, count_out.offset, queue); // (copy_if_partition.hpp)
        } else if (n > 0) {
            by_key_kernels& k = cached_kernels(queue, call);
            if (k.policy.path == by_key_policy::path::chunks) { // by_key_cpu.cl: contiguous copies per chunk
                const std::size_t chunk = ceil_div(n, std::max<std::size_t>(1, k.policy.chunks_per_cu * k.compute_units));
                launch(queue, k.cpu_partition_back, ceil_div(n, chunk), 1, range.buffer, cl_ulong(range.offset), cl_ulong(n),
                       tmp, count_out.buffer, cl_ulong(count_out.offset), cl_ulong(chunk));
            } else {
                launch(queue, k.partition_back, round_up(n, 64), 64, range.buffer, cl_ulong(range.offset), cl_ulong(n),
                       tmp, count_out.buffer, cl_ulong(count_out.offset));
            }
        }
        if (!count_result) read_result_word(queue, count_out.buffer, sizeof count, &count);
    });
    return std::size_t(count);
}

} // namespace detail
} // namespace clprim
