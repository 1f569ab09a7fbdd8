// clprim::copy_if, two paths (copy_if_policy.hpp says which device takes which):
//   single pass: one launch, the look-back over the tiles' counts (copy_if_lookback.cl);
//   three pass:  count the passing elements per tile, scan the counts with clprim's own scan,
//                scatter (copy_if.cl).
// The value-returning copy_if waits for the count only; the count_result overload (API.md,
// "Composing") leaves the count on the device and does not wait.
#include "copy_if_partition.hpp"
#include "copy_if_policy.hpp"
#include "copy_if_small.hpp"
#include "copy_if_unique.hpp"
#include "count_read.hpp"
#include "reduce_pinned.hpp"

#include <clprim/copy_if.hpp>
#include <clprim/detail/device_limits.hpp>
#include <clprim/detail/device_profile.hpp>
#include <clprim/detail/kernel_launch.hpp>
#include <clprim/detail/knobs.hpp>
#include <clprim/detail/lookback_slots.hpp>
#include <clprim/detail/primitives_kernels.hpp>
#include <clprim/detail/queue_info.hpp>
#include <clprim/detail/queue_order.hpp>
#include <clprim/detail/scratch_pool.hpp>
#include <clprim/scan.hpp>

#include <algorithm>
#include <cstring>
#include <map>
#include <string>
#include <tuple>
#include <vector>

