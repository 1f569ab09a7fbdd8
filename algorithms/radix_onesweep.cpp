// Host side of the one-sweep radix sort (radix_onesweep.cl, radix_onesweep_pass.cl): one histogram
// launch, then one launch per 8-bit digit (and portion), no clearing command (the status words
// stay with the queue) and no host round trip: the call returns while the device works.
//
// More keys than a look-back slot counts (2^30 - 1): the keys are sorted in portions, as CUB's
// one-sweep sort does (2^28 keys a launch there), not with wider status words. A pass runs one
// launch per portion, in order on the queue; tiles are numbered and chained within their portion,
// and the portion's last tile, which knows each digit's count in the portion when its look-back
// ends, writes the next portion's digit starts into the status words, where the next launch reads
// them. Wider slots would cost every pass at every size (a 64-bit slot per digit and tile doubles
// the look-back's traffic, and a value published with its flag in one word needs 64-bit atomics
// that OpenCL 1.2 does not promise: lookback.cl); portions cost one launch per portion and pass
// (3 portions at 2^31 keys) and nothing below 2^30 keys, where the kernel is built without them.
#include "radix_onesweep.hpp"
#include "radix_onesweep_layout.cl"
#include "radix_policy.hpp"
#include "sort_support.hpp"

#include <clprim/detail/lookback_slots.hpp>

#include <clprim/detail/algorithms_kernels.hpp>
#include <clprim/detail/device_limits.hpp>
#include <clprim/detail/device_profile.hpp>
#include <clprim/detail/kernel_cache.hpp>
#include <clprim/detail/kernel_launch.hpp>
#include <clprim/detail/knobs.hpp>
#include <clprim/detail/queue_state.hpp>
#include <clprim/detail/scratch_pool.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

