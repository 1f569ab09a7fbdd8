// Device-wide inclusive and exclusive scans (kernels in scan.cl, work-group scans in
// workgroup_scan.cl), of sums or of a user's operator (a generated source joined in front,
// clprim/detail/operator_source.hpp: one cached program per operator source).
#include "scan_layout.cl"
#include "scan_policy.hpp"

#include <clprim/detail/device_limits.hpp>
#include <clprim/detail/kernel_cache.hpp>
#include <clprim/detail/kernel_launch.hpp>
#include <clprim/detail/device_profile.hpp>
#include <clprim/detail/knobs.hpp>
#include <clprim/detail/lookback_slots.hpp>
#include <clprim/detail/scratch_pool.hpp>
#include <clprim/detail/primitives_kernels.hpp>
#include <clprim/detail/queue_info.hpp>
#include <clprim/scan.hpp>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <map>
#include <tuple>
#include <string>
#include <vector>

namespace clprim {
namespace detail {

namespace {

constexpr cl_uint flag_inclusive = 1, flag_use_offsets = 2, flag_write_sums = 4;

// The look-back kernel's arguments as last set: the scalars, init and the status buffer are set
// again only when they change (each clSetKernelArg is a driver call; H100: 0.6-2.2 us for seven
// arguments a launch beside a launch of 4-8 us, docs/RESULTS.md "#27 (s5-small)"). The caller's
// buffers and the epoch are set at every call; the status buffer is held here, so that its handle
// names no other buffer while it is compared.
struct lookback_args {
    bool valid = false;
    cl_ulong in_offset = 0, out_offset = 0, n = 0;
    cl_uint inclusive = 0;
    unsigned char init[8] = {};
    bc::buffer status;
    std::size_t local0 = 0, local1 = 0;
};

struct scan_kernels {
    bc::kernel scan_tiles, scan_single, reduce_tiles, add_tile_offsets, reduce_chunks, scan_chunks, scan_lookback;
    lookback_args lookback_set; // scan_lookback's (the kernels are this host thread's)
    const device_profile* profile = nullptr; // profile_of(the queue's device)
    std::size_t compute_units = 1;
    std::size_t wg = 1;         // work-group size of the multi-pass kernels
    std::size_t lookback_wg = 1; // work-group size of scan_lookback (its own limits only)
    std::size_t items = 1;      // elements per work-item
    std::string lookback_shape; // "256x32": names the look-back launches in kernel profiles
    std::size_t elem = 4;       // bytes per element
    unsigned char identity[8] = {}; // the operator's identity (elem bytes): 0 for the sum
    std::size_t tile() const { return wg * items; }
};

// The operator a scan combines with: the sum (file empty), or a generated source defining
// CLPRIM_OP and CLPRIM_IDENTITY; ordered: it may not commute (reduce_tiles then keeps order).
struct scan_op {
    std::string file;
    bool ordered = false;
    const void* identity = nullptr; // elem bytes; null for the sum
};

std::size_t scratch_elements(std::size_t wg) { return 2 * wg + ((2 * wg) >> 5) + 1; } // WG_SCAN_SCRATCH
std::size_t tile_slots(std::size_t tile) { return SCAN_TILE_SLOTS(tile); }

// CLPRIM_SCAN_OPTIONS: extra build options of the scan programs, for measurements (e.g.
// -DLB_WINDOW=64, -DSCAN_REREAD=0, -DSCAN_FULL_TILES=0, -cl-nv-maxrregcount=48).
std::string extra_options() { return knob_options("CLPRIM_SCAN_OPTIONS"); }


scan_kernels make_kernels(const bc::command_queue& queue, element_type type, scan_algorithm algorithm,
                          const scan_op& op)
{
    scan_kernels k;
    k.elem = size_of(type);
    if (op.identity) std::memcpy(k.identity, op.identity, k.elem);
    // 16 uints or 8 ulongs (64 bytes) per work-item: enough work per barrier to keep the kernel
    // bound by memory, while a 256-item tile still fits local memory several times per SM.
    const device_profile& profile = profile_of(queue.get_device());
    k.items = scan_items(profile, k.elem);
    const int wg_algo = algorithm == scan_algorithm::hillis_steele ? 0 : algorithm == scan_algorithm::blelloch ? 1 : 2;
    const std::string extra = extra_options();
    const bool nvidia = profile.nvidia;
    // NVIDIA: the look-back backs off with PTX nanosleep (lookback.cl); registers are capped.
    std::string options = type_options(type, "T") + " -DSCAN_ITEMS=" + std::to_string(k.items) +
                          " -DSCAN_WG=" + std::to_string(wg_algo) + (nvidia ? " -DLB_NANOSLEEP" : "") +
                          lookback_build_options() +
                          (op.ordered ? " -DSCAN_ORDERED=1" : "") + (op.file.empty() ? "" : scan_user_op_options());
    const std::size_t cap = scan_register_cap(profile, k.elem, !op.file.empty());
    if (extra.find("maxrregcount") == std::string::npos && cap > 0) options += " -cl-nv-maxrregcount=" + std::to_string(cap);
    options += extra;
    const bc::context context = queue.get_context();
    std::vector<std::string> files{"workgroup_scan.cl", "scan_layout.cl", "scan.cl", "lookback.cl", "scan_window_lookback.cl",
                                   "scan_lookback.cl"};
    if (!op.file.empty()) files.insert(files.begin(), op.file);
    bc::program program = primitives_program(context, files, options);
    k.scan_tiles = program.create_kernel("scan_tiles");
    k.scan_single = program.create_kernel("scan_single");
    k.reduce_chunks = program.create_kernel("reduce_chunks");
    k.scan_chunks = program.create_kernel("scan_chunks");
    k.reduce_tiles = program.create_kernel("reduce_tiles");
    k.add_tile_offsets = program.create_kernel("add_tile_offsets");
    k.scan_lookback = program.create_kernel("scan_lookback");

    const bc::device device = queue.get_device();
    const auto lim_scan = limits_for(k.scan_tiles, device);
    const auto lim_reduce = limits_for(k.reduce_tiles, device);
    const auto lim_add = limits_for(k.add_tile_offsets, device);
    const auto lim_single = limits_for(k.scan_single, device);
    const auto lim_lookback = limits_for(k.scan_lookback, device);
    k.profile = &profile;
    k.compute_units = std::max<std::size_t>(1, lim_scan.compute_units);
    const std::size_t max_wg = std::min({lim_scan.max_work_group_size, lim_reduce.max_work_group_size,
                                         lim_add.max_work_group_size, lim_single.max_work_group_size,
                                         lim_lookback.max_work_group_size});
    // 256 items: full occupancy on GPUs with small register files per item, and a tile large
    // enough that the scan of tile totals is a tiny fraction of the work.
    k.wg = floor_pow2(std::max<std::size_t>(1, std::min<std::size_t>(256, max_wg)));
    while (k.wg > 1 && (tile_slots(k.tile()) + scratch_elements(k.wg)) * k.elem > lim_scan.local_mem_size)
        k.wg /= 2;
    // The look-back kernel runs alone: only its own limits bound its work-group (a smaller group
    // means twice the tiles to chain, which costs the look-back scan a third at 2^26).
    k.lookback_wg = floor_pow2(std::max<std::size_t>(1, std::min<std::size_t>(256, lim_lookback.max_work_group_size)));
    while (k.lookback_wg > 1 &&
           (tile_slots(k.lookback_wg * k.items) + scratch_elements(k.lookback_wg)) * k.elem > lim_lookback.local_mem_size)
        k.lookback_wg /= 2;
    k.lookback_shape = std::to_string(k.lookback_wg) + "x" + std::to_string(k.items);
    return k;
}

// The kernels for (context, device, type, algorithm, operator), made once per host thread: kernel objects
// carry their arguments, so threads must not share them, and making them (program lookup, kernel
// creation, limit queries) would otherwise cost tens of microseconds per call. The cached
// kernels keep their context alive, so a key's handles cannot be reused by another context.
scan_kernels& cached_kernels(const bc::command_queue& queue, element_type type, scan_algorithm algorithm,
                             const scan_op& op)
{
    // The generated file's name is a hash of the operator's text, identity included.
    using key = std::tuple<cl_context, cl_device_id, int, int, std::string, bool, std::size_t, std::string>;
    const queue_info& info = info_of(queue); // no driver query on the thread's last queues
    const key k{info.context.get(), info.device.id(), int(type), int(algorithm), op.file, op.ordered,
                scan_items(*info.profile, size_of(type)), extra_options() + lookback_build_options()};
    return per_thread_kernels<scan_kernels>(k, [&] { return make_kernels(queue, type, algorithm, op); });
}

// Scans n elements from (in, in_off) into (out, out_off); init is used by an exclusive scan.
// aux from aux_off on has room for the tile sums of this level and the levels below.
void scan_level(scan_kernels& k, bc::command_queue& queue, const bc::buffer& in, std::size_t in_off,
                const bc::buffer& out, std::size_t out_off, std::size_t n, bool inclusive, const void* init,
                scan_algorithm algorithm, const bc::buffer& aux, std::size_t aux_off)
{
    const std::size_t tile = k.tile();
    const std::size_t tiles = ceil_div(n, tile);
    const cl_uint incl = inclusive ? flag_inclusive : 0;
    const unsigned char* identity = k.identity; // where a tile scan starts when no offset is given

    auto run_scan = [&](cl_uint flags, const void* start) {
        bc::kernel& s = k.scan_tiles;
        // aux twice: offsets (read) or sums (written) from aux_off, as flags say
        launch(queue, s, tiles * k.wg, k.wg, in, cl_ulong(in_off), out, cl_ulong(out_off), cl_ulong(n), aux, aux,
            cl_ulong(aux_off), flags, raw_value{k.elem, start}, local_bytes{tile_slots(tile) * k.elem},
            local_bytes{scratch_elements(k.wg) * k.elem});
    };

    if (tiles <= scan_single_group_tiles) {
        bc::kernel& s1 = k.scan_single;
        launch(queue, s1, k.wg, k.wg, in, cl_ulong(in_off), out, cl_ulong(out_off), cl_ulong(n), incl,
            raw_value{k.elem, init}, local_bytes{tile_slots(tile) * k.elem},
            local_bytes{scratch_elements(k.wg) * k.elem});
        return;
    }

    // One total per tile at aux_off, scanned (exclusive, from init) in place by the next level.
    const std::size_t next_off = aux_off + tiles;
    if (algorithm == scan_algorithm::fast) {
        bc::kernel& r = k.reduce_tiles;
        launch(queue, r, tiles * k.wg, k.wg, in, cl_ulong(in_off), cl_ulong(n), aux, cl_ulong(aux_off),
            local_bytes{scratch_elements(k.wg) * k.elem});
        scan_level(k, queue, aux, aux_off, aux, aux_off, tiles, false, init, algorithm, aux, next_off);
        run_scan(incl | flag_use_offsets, identity);
    } else {
        run_scan(incl | flag_write_sums, identity);
        scan_level(k, queue, aux, aux_off, aux, aux_off, tiles, false, init, algorithm, aux, next_off);
        bc::kernel& a = k.add_tile_offsets;
        launch(queue, a, tiles * k.wg, k.wg, out, cl_ulong(out_off), cl_ulong(n), aux, cl_ulong(aux_off),
            cl_uint(tile));
    }
}

// One launch: tiles take their index from a counter in status[0] and chain through look-back.
void scan_single_pass(scan_kernels& k, bc::command_queue& queue, const buffer_range& in, const buffer_range& out,
                      bool inclusive, const void* init)
{
    const std::size_t wg = k.lookback_wg, tile = wg * k.items;
    const std::size_t tiles = ceil_div(in.size, tile);
    // The counter and the slots, kept for this queue and tagged with this call's epoch: no
    // clearing command before the kernel (clprim/detail/lookback_slots.hpp).
    const lookback_slots status = take_lookback_slots(queue, 1 + tiles * (k.elem <= 4 ? 1 : 2));
    bc::kernel& s = k.scan_lookback;
    profile_label label(k.lookback_shape.c_str());
    lookback_args& last = k.lookback_set;
    const bool all = !last.valid;
    last.valid = false; // until every argument below is set (a throw leaves them unknown)
    const cl_uint incl = inclusive ? 1 : 0;
    const std::size_t local0 = tile_slots(tile) * k.elem, local1 = scratch_elements(wg) * k.elem;
    set_kernel_args_from(s, 0, in.buffer);
    if (all || last.in_offset != in.offset) set_kernel_args_from(s, 1, cl_ulong(in.offset));
    set_kernel_args_from(s, 2, out.buffer);
    if (all || last.out_offset != out.offset) set_kernel_args_from(s, 3, cl_ulong(out.offset));
    if (all || last.n != in.size) set_kernel_args_from(s, 4, cl_ulong(in.size));
    if (all || last.inclusive != incl) set_kernel_args_from(s, 5, incl);
    if (all || std::memcmp(last.init, init, k.elem) != 0) set_kernel_args_from(s, 6, raw_value{k.elem, init});
    if (all || last.status.get() != status.buffer.get()) set_kernel_args_from(s, 7, status.buffer);
    set_kernel_args_from(s, 8, status.epoch);
    if (all || last.local0 != local0) set_kernel_args_from(s, 9, local_bytes{local0});
    if (all || last.local1 != local1) set_kernel_args_from(s, 10, local_bytes{local1});
    last.in_offset = in.offset;
    last.out_offset = out.offset;
    last.n = in.size;
    last.inclusive = incl;
    std::memcpy(last.init, init, k.elem);
    last.status = status.buffer;
    last.local0 = local0;
    last.local1 = local1;
    last.valid = true;
    launch_1d(queue, s, tiles * wg, wg);
}

// Checks the arguments, then scans with op (the sum, or a generated operator).
void run_scan(const buffer_range& in, const buffer_range& out, element_type type, bool inclusive,
              const void* init, scan_algorithm algorithm, const scan_op& op, bc::command_queue& queue)
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
        require_type_support(type, queue, who);
        if (in.size == 0) return;
        scan_kernels& k = cached_kernels(queue, type, algorithm, op);
        const scan_path path = select_scan_path(*k.profile, algorithm);
        if (path == scan_path::lookback) {
            scan_single_pass(k, queue, in, out, inclusive, init); // inclusive: init is the identity
            return;
        }
        if (path == scan_path::chunks) {
            // A CPU is quickest with a few long sequential runs: one work-item per chunk, a
            // handful of chunks per core, two passes and no barriers.
            const std::size_t n = in.size;
            const std::size_t chunks = std::max<std::size_t>(1, std::min(ceil_div(n, 4096), 4 * k.compute_units));
            const std::size_t chunk = ceil_div(n, chunks);
            scratch_lease scratch(queue); // the partial sums, reused from the last call on this queue
            const bc::buffer aux = scratch.buffer(chunks * k.elem);
            bc::kernel& r = k.reduce_chunks;
            launch(queue, r, chunks, 1, in.buffer, cl_ulong(in.offset), cl_ulong(n), cl_ulong(chunk), aux);
            bc::kernel& c = k.scan_chunks;
            launch(queue, c, chunks, 1, in.buffer, cl_ulong(in.offset), out.buffer, cl_ulong(out.offset), cl_ulong(n),
                cl_ulong(chunk), aux, inclusive ? flag_inclusive : cl_uint(0), raw_value{k.elem, init});
            return;
        }
        // Room for the tile sums of every level.
        std::size_t aux_size = 0;
        for (std::size_t m = ceil_div(in.size, k.tile()); m > scan_single_group_tiles; m = ceil_div(m, k.tile()))
            aux_size += m;
        scratch_lease scratch(queue); // the tile sums, reused from the last call on this queue
        const bc::buffer aux = scratch.buffer(aux_size * k.elem);
        scan_level(k, queue, in.buffer, in.offset, out.buffer, out.offset, in.size, inclusive, init, algorithm,
                   aux, 0);
    });
}

} // namespace

void scan_impl(const buffer_range& in, const buffer_range& out, element_type type, bool inclusive,
               const void* init, scan_algorithm algorithm, bc::command_queue& user_queue)
{
    in_order_scope scope(user_queue); // in order on out-of-order queues too (queue_order.hpp)
    run_scan(in, out, type, inclusive, init, algorithm, scan_op{}, scope.queue());
}

void scan_generated_impl(const buffer_range& in, const buffer_range& out, element_type type, bool inclusive,
                         const void* init, const std::string& op_file, bool commutative, const void* identity,
                         bc::command_queue& user_queue)
{
    in_order_scope scope(user_queue); // in order on out-of-order queues too (queue_order.hpp)
    if (identity == nullptr) throw invalid_argument_error("clprim::scan: identity is null");
    scan_op op;
    op.file = op_file;
    op.ordered = !commutative;
    op.identity = identity;
    run_scan(in, out, type, inclusive, init, scan_algorithm::fast, op, scope.queue());
}

} // namespace detail
} // namespace clprim
