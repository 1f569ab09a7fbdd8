// Host side of the one-sweep radix sort (radix_onesweep.cl): one histogram launch, then one
// launch per 8-bit digit, no clearing command (the status words stay with the queue) and no host
// round trip: the call returns while the device works.
#include "radix_onesweep.hpp"
#include "radix_onesweep_layout.cl"
#include "radix_policy.hpp"

#include <clprim/detail/lookback_slots.hpp>

#include <clprim/detail/algorithms_kernels.hpp>
#include <clprim/detail/device_limits.hpp>
#include <clprim/detail/device_profile.hpp>
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

// Local memory of onesweep_pass (bytes), as the kernel declares it.
std::size_t pass_local_bytes(std::size_t wg, std::size_t kpt, std::size_t value_piece, const sort_request& r)
{
    const std::size_t tile = wg * kpt;
    const std::size_t key_size = size_of(r.key_type);
    std::size_t bytes = tile * key_size + (wg / 32) * radix * 4 + 2 * radix * 4 + (2 * wg + (2 * wg) / 32 + 1) * 4 +
                        wg * 4 + 64;
    if (r.has_values && value_piece > key_size) bytes += tile * value_piece;
    return bytes;
}

struct onesweep_kernels {
    bc::kernel histogram, pass;
    std::size_t wg = 0, kpt = 0, histogram_groups = 0, histogram_rounds = 1;
    bc::kernel counting_fill = bc::kernel(); // 8-bit keys alone (radix_counting.cl)
    std::size_t tile() const { return wg * kpt; }
};

std::string program_options(const sort_request& r, std::size_t wg, std::size_t kpt, std::size_t passes,
                            onesweep_ranking ranking, const std::string& extra = std::string())
{
    std::string o = type_options(r.key_type, "K") + " -DWG=" + std::to_string(wg) + " -DKPT=" + std::to_string(kpt) +
                    " -DRADIX_BITS=" + std::to_string(radix_bits) + " -DPASSES=" + std::to_string(passes) +
                    " -DHIST_KEYS=" + std::to_string(histogram_keys);
    if (r.order == sort_order::descending) o += " -DSORT_DESCENDING";
    if (r.has_values)
        o += std::string(" -DHAS_VALUES -DV=") + bits_name(r.value_type) + " -DV_BYTES=" + std::to_string(size_of(r.value_type));
    if (ranking == onesweep_ranking::match_any) o += " -DMATCH_RANK -DLB_NANOSLEEP"; // NVIDIA: PTX in both
    return o + extra;
}

const std::vector<std::string>& program_files()
{
    static const std::vector<std::string> files{"sort_key_order.cl", "workgroup_scan.cl", "lookback.cl",
                                                "radix_onesweep_layout.cl", "radix_onesweep.cl", "radix_counting.cl"};
    return files;
}

onesweep_kernels make_kernels(const bc::command_queue& queue, const sort_request& r, onesweep_ranking ranking)
{
    const bc::device device = queue.get_device();
    const onesweep_policy t = select_onesweep_policy(profile_of(device), r);
    const std::size_t passes = size_of(r.key_type) * 8 / radix_bits;
    std::size_t kpt = t.kpt;
    while (kpt > 1 && pass_local_bytes(t.wg, kpt, t.value_piece, r) > device.local_memory_size()) --kpt;
    const std::string piece = r.has_values ? " -DV_PIECE_BYTES=" + std::to_string(t.value_piece) : std::string();
    const bc::program program = algorithms_program(queue.get_context(), program_files(),
                                                   program_options(r, t.wg, kpt, passes, ranking, t.extra_options + piece));
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
onesweep_kernels& cached_kernels(const bc::command_queue& queue, const sort_request& r, onesweep_ranking ranking)
{
    using key = std::tuple<cl_context, cl_device_id, int, int, int, int, std::size_t, std::size_t, std::string>;
    thread_local std::map<key, onesweep_kernels> cache;
    const onesweep_policy t = select_onesweep_policy(profile_of(queue.get_device()), r);
    const key k{queue.get_context().get(), queue.get_device().get(), int(r.key_type),
                r.has_values ? int(r.value_type) : -1, int(r.order), int(ranking), t.wg, t.kpt,
                t.extra_options + "/" + std::to_string(t.histogram_rounds) + "/" + std::to_string(t.histogram_groups_per_cu) +
                    "/" + std::to_string(t.value_piece)};
    auto it = cache.find(k);
    if (it == cache.end()) it = cache.emplace(k, make_kernels(queue, r, ranking)).first;
    return it->second;
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
                           program_options(probe, 256, 1, 4, onesweep_ranking::match_any));
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

} // namespace