namespace clprim {
namespace detail {

namespace {

constexpr unsigned radix_bits = onesweep_radix_bits;
constexpr std::size_t radix = std::size_t(1) << radix_bits;
constexpr std::size_t histogram_keys = ONESWEEP_HIST_KEYS; // keys per work-item per round of onesweep_histogram (HIST_KEYS)

std::optional<std::string> trace_path() { return onesweep_trace_path(); }
constexpr std::size_t trace_words = 2 * ONESWEEP_TRACE_WORDS; // uints per tile and pass

struct onesweep_kernels {
    bc::kernel histogram, pass;
    std::size_t wg = 0, kpt = 0, histogram_groups = 0, histogram_rounds = 1;
    bc::kernel counting_fill = bc::kernel(); // 8-bit keys alone (radix_counting.cl)
    std::size_t tile() const { return wg * kpt; }
};

std::string program_options(const sort_request& r, std::size_t wg, std::size_t kpt, std::size_t passes,
                            onesweep_ranking ranking, bool portions, const std::string& extra = std::string())
{
    std::string o = type_options(r.key_type, "K") + " -DWG=" + std::to_string(wg) + " -DKPT=" + std::to_string(kpt) +
                    " -DRADIX_BITS=" + std::to_string(radix_bits) + " -DWARP_RANK_BITS=" + std::to_string(radix_bits) + " -DPASSES=" + std::to_string(passes) +
                    " -DHIST_KEYS=" + std::to_string(histogram_keys);
    if (portions) o += " -DONESWEEP_PORTIONS";
    if (r.order == sort_order::descending) o += " -DSORT_DESCENDING";
    if (r.has_values)
        o += std::string(" -DHAS_VALUES -DV=") + bits_name(r.value_type) + " -DV_BYTES=" + std::to_string(size_of(r.value_type));
    if (ranking == onesweep_ranking::match_any) o += " -DMATCH_RANK -DWARP_RANK_VOTES -DLB_NANOSLEEP"; // NVIDIA: PTX in both
    return o + extra;
}

const std::vector<std::string>& program_files()
{
    static const std::vector<std::string> files{"sort_key_order.cl", "workgroup_scan.cl", "lookback.cl",
                                                "radix_onesweep_layout.cl", "radix_onesweep.cl", "warp_rank.cl", "radix_onesweep_pass.cl",
                                                "radix_counting.cl"};
    return files;
}

// The program with the policy's tile, or with fewer keys per work-item where the pass kernel asks
// more local memory than the device has (pairs with wide values): the size comes from the built
// kernel (CL_KERNEL_LOCAL_MEM_SIZE), not from a count of its arrays. It grows by the same bytes
// per key per work-item, so two small builds give the most keys that fit; a build the compiler
// refuses (NVIDIA's does where the local memory is too much) counts as too large.
bc::program build_program(const bc::command_queue& queue, const sort_request& r, const onesweep_policy& t,
                          onesweep_ranking ranking, bool portions, std::size_t& kpt)
{
    const bc::device device = queue.get_device();
    const std::size_t passes = size_of(r.key_type) * 8 / radix_bits;
    const std::size_t local_mem = device.local_memory_size();
    const std::string extra =
        t.extra_options + (r.has_values ? " -DV_PIECE_BYTES=" + std::to_string(t.value_piece) : std::string());
    // The program at k keys per work-item and its pass kernel's local memory (0: refused).
    auto build = [&](std::size_t k, bc::program& program) -> cl_ulong {
        try {
            program = algorithms_program(queue.get_context(), program_files(),
                                         program_options(r, t.wg, k, passes, ranking, portions, extra));
            return program.create_kernel("onesweep_pass").get_work_group_info<cl_ulong>(device, CL_KERNEL_LOCAL_MEM_SIZE);
        } catch (const build_error&) {
            if (k == 1) throw;
            return 0;
        }
    };
    bc::program program;
    const cl_ulong bytes = build(kpt, program);
    if (bytes != 0 && bytes <= local_mem) return program;
    bc::program one, two;
    const cl_ulong at1 = build(1, one), at2 = kpt > 2 ? build(2, two) : 0;
    const cl_ulong per_kpt = at2 > at1 ? at2 - at1 : 1, fixed = at1 - std::min(at1, per_kpt);
    std::size_t most = local_mem > fixed ? std::size_t((local_mem - fixed) / per_kpt) : 1;
    for (kpt = std::max<std::size_t>(1, std::min(kpt - 1, most)); kpt > 2; --kpt) {
        const cl_ulong b = build(kpt, program);
        if (b != 0 && b <= local_mem) return program;
    }
    if (kpt == 2 && at2 != 0 && at2 <= local_mem) return two;
    kpt = 1;
    return one;
}

onesweep_kernels make_kernels(const bc::command_queue& queue, const sort_request& r, onesweep_ranking ranking, bool portions)
{
    const bc::device device = queue.get_device();
    const onesweep_policy t = select_onesweep_policy(profile_of(device), r);
    const std::size_t passes = size_of(r.key_type) * 8 / radix_bits;
    std::size_t kpt = t.kpt;
    const bc::program program = build_program(queue, r, t, ranking, portions, kpt);
    onesweep_kernels k{program.create_kernel("onesweep_histogram"), program.create_kernel("onesweep_pass"), t.wg, kpt, 0};
    const auto lh = limits_for(k.histogram, device);
    const auto lp = limits_for(k.pass, device);
    if (lh.max_work_group_size < t.wg || lp.max_work_group_size < t.wg)
        throw unsupported_error("clprim::radix_sort: device '" + device.name() + "' runs fewer than " +
                                std::to_string(t.wg) + " work-items per group for the one-sweep kernels (histogram " +
                                std::to_string(lh.max_work_group_size) + ", pass " +
                                std::to_string(lp.max_work_group_size) + ")");
    k.histogram_groups = std::max<std::size_t>(1, lh.compute_units) * t.histogram_groups_per_cu;
    k.histogram_rounds = t.histogram_rounds;
    if (passes == 1 && !r.has_values) k.counting_fill = program.create_kernel("onesweep_counting_fill");
    return k;
}

// Kernels per (context, device, key type, value type, order, ranking), made once per host thread
// (kernel objects carry their arguments, so threads must not share them).
onesweep_kernels& cached_kernels(const bc::command_queue& queue, const sort_request& r, const onesweep_policy& t,
                                 onesweep_ranking ranking, bool portions)
{
    using key = std::tuple<cl_context, cl_device_id, int, int, int, int, bool, std::size_t, std::size_t, std::string>;
    const key k{queue.get_context().get(), queue.get_device().get(), int(r.key_type),
                r.has_values ? int(r.value_type) : -1, int(r.order), int(ranking), portions, t.wg, t.kpt,
                t.extra_options + "/" + std::to_string(t.histogram_rounds) + "/" + std::to_string(t.histogram_groups_per_cu) +
                    "/" + std::to_string(t.value_piece)};
    return per_thread_kernels<onesweep_kernels>(k, [&] { return make_kernels(queue, r, ranking, portions); });
}

} // namespace

bool onesweep_match_any_available(const bc::command_queue& queue)
{
    const bc::device device = queue.get_device();
    if (!profile_of(device).nvidia) return false;
    static std::mutex mutex;
    static std::map<cl_device_id, bool> known;
    {
        std::lock_guard<std::mutex> lock(mutex);
        auto it = known.find(device.id());
        if (it != known.end()) return it->second;
    }
    // Build the smallest instance of the kernels with inline PTX: if the compiler refuses, the
    // portable ranking runs instead.
    bool ok = true;
    try {
        sort_request probe;
        probe.key_type = element_type::uint32;
        algorithms_program(queue.get_context(), program_files(),
                           program_options(probe, 256, 1, 4, onesweep_ranking::match_any, false));
    } catch (const build_error&) {
        ok = false;
    }
    std::lock_guard<std::mutex> lock(mutex);
    known[device.id()] = ok;
    return ok;
}

namespace {

// The queue is the call's in-order queue (queue_order.cpp), so the read follows the passes.
void write_trace(const char* path, bc::command_queue& queue, const bc::buffer& status, std::size_t trace_at,
                 std::size_t passes, std::size_t tiles, const sort_request& r)
{
    static std::mutex mutex;
    static unsigned calls = 0;
    std::lock_guard<std::mutex> lock(mutex);
    std::vector<cl_ulong> rec(passes * tiles * trace_words / 2);
    queue.enqueue_read_buffer(status, trace_at * sizeof(cl_uint), rec.size() * sizeof(cl_ulong), rec.data());
    std::FILE* f = std::fopen(path, calls == 0 ? "w" : "a");
    if (!f) return;
    if (calls == 0)
        std::fprintf(f, "call,n,key_bytes,value_bytes,pass,tile,start,got_id,keys,ranked,published,lookback_begin,"
                        "lookback_end,end,sm,batches,waits\n");
    ++calls;
    for (std::size_t p = 0; p < passes; ++p)
        for (std::size_t t = 0; t < tiles; ++t) {
            const cl_ulong* e = &rec[(p * tiles + t) * (trace_words / 2)];
            std::fprintf(f, "%u,%zu,%zu,%zu,%zu,%zu,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu\n", calls, r.keys.size, size_of(r.key_type),
                         r.has_values ? size_of(r.value_type) : std::size_t(0), p, t, (unsigned long long)e[0],
                         (unsigned long long)e[1], (unsigned long long)e[2], (unsigned long long)e[3],
                         (unsigned long long)e[4], (unsigned long long)e[5], (unsigned long long)e[6],
                         (unsigned long long)e[7], (unsigned long long)e[8], (unsigned long long)(e[9] >> 32),
                         (unsigned long long)(e[9] & 0xffffffffu));
        }
    std::fclose(f);
}

// Keys per portion, whole tiles (so that only the last portion ends in a partial tile: a partial
// tile's missing keys count as digit RADIX - 1 in its published counts, which only a sort's last
// tile may do). By default the portions of a sort are as even as whole tiles allow, below 2^30
// keys each (a look-back slot's count): a launch clears the next launch's slots, and a short
// last portion would clear a whole portion's slots with a handful of work-groups. With
// CLPRIM_ONESWEEP_PORTION set (tests, measurements), exactly that many keys rounded down to whole
// tiles, the last portion the rest.
std::size_t portion_keys(std::size_t n, std::size_t tile, const onesweep_policy& pol)
{
    const std::size_t most = std::max(tile, pol.portion_keys / tile * tile);
    if (pol.exact_portion || n <= most) return std::min(most, round_up(n, tile));
    return round_up(ceil_div(n, ceil_div(n, most)), tile);
}

} // namespace

void radix_sort_onesweep(const sort_request& r, bc::command_queue& queue, onesweep_ranking ranking)
{
    const std::size_t n = r.keys.size;
    const onesweep_policy pol = select_onesweep_policy(profile_of(queue.get_device()), r);
    // The kernels with portions only where a pass takes more than one launch (or where the knob
    // asks for them): below that the pass kernel is built as it was without them.
    const bool portioned = n > pol.portion_keys || pol.exact_portion;
    onesweep_kernels& k = cached_kernels(queue, r, pol, ranking, portioned);
    const std::size_t key_size = size_of(r.key_type);
    const std::size_t value_size = r.has_values ? size_of(r.value_type) : 0;
    const std::size_t passes = key_size * 8 / radix_bits; // 1, 2, 4 or 8
    const std::size_t tiles = ceil_div(n, k.tile());
    const std::size_t portion = portioned ? portion_keys(n, k.tile(), pol) : round_up(n, k.tile());
    const std::size_t portions = ceil_div(n, portion), portion_tiles = portion / k.tile();
    const cl_uint n32 = cl_uint(n);

    // The status words, kept per queue (queue_state.hpp) so that no clearing command precedes
    // the sort: two info halves (counts, starts, counters, flags, carried starts: info_stride
    // words each, for any key width), then two regions of look-back slots ([tile][digit], a
    // portion's tiles), then LB_TRACE's records. Invariant between calls: the half the next call
    // uses is zero. Each call uses half h, and its histogram clears the other half (the next
    // call's) and region 0 (the first launch's slots); launch s (pass p, portion q: s = p *
    // portions + q) uses region s % 2 and clears region (s + 1) % 2 for the launch after it (the
    // launch before that one has finished: same in-order queue). A new or grown buffer is
    // zero-filled once. The state stays locked while this call enqueues, so another host thread's
    // call on this queue cannot interleave its commands with these.
    constexpr std::size_t info_stride = ONESWEEP_INFO_STRIDE(radix); // ONESWEEP_MAX_PASSES at most
    const std::size_t slots_at = 2 * info_stride, region = portion_tiles * radix;
    const std::size_t trace_at = slots_at + 2 * region;
    const std::optional<std::string> trace = trace_path();
    const std::size_t status_words = trace_at + (trace ? passes * tiles * trace_words : 0);
    queue_state st = take_queue_state(queue, "onesweep_status", status_words * sizeof(cl_uint));
    const bc::buffer status = st.buffer;
    if (st.fresh || trace) {
        const cl_uint zero = 0;
        queue.enqueue_fill_buffer(status, &zero, sizeof zero, 0, status.size());
        st.fresh = false;
    }
    const std::size_t half = std::size_t(st.counter & 1);

    // The histogram's grid-stride index (uint) never passes 2^32 - 1: n plus one stride of the grid
    // at most 2^32 (fewer groups only within 2^24 keys of the largest n, 2^32 - 2^16).
    const std::size_t histogram_groups =
        std::max<std::size_t>(1, std::min({k.histogram_groups, ceil_div(n, k.wg * histogram_keys * k.histogram_rounds),
                                           ((std::size_t(1) << 32) - n) / (k.wg * histogram_keys)}));
    launch(queue, k.histogram, histogram_groups * k.wg, k.wg, r.keys.buffer, cl_ulong(r.keys.offset), n32, status,
        cl_ulong(half * info_stride), cl_ulong((1 - half) * info_stride), cl_ulong(info_stride), cl_ulong(slots_at),
        cl_ulong(region));
    ++st.counter; // the other half is being cleared: the next call's
    if (passes == 1 && !r.has_values) {
        // 8-bit keys alone: the runs of the counted digits are the sorted keys (radix_counting.cl).
        launch(queue, k.counting_fill, round_up(ceil_div(n, 16), k.wg), k.wg, r.keys.buffer, cl_ulong(r.keys.offset), n32,
               status, cl_ulong(half * info_stride));
        return;
    }

    // One scratch place: caller -> a -> caller -> ... (an even number of passes ends where it
    // started; a pass reads one place and writes the other, so a stalled tile's fallback reads
    // whole keys). An odd number (8-bit keys with values: one) starts with a copy into a.
    scratch_lease scratch(queue);
    const bc::buffer keys_a = scratch.buffer(n * key_size);
    const bc::buffer values_a = r.has_values ? scratch.buffer(n * value_size) : keys_a;
    const sort_place caller = sort_place::caller(r), a{keys_a, values_a, 0, 0};
    const bool odd = passes % 2 == 1;
    if (odd) {
        queue.enqueue_copy_buffer(caller.k, keys_a, caller.koff * key_size, 0, n * key_size);
        if (r.has_values) queue.enqueue_copy_buffer(caller.v, values_a, caller.voff * value_size, 0, n * value_size);
    }
    const cl_ulong none = ~cl_ulong(0);
    for (std::size_t p = 0; p < passes; ++p) {
        const bool from_caller = (p % 2 == 0) != odd;
        const sort_place& from = from_caller ? caller : a;
        const sort_place& to = from_caller ? a : caller;
        for (std::size_t q = 0; q < portions; ++q) {
            const std::size_t s = p * portions + q, first = q * portion, keys = std::min(portion, n - first);
            const std::size_t next_keys = q + 1 < portions ? std::min(portion, n - first - portion) : std::min(portion, n);
            const cl_ulong starts_in =
                q == 0 ? ONESWEEP_INFO_STARTS(passes, radix) + p * radix : ONESWEEP_INFO_CARRY(passes, radix, (q - 1) % 2);
            const cl_ulong starts_out = q + 1 < portions ? cl_ulong(ONESWEEP_INFO_CARRY(passes, radix, q % 2)) : none;
            const cl_ulong clear = s + 1 < passes * portions ? cl_ulong(slots_at + ((s + 1) % 2) * region) : none;
            bc::kernel& pk = k.pass;
            set_kernel_args(pk, from.k, cl_ulong(from.koff + first), to.k, cl_ulong(to.koff), cl_uint(keys), cl_uint(p),
                cl_uint(p == 0), cl_uint(p + 1 == passes), status, cl_ulong(half * info_stride), starts_in, starts_out,
                status, cl_ulong(slots_at + (s % 2) * region), clear, cl_uint(ceil_div(next_keys, k.tile())),
                cl_uint(q * portion_tiles), cl_ulong(trace_at + (p * tiles + q * portion_tiles) * trace_words));
            if (r.has_values) set_kernel_args_from(pk, 18, from.v, cl_ulong(from.voff + first), to.v, cl_ulong(to.voff));
            launch_1d(queue, pk, ceil_div(keys, k.tile()) * k.wg, k.wg);
        }
    }
    if (trace) write_trace(trace->c_str(), queue, status, trace_at, passes, tiles, r);
}

} // namespace detail
} // namespace clprim