namespace clprim {
namespace detail {

namespace {

const char* const who = "clprim::copy_if";

std::size_t scan_scratch(std::size_t wg) { return 2 * wg + ((2 * wg) >> 5) + 1; } // WG_SCAN_SCRATCH
std::size_t tile_slots(std::size_t tile) { return tile + ((tile - 1) >> 5); }     // CPY_PAD(tile-1)+1

// Three-pass kernels: 256 work-items (full occupancy, few tiles to scan) and 64 bytes per
// work-item per tile (16 uints / 8 ulongs: enough work per barrier to stay memory-bound).
struct three_pass_kernels {
    bc::kernel count, scatter;
    std::size_t wg = 1, items = 1;
    std::size_t tile() const { return wg * items; }
};

three_pass_kernels make_three_pass(const bc::command_queue& queue, element_type type, const std::string& pred_file)
{
    three_pass_kernels k;
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

// The single-pass kernel and its tile shape (the policy's, lowered to what the kernel and the
// local memory allow).
struct single_pass_kernel {
    bc::kernel kernel;
    std::size_t wg = 1, items = 1;
    copy_if_compact compact = copy_if_compact::gather;
    std::string shape; // "256x16 in_place vec warp": names the launches in kernel profiles
    std::size_t tile() const { return wg * items; }
    // The kept elements' positions (gather only).
    std::size_t idx_bytes() const
    {
        return compact == copy_if_compact::gather ? tile() * sizeof(cl_ushort) : sizeof(cl_ushort);
    }
    // The scan's scratch, and by rows the warps' counts per row and the portable vote's words.
    std::size_t scratch_words() const
    {
        return scan_scratch(wg) + (compact == copy_if_compact::rows ? (items + 1) * (wg / 32) : 0);
    }
};

// What the single pass computes: copy_if (the predicate's kept elements), clprim::unique (the
// first of every run of equal bits: CPY_UNIQUE, no predicate), partition_copy (the kept ones,
// then the others to a second range: CPY_PARTITION).
// partition_in_place: stable_partition of a range that fits one tile (CPY_PARTITION_IN_PLACE: the
// others go right after the kept ones in the same range).
enum class cpy_form { select, unique, partition, partition_in_place };

single_pass_kernel make_single_pass(const bc::command_queue& queue, element_type type, const std::string& pred_file,
                                    const copy_if_policy& policy, cpy_form form)
{
    single_pass_kernel k;
    const std::size_t elem = size_of(type);
    const bc::device device = queue.get_device();
    const device_profile& profile = profile_of(device);
    k.items = policy.items;
    // By rows: work-groups a multiple of 32 (else in place).
    k.compact = policy.compact == copy_if_compact::rows && policy.wg % 32 != 0 ? copy_if_compact::in_place : policy.compact;
    // 16-byte loads: 4- and 8-byte types whose items fill whole vectors (by rows: registers of
    // vectors, CLPRIM_COPY_IF_ROWS_VEC).
    const bool want_vec = k.compact == copy_if_compact::rows ? policy.rows_vec : policy.vec;
    const std::size_t vec = want_vec && (elem == 4 || elem == 8) && k.items % (16 / elem) == 0 ? 16 / elem : 1;
    // NVIDIA: the look-back backs off with PTX nanosleep (lookback.cl); the tile scan by warp
    // shuffles where the policy asks (the work-group size is then kept a multiple of 32).
    const bool shfl = policy.warp_scan && profile.nvidia && policy.wg % 32 == 0;
    const std::string options = type_options(type, "T") + " -DCPY_ITEMS=" + std::to_string(k.items) +
                                " -DCPY_COMPACT=" + std::to_string(int(k.compact)) + " -DCPY_VEC=" + std::to_string(vec) +
                                (shfl ? " -DCPY_SHFL" : "") +
                                (shfl && policy.warp_lookback
                                     ? " -DCPY_WARP_LOOKBACK -DCPY_WALK_READS=" + std::to_string(policy.walk_reads)
                                     : std::string()) +
                                (policy.group_order ? " -DCPY_GROUP_ORDER=1" : "") +
                                (shfl && elem == 4 && vec == 1 && k.compact == copy_if_compact::rows && policy.load_hint
                                     ? " -DCPY_LOAD_HINT=" + std::to_string(policy.load_hint)
                                     : "") +
                                (form == cpy_form::unique ? " -DCPY_UNIQUE -DCPY_UNIQUE_PREV=" + std::to_string(int(policy.unique_prev))
                                 : form == cpy_form::partition ? " -DCPY_PARTITION"
                                 : form == cpy_form::partition_in_place ? " -DCPY_PARTITION -DCPY_PARTITION_IN_PLACE"
                                                                        : "") +
                                (profile.nvidia ? " -DLB_NANOSLEEP" : "") +
                                (profile.nvidia && policy.reg_cap && policy.options.find("maxrregcount") == std::string::npos
                                     ? " -cl-nv-maxrregcount=" + std::to_string(policy.reg_cap)
                                     : "") +
                                lookback_build_options() + policy.options;
    // No predicate file: clprim::unique's form (CPY_UNIQUE: keep where the bits change).
    std::vector<std::string> files{"workgroup_scan.cl", "lookback.cl", "scan_window_lookback.cl", "copy_if_tile.cl",
                                   "copy_if_lookback.cl"};
    if (form != cpy_form::unique) files.insert(files.begin(), pred_file);
    bc::program program = primitives_program(queue.get_context(), files, options);
    k.kernel = program.create_kernel("copy_if_single_pass");
    const auto lim = limits_for(k.kernel, device);
    k.wg = std::max<std::size_t>(1, std::min(policy.wg, lim.max_work_group_size));
    const bool warps = shfl || k.compact == copy_if_compact::rows; // work-groups a multiple of 32
    if (k.wg < policy.wg) k.wg = warps ? std::max<std::size_t>(32, floor_pow2(k.wg)) : floor_pow2(k.wg);
    // Local memory: the tile, the kept elements' positions (ushort; gather only), the scan's
    // scratch, the look-back window (2 x 32 + 6 uints). Tiles of at most 2^16 elements (ushort
    // positions).
    while (k.wg > (warps ? 32u : 1u) &&
           (k.tile() > 65536 || tile_slots(k.tile()) * elem + k.idx_bytes() + k.scratch_words() * 4 + 70 * 4 > lim.local_mem_size))
        k.wg /= 2;
    static const char* const compact_names[] = {" gather", " in_place", " rows"};
    k.shape = std::to_string(k.wg) + "x" + std::to_string(k.items) + compact_names[int(k.compact)] +
              (vec > 1 ? " vec" : "") + (shfl ? " warp" : "") +
              (shfl && policy.warp_lookback
                   ? " warp_lookback" + (policy.walk_reads > 1 ? "x" + std::to_string(policy.walk_reads) : std::string())
                   : std::string()) +
              (policy.group_order ? " group" : "") +
              (form == cpy_form::unique ? (policy.unique_prev ? " unique" : " unique global_prev")
               : form == cpy_form::partition ? " partition"
               : form == cpy_form::partition_in_place ? " partition in_place"
                                                      : "") +
              (policy.load_hint ? " ld" + std::to_string(policy.load_hint) : "");
    return k;
}

// Per host thread (kernel objects carry their arguments), per (context, device, type, predicate,
// and for the single pass the tile shape and build options).
three_pass_kernels& cached_three_pass(const bc::command_queue& queue, element_type type, const std::string& pred_file)
{
    using key = std::tuple<cl_context, cl_device_id, int, std::string>;
    thread_local std::map<key, three_pass_kernels> cache;
    const key k{queue.get_context().get(), queue.get_device().get(), int(type), pred_file};
    auto it = cache.find(k);
    if (it == cache.end()) it = cache.emplace(k, make_three_pass(queue, type, pred_file)).first;
    return it->second;
}

single_pass_kernel& cached_single_pass(const bc::command_queue& queue, element_type type, const std::string& pred_file,
                                       const copy_if_policy& policy, cpy_form form)
{
    using key = std::tuple<cl_context, cl_device_id, int, std::string, std::size_t, std::size_t, int, std::string>;
    thread_local std::map<key, single_pass_kernel> cache;
    const int variant = int(form) * (1 << 24) + int(policy.load_hint) * (1 << 21) + int(policy.unique_prev) * (1 << 20) +
                        int(policy.walk_reads) * 65536 + int(policy.reg_cap) * 64 + int(policy.rows_vec) * 32 +
                        int(policy.warp_lookback) * 16 + int(policy.group_order) * 8 + int(policy.compact) * 4 +
                        int(policy.vec) * 2 + int(policy.warp_scan);
    // The queue's context and device without Boost.Compute's retain and release of each.
    cl_context ctx = nullptr;
    cl_device_id dev = nullptr;
    clGetCommandQueueInfo(queue.get(), CL_QUEUE_CONTEXT, sizeof ctx, &ctx, nullptr);
    clGetCommandQueueInfo(queue.get(), CL_QUEUE_DEVICE, sizeof dev, &dev, nullptr);
    std::string options = lookback_build_options() + policy.options;
    // This thread's last kernel first (a small call's key without building a tuple of strings).
    thread_local const key* last_key = nullptr;
    thread_local single_pass_kernel* last_kernel = nullptr;
    if (last_key && std::get<0>(*last_key) == ctx && std::get<1>(*last_key) == dev && std::get<2>(*last_key) == int(type) &&
        std::get<4>(*last_key) == policy.wg && std::get<5>(*last_key) == policy.items && std::get<6>(*last_key) == variant &&
        std::get<3>(*last_key) == pred_file && std::get<7>(*last_key) == options)
        return *last_kernel;
    key k{ctx, dev, int(type), pred_file, policy.wg, policy.items, variant, std::move(options)};
    auto it = cache.find(k);
    if (it == cache.end()) it = cache.emplace(std::move(k), make_single_pass(queue, type, pred_file, policy, form)).first;
    last_key = &it->first;
    last_kernel = &it->second;
    return it->second;
}

// Where the count goes: a device word (count_result), or scratch the host then reads. out2: the
// second range of partition_copy (cpy_form::partition), else unused.
void run_single_pass(const buffer_range& in, const buffer_range& out, element_type type, const std::string& pred_file,
                     const copy_if_policy& policy, const bc::buffer& count_buffer, std::size_t count_offset,
                     bc::command_queue& queue, cpy_form form = cpy_form::select, const buffer_range* out2 = nullptr)
{
    single_pass_kernel& k = cached_single_pass(queue, type, pred_file, policy, form);
    const std::size_t wg = k.wg, tile = k.tile();
    const std::size_t tiles = ceil_div(in.size, tile);
    // One tile (a small input) looks back at nothing and publishes nothing (the kernel skips
    // both in a launch of one work-group): no status words to take, any buffer stands in.
    const lookback_slots status = tiles > 1 ? take_lookback_slots(queue, 1 + tiles) : lookback_slots{count_buffer, 0};
    profile_label label(k.shape.c_str());
    launch(queue, k.kernel, tiles * wg, wg, in.buffer, cl_ulong(in.offset), cl_ulong(in.size), out.buffer,
        cl_ulong(out.offset), cl_ulong(out.size), out2 ? out2->buffer : out.buffer, cl_ulong(out2 ? out2->offset : 0),
        cl_ulong(out2 ? out2->size : 0), count_buffer, cl_ulong(count_offset), status.buffer, status.epoch,
        local_bytes{tile_slots(tile) * size_of(type)}, local_bytes{k.scratch_words() * sizeof(cl_uint)},
        local_bytes{k.idx_bytes()});
}

// counts (tiles + 1 ulongs) ends up holding each tile's first output slot and, at [tiles], the total.
void run_three_pass(const buffer_range& in, const buffer_range& out, element_type type, const std::string& pred_file,
                    const bc::buffer& counts, bc::command_queue& queue)
{
    three_pass_kernels& k = cached_three_pass(queue, type, pred_file);
    const std::size_t tiles = ceil_div(in.size, k.tile());
    launch(queue, k.count, tiles * k.wg, k.wg, in.buffer, cl_ulong(in.offset), cl_ulong(in.size), counts,
        local_bytes{scan_scratch(k.wg) * sizeof(cl_uint)});
    // counts[g] -> first output slot of tile g; counts[tiles] -> the total.
    const buffer_range c{counts, 0, tiles + 1};
    const cl_ulong zero = 0;
    scan_impl(c, c, element_type::uint64, false, &zero, scan_algorithm::fast, queue);
    launch(queue, k.scatter, tiles * k.wg, k.wg, in.buffer, cl_ulong(in.offset), cl_ulong(in.size), out.buffer,
        cl_ulong(out.offset), cl_ulong(out.size), counts, local_bytes{tile_slots(k.tile()) * size_of(type)},
        local_bytes{scan_scratch(k.wg) * sizeof(cl_uint)});
}

// The zero-copy count word of CLPRIM_COPY_IF_READ=map: per host thread and queue (the queue kept,
// so its handle is not reused), never destroyed (no releases at exit after the runtime is gone).
bc::buffer& zero_copy_word(const bc::command_queue& queue)
{
    struct entry {
        bc::command_queue queue;
        bc::buffer buffer;
    };
    thread_local std::map<cl_command_queue, entry>* words = new std::map<cl_command_queue, entry>;
    entry& e = (*words)[queue.get()];
    if (e.buffer.get() == nullptr) {
        e.buffer = bc::buffer(queue.get_context(), 64, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR);
        e.queue = queue;
    }
    return e.buffer;
}

std::size_t three_pass_tiles(const bc::command_queue& queue, element_type type, const std::string& pred_file,
                             std::size_t n)
{
    return ceil_div(n, cached_three_pass(queue, type, pred_file).tile());
}

// Whether a_len elements of a_elem bytes from a and b_len of b_elem bytes from b share a byte.
bool overlaps(const buffer_range& a, std::size_t a_len, std::size_t a_elem, const buffer_range& b, std::size_t b_len,
              std::size_t b_elem)
{
    return a_len > 0 && b_len > 0 && a.buffer.get() == b.buffer.get() && a.offset * a_elem < (b.offset + b_len) * b_elem &&
           b.offset * b_elem < (a.offset + a_len) * a_elem;
}

// How the count comes back for a copy_if_read (map is handled by its caller).
result_read result_read_of(copy_if_read read)
{
    return read == copy_if_read::plain          ? result_read::plain
           : read == copy_if_read::finish       ? result_read::finish
           : read == copy_if_read::async        ? result_read::async
           : read == copy_if_read::flush_pinned ? result_read::flush_pinned
           : read == copy_if_read::flush_async  ? result_read::flush_async
           : read == copy_if_read::spin         ? result_read::spin
                                                : result_read::pinned;
}

// Checks what can be checked before anything is enqueued (the output may be written anywhere in
// [out.offset, out.offset + min(n, room))).
void check_ranges(const buffer_range& in, const buffer_range& out, element_type type, const buffer_range* count)
{
    const std::size_t reach = std::min(in.size, out.size), elem = size_of(type), word = sizeof(cl_ulong);
    if (overlaps(in, in.size, elem, out, reach, elem))
        throw invalid_argument_error("clprim::copy_if: the result range overlaps the input");
    if (count && (overlaps(*count, 1, word, in, in.size, elem) || overlaps(*count, 1, word, out, reach, elem)))
        throw invalid_argument_error("clprim::copy_if: count_result overlaps the input or the result");
}

} // namespace

std::size_t copy_if_impl(const buffer_range& in, const buffer_range& out, element_type type,
                         const std::string& pred_file, bc::command_queue& user_queue)
{
    check_ranges(in, out, type, nullptr);
    require_type_support(type, user_queue, who);
    if (in.size == 0) return 0;

    cl_ulong total = 0;
    in_order_scope scope(user_queue); // in order on out-of-order queues too (queue_order.hpp)
    bc::command_queue& queue = scope.queue();
    guarded(who, [&] {
        // The queue's context and profile without a driver query (queue_info.hpp).
        const queue_info& info = info_of(queue);
        const bc::context context = info.context;
        const device_profile& profile = *info.profile;
        // One work-group (copy_if_small.cl): the count into this thread's word, read back as
        // reduce's value is on GPUs (a flush, a non-blocking read with an event, a flush, the host
        // polls the event) unless CLPRIM_COPY_IF_READ says otherwise.
        if (in.size <= copy_if_small_max(profile)) {
            const bool knob_read = knobs_with_prefix("CLPRIM_COPY_IF_") && knob_text("CLPRIM_COPY_IF_READ");
            const copy_if_read read =
                knob_read ? select_copy_if_policy(profile, size_of(type), in.size).read : copy_if_read::flush_async;
            const bc::buffer& count = result_device_word(context);
            if (copy_if_small_launch(in, out, type, pred_file, count, 0, true, queue)) {
                if (profile.is_gpu() && !knob_read) read_value(context, queue, count, 0, sizeof total, &total, value_read::flush_spin);
                else read_result_word(queue, count, sizeof total, &total, result_read_of(read));
                return;
            }
        }
        const copy_if_policy policy = select_copy_if_policy(profile, size_of(type), in.size);
        if (policy.path == copy_if_path::single_pass && policy.read == copy_if_read::map) {
            bc::buffer& word = zero_copy_word(queue);
            run_single_pass(in, out, type, pred_file, policy, word, 0, queue);
            void* p = queue.enqueue_map_buffer(word, CL_MAP_READ, 0, sizeof total); // waits for the kernel
            std::memcpy(&total, p, sizeof total);
            queue.enqueue_unmap_buffer(word, p);
            return;
        }
        if (policy.path == copy_if_path::single_pass) {
            const bc::buffer& count = result_device_word(queue.get_context());
            run_single_pass(in, out, type, pred_file, policy, count, 0, queue);
            // The one wait, as the policy says (copy_if_read; map is handled above).
            read_result_word(queue, count, sizeof total, &total, result_read_of(policy.read));
            return;
        }
        const std::size_t tiles = three_pass_tiles(queue, type, pred_file, in.size);
        scratch_lease lease(queue);
        const bc::buffer counts = lease.buffer((tiles + 1) * sizeof(cl_ulong));
        run_three_pass(in, out, type, pred_file, counts, queue);
        queue.enqueue_read_buffer(counts, tiles * sizeof(cl_ulong), sizeof total, &total);
    });
    if (total > out.size)
        throw invalid_argument_error("clprim::copy_if: " + std::to_string(total) + " elements pass but the result has room for " +
                                     std::to_string(out.size));
    return std::size_t(total);
}

void copy_if_count_impl(const buffer_range& in, const buffer_range& out, element_type type,
                        const std::string& pred_file, const buffer_range& count, bc::command_queue& user_queue)
{
    check_ranges(in, out, type, &count);
    require_type_support(type, user_queue, who);
    in_order_scope scope(user_queue); // in order on out-of-order queues too (queue_order.hpp)
    bc::command_queue& queue = scope.queue();
    guarded(who, [&] {
        if (in.size == 0) {
            const cl_ulong zero = 0;
            queue.enqueue_fill_buffer(count.buffer, &zero, sizeof zero, count.offset * sizeof zero, sizeof zero);
            return;
        }
        const device_profile& profile = *info_of(queue).profile; // no driver query (queue_info.hpp)
        if (in.size <= copy_if_small_max(profile) &&
            copy_if_small_launch(in, out, type, pred_file, count.buffer, count.offset, false, queue))
            return;
        const copy_if_policy policy = select_copy_if_policy(profile, size_of(type), in.size);
        if (policy.path == copy_if_path::single_pass) {
            run_single_pass(in, out, type, pred_file, policy, count.buffer, count.offset, queue);
            return;
        }
        const std::size_t tiles = three_pass_tiles(queue, type, pred_file, in.size);
        scratch_lease lease(queue);
        const bc::buffer counts = lease.buffer((tiles + 1) * sizeof(cl_ulong));
        run_three_pass(in, out, type, pred_file, counts, queue);
        queue.enqueue_copy_buffer(counts, count.buffer, tiles * sizeof(cl_ulong), count.offset * sizeof(cl_ulong),
                                  sizeof(cl_ulong));
    });
}

void copy_if_unique_launch(const buffer_range& in, const buffer_range& out, element_type type,
                           const bc::buffer& count_buffer, std::size_t count_offset, bc::command_queue& queue)
{
    // One work-group where it holds the range (copy_if_small.cl).
    if (in.size <= copy_if_small_max(*info_of(queue).profile) &&
        copy_if_small_launch(in, out, type, std::string(), count_buffer, count_offset, false, queue, small_form::unique))
        return;
    copy_if_policy policy = select_copy_if_policy(profile_of(queue.get_device()), size_of(type), in.size, true);
    policy.path = copy_if_path::single_pass;
    if (const auto u = knob_choice("CLPRIM_UNIQUE_PREV", {"global", "registers"})) policy.unique_prev = *u == 1;
    run_single_pass(in, out, type, std::string(), policy, count_buffer, count_offset, queue, cpy_form::unique);
}

void copy_if_partition_launch(const buffer_range& in, const buffer_range& out1, const buffer_range& out2,
                              element_type type, const std::string& pred_file, const bc::buffer& count_buffer,
                              std::size_t count_offset, bc::command_queue& queue)
{
    // One work-group where it holds the range (copy_if_small.cl).
    if (in.size <= copy_if_small_max(*info_of(queue).profile) &&
        copy_if_small_launch(in, out1, type, pred_file, count_buffer, count_offset, false, queue, small_form::partition,
                             &out2))
        return;
    copy_if_policy policy = select_copy_if_policy(profile_of(queue.get_device()), size_of(type), in.size, true);
    policy.path = copy_if_path::single_pass;
    run_single_pass(in, out1, type, pred_file, policy, count_buffer, count_offset, queue, cpy_form::partition, &out2);
}

bool copy_if_partition_in_place(const buffer_range& range, element_type type, const std::string& pred_file,
                                const bc::buffer& count_buffer, std::size_t count_offset, bc::command_queue& queue)
{
    copy_if_policy policy = select_copy_if_policy(profile_of(queue.get_device()), size_of(type), range.size, true);
    policy.path = copy_if_path::single_pass;
    // (The kernel's tile is at most the policy's: larger ranges build nothing here.)
    if (range.size == 0 || range.size > policy.wg * policy.items ||
        range.size > cached_single_pass(queue, type, pred_file, policy, cpy_form::partition_in_place).tile())
        return false;
    run_single_pass(range, range, type, pred_file, policy, count_buffer, count_offset, queue, cpy_form::partition_in_place,
                    &range);
    return true;
}

void copy_if_partition_back(const buffer_range& range, element_type type, const bc::buffer& tmp,
                            const bc::buffer& count_buffer, std::size_t count_offset, bc::command_queue& queue)
{
    using key = std::tuple<cl_context, cl_device_id, int>;
    thread_local std::map<key, bc::kernel> cache;
    const key k{queue.get_context().get(), queue.get_device().get(), int(type)};
    auto it = cache.find(k);
    if (it == cache.end()) {
        bc::program program =
            primitives_program(queue.get_context(), {"copy_if_partition.cl"}, type_options(type, "T") + " -DCPB_ITEMS=4");
        it = cache.emplace(k, program.create_kernel("copy_if_partition_back")).first;
    }
    const std::size_t wg = 256, per_group = wg * 4;
    launch(queue, it->second, ceil_div(range.size, per_group) * wg, wg, range.buffer, cl_ulong(range.offset),
           cl_ulong(range.size), tmp, count_buffer, cl_ulong(count_offset));
}

bool partition_takes_copy_if(const device_profile& profile)
{
    if (const auto forced = knob_choice("CLPRIM_PARTITION_PATH", {"by_key", "copy_if"})) return *forced == 1;
    // Devices that take copy_if's single pass (not CPUs: there the by-key family's chunks).
    return !profile.is_cpu();
}

bool unique_takes_copy_if(const device_profile& profile)
{
    if (const auto forced = knob_choice("CLPRIM_UNIQUE_PATH", {"by_key", "copy_if"})) return *forced == 1;
    // Devices that take copy_if's single pass (not CPUs: there the by-key family's chunks).
    return !profile.is_cpu();
}

} // namespace detail
} // namespace clprim