void radix_sort_onesweep(const sort_request& r, bc::command_queue& queue, onesweep_ranking ranking)
{
    onesweep_kernels& k = cached_kernels(queue, r, ranking);
    const std::size_t n = r.keys.size;
    const std::size_t key_size = size_of(r.key_type);
    const std::size_t value_size = r.has_values ? size_of(r.value_type) : 0;
    const std::size_t passes = key_size * 8 / radix_bits; // 1, 2, 4 or 8
    const std::size_t tiles = ceil_div(n, k.tile());
    const cl_uint n32 = cl_uint(n);

    // The status words, kept per queue (queue_state.hpp) so that no clearing command precedes
    // the sort: two info halves (counts, starts, counters, flags: info_stride words each, for any
    // key width), then two regions of look-back slots ([tile][digit]), then LB_TRACE's records.
    // Invariant between calls: the half the next call uses is zero. Each call uses half h, and
    // its histogram clears the other half (the next call's) and region 0 (pass 0's slots); pass p
    // uses region p % 2 and clears region (p + 1) % 2 for the pass after it (the pass before that
    // one has finished: same in-order queue). A new or grown buffer is zero-filled once. The state
    // stays locked while this call enqueues, so another host thread's call on this queue cannot
    // interleave its commands with these.
    constexpr std::size_t info_stride = ONESWEEP_INFO_STRIDE(radix); // ONESWEEP_MAX_PASSES at most
    const std::size_t slots_at = 2 * info_stride, region = tiles * radix;
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
    scratch_lease scratch(queue);
    const bc::buffer keys_a = scratch.buffer(n * key_size), keys_b = scratch.buffer(n * key_size);
    bc::buffer values_a, values_b;
    if (r.has_values) {
        values_a = scratch.buffer(n * value_size);
        values_b = scratch.buffer(n * value_size);
    }

    const std::size_t histogram_groups = std::min(k.histogram_groups, ceil_div(n, k.wg * histogram_keys * k.histogram_rounds));
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

    struct place {
        bc::buffer keys, values;
        std::size_t key_off, value_off;
    };
    const place caller{r.keys.buffer, r.has_values ? r.values.buffer : bc::buffer(), r.keys.offset,
                       r.has_values ? r.values.offset : 0};
    const place a{keys_a, values_a, 0, 0}, b{keys_b, values_b, 0, 0};
    // An odd number of passes (8-bit keys: one) cannot end where it started: copy caller -> b first,
    // then b -> a -> ... -> caller.
    const bool odd = passes % 2 == 1;
    if (odd) {
        queue.enqueue_copy_buffer(r.keys.buffer, keys_b, r.keys.offset * key_size, 0, n * key_size);
        if (r.has_values) queue.enqueue_copy_buffer(r.values.buffer, values_b, r.values.offset * value_size, 0, n * value_size);
    }
    for (std::size_t p = 0; p < passes; ++p) {
        // caller -> a -> b -> a ... -> caller (an even number of passes ends where it started)
        const place& from = p == 0 ? (odd ? b : caller) : (p % 2 == 1 ? a : b);
        const place& to = p + 1 == passes ? caller : (p % 2 == 0 ? a : b);
        bc::kernel& s = k.pass;
        set_kernel_args(s, from.keys, cl_ulong(from.key_off), to.keys, cl_ulong(to.key_off), n32, cl_uint(p),
            cl_uint(p == 0), cl_uint(p + 1 == passes), status, cl_ulong(half * info_stride), status,
            cl_ulong(slots_at + (p % 2) * region),
            p + 1 < passes ? cl_ulong(slots_at + ((p + 1) % 2) * region) : ~cl_ulong(0), cl_ulong(trace_at));
        if (r.has_values) {
            set_kernel_args_from(s, 14, from.values, cl_ulong(from.value_off), to.values, cl_ulong(to.value_off));
        }
        launch_1d(queue, s, tiles * k.wg, k.wg);
    }
    if (trace) write_trace(trace->c_str(), queue, status, trace_at, passes, tiles, r);
}

} // namespace detail
} // namespace clprim
