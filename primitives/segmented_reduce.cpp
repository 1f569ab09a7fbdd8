// clprim::segmented_reduce: teams of work-items for short segments, chunks of a work-group for
// long ones, their partials combined on the device (kernels and the argument in
// segmented_reduce.cl; shape in segmented_reduce_policy.hpp).
#include "segmented_reduce_policy.hpp"
#include "stream_block.hpp"

#include <clprim/detail/kernel_launch.hpp>
#include <clprim/detail/primitives_kernels.hpp>
#include <clprim/detail/queue_info.hpp>
#include <clprim/detail/queue_order.hpp>
#include <clprim/detail/queue_state.hpp>
#include <clprim/detail/scratch_pool.hpp>
#include <clprim/scan.hpp>
#include <clprim/segmented_reduce.hpp>

#include <algorithm>
#include <atomic>
#include <map>
#include <tuple>

namespace clprim {
namespace detail {

namespace {

const char* const who = "clprim::segmented_reduce";

// The element types whose 4-vectors exist (vload4 in the chunks kernel).
bool scalar(element_type type)
{
    switch (type) {
    case element_type::int32: case element_type::uint32: case element_type::int64:
    case element_type::uint64: case element_type::float32: case element_type::float64: return true;
    default: return false;
    }
}

// The scalar arguments last set on `single` (and its state buffer): a call sets again only the
// ones that changed (each clSetKernelArg is a driver call: 16 of them cost a few microseconds a
// call beside a launch of ~5; docs/RESULTS.md, "#27 (s5-small)"). The caller's buffers are set at
// every call (a released buffer's handle may come back naming a new one); the state buffer is
// set again whenever it is another one than the kernel's last (by serial, not by handle:
// release_scratch_memory() drops the states, and PoCL gave a new one the old one's handle).
struct single_args {
    bool valid = false;
    cl_ulong state = 0; // the state buffer's serial (reduce_in_one_launch)
    cl_ulong in_off = 0, n = 0, off_off = 0, num_segments = 0, out_off = 0, per_group = 0, long_len = 0, span = 0,
             partials_off = 0;
    cl_uint set = 0, set_words = 0;
    std::size_t local = 0;
};

struct segred_kernels {
    bc::kernel teams, chunks, finish, single; // single: where the type allows (one_launch)
    std::size_t wg = 1; // what the kernels allow, at most the policy's
    single_args single_set;
};

// Whether segred_single can publish partials of this type with atomics.
bool one_launch(element_type type, const bc::device& device)
{
    const std::size_t bytes = size_of(type);
    return scalar(type) && (bytes == 4 || (bytes == 8 && device.supports_extension("cl_khr_int64_base_atomics")));
}

segred_kernels make_kernels(const bc::command_queue& queue, element_type type, element_type offset_type, int op_code,
                            const std::string& op_file, bool ordered, const segmented_reduce_policy& p)
{
    std::vector<std::string> files;
    if (op_code == 3) files.push_back(op_file);
    files.push_back("segmented_reduce.cl");
    const bc::device device = queue.get_device();
    const bool single = one_launch(type, device);
    if (single) {
        files.push_back("stream_block.cl");
        files.push_back("segmented_reduce_single.cl");
    }
    std::string options = type_options(type, "T") + " -DOFF=" + cl_name(offset_type) +
                          " -DSR_OP_CODE=" + std::to_string(op_code) + " -DSR_TEAM=" + std::to_string(p.team) +
                          " -DSR_ORDERED=" + (ordered ? "1" : "0") + (!ordered && scalar(type) ? " -DSR_VLOAD" : "") +
                          " -DSR_SOLO=" + std::to_string(p.solo) + " -DSR_LOADS=" + std::to_string(p.loads) +
                          " -DSR_PROBES=" + std::to_string(p.probes) + " -DSR_SEARCH_WALK=" +
                          (p.search_walk ? "1" : "0");
    if (single && size_of(type) == 8) options += " -DSR_ATOM64";
    bc::program program = stream_program(queue.get_context(), device, files, options);
    segred_kernels k{program.create_kernel("segred_teams"), program.create_kernel("segred_chunks"),
                     program.create_kernel("segred_finish"), {}, 1, {}};
    if (single) k.single = program.create_kernel("segred_single");
    std::size_t wg = std::min<std::size_t>(p.wg, 256); // segred_single's walk: 256 segments a step
    for (const bc::kernel* kern : {&k.teams, &k.chunks, &k.finish, &k.single})
        if (kern->get() != nullptr) wg = std::min(wg, limits_for(*kern, device).max_work_group_size);
    k.wg = std::max<std::size_t>(p.team, floor_pow2(std::max<std::size_t>(1, wg)));
    return k;
}

segred_kernels& cached_kernels(const bc::command_queue& queue, const queue_info& info, element_type type,
                               element_type offset_type, int op_code, const std::string& op_file, bool ordered,
                               const segmented_reduce_policy& p)
{
    using key = std::tuple<cl_context, cl_device_id, int, int, int, std::string, bool, std::size_t, std::size_t,
                           std::size_t>;
    thread_local std::map<key, segred_kernels> cache;
    const std::size_t shape = ((p.solo * 64 + p.loads) * 8 + p.probes) * 2 + std::size_t(p.search_walk);
    const key k{info.context.get(), info.device.id(), int(type), int(offset_type), op_code, op_file,
                ordered, p.team, p.wg, shape};
    auto it = cache.find(k);
    if (it == cache.end()) it = cache.emplace(k, make_kernels(queue, type, offset_type, op_code, op_file, ordered, p)).first;
    return it->second;
}

// segred_single (segmented_reduce_single.cl): work-groups of `span` elements each (a power of
// two: ranges then meet segments of power-of-two lengths at their ends), every segment in some
// group's index range. One buffer per queue (queue_state.hpp) holds two sets of arrival words of
// `cap` words each (zero-filled when new) and behind them room for 2 * cap partials of up to 8
// bytes: no scratch lease. cap is fixed for a buffer (from its size, when it is new) and kept in
// the state's counter beside the set parity, since consecutive calls must agree on where the
// next call's set lies.
void reduce_in_one_launch(const buffer_range& in, const buffer_range& offsets, std::size_t num_segments,
                          const buffer_range& result, std::size_t elem, const segmented_reduce_policy& p,
                          segred_kernels& k, bc::command_queue& queue)
{
    const std::size_t wg = k.wg, n = in.size;
    constexpr std::size_t max_groups = 65534;
    std::size_t span = std::max<std::size_t>(ceil_div(n, std::max<std::size_t>(1, p.single_groups)), 4 * wg);
    span = std::max(span, ceil_div(n, max_groups));
    span = floor_pow2(span) == span ? span : 2 * floor_pow2(span);
    const std::size_t groups = std::max<std::size_t>(1, ceil_div(n, span));
    const std::size_t teams = wg / p.team;
    const std::size_t per_group = round_up(ceil_div(num_segments, groups), teams);

    const std::size_t words = round_up(groups, 32);
    constexpr std::size_t bytes_per_word = 2 * sizeof(cl_uint) + 2 * sizeof(cl_ulong); // two sets, two partials
    queue_state st = take_queue_state(queue, "segmented_reduce_arrivals", words * bytes_per_word);
    // The state's counter: bit 0 the set this call counts on, bits 1-20 cap / 32, bits 21-63 the
    // buffer's serial (a process-wide number given when it is new: a kernel's arguments name it
    // until then, and a handle alone could be a released buffer's reused).
    if (st.fresh) {
        static std::atomic<cl_ulong> serials{0};
        const std::size_t bytes = st.buffer.size();
        const cl_ulong cap = std::min<cl_ulong>(bytes / bytes_per_word / 32, (cl_ulong(1) << 20) - 1);
        const cl_uint zero = 0;
        queue.enqueue_fill_buffer(st.buffer, &zero, sizeof zero, 0, bytes);
        st.counter = (++serials << 21) | (cap << 1);
        st.fresh = false;
    }
    const cl_ulong cap = 32 * ((st.counter >> 1) & ((cl_ulong(1) << 20) - 1)); // >= words
    const cl_ulong serial = st.counter >> 21;
    const cl_uint set = cl_uint(st.counter & 1);
    st.counter ^= 1;
    const cl_ulong partials_off = 2 * cap * sizeof(cl_uint) / elem;

    bc::kernel& kern = k.single;
    single_args& last = k.single_set;
    const bool all = !last.valid || last.state != serial;
    last.valid = false; // until every argument below is set (a throw leaves them unknown)
    set_kernel_args_from(kern, 0, in.buffer);
    if (all || last.in_off != in.offset) set_kernel_args_from(kern, 1, cl_ulong(in.offset));
    if (all || last.n != n) set_kernel_args_from(kern, 2, cl_ulong(n));
    set_kernel_args_from(kern, 3, offsets.buffer);
    if (all || last.off_off != offsets.offset) set_kernel_args_from(kern, 4, cl_ulong(offsets.offset));
    if (all || last.num_segments != num_segments) set_kernel_args_from(kern, 5, cl_ulong(num_segments));
    set_kernel_args_from(kern, 6, result.buffer);
    if (all || last.out_off != result.offset) set_kernel_args_from(kern, 7, cl_ulong(result.offset));
    if (all || last.per_group != per_group) set_kernel_args_from(kern, 8, cl_ulong(per_group));
    if (all || last.long_len != p.long_len) set_kernel_args_from(kern, 9, cl_ulong(p.long_len));
    if (all || last.span != span) set_kernel_args_from(kern, 10, cl_ulong(span));
    if (all) set_kernel_args_from(kern, 11, st.buffer);
    if (all || last.partials_off != partials_off) set_kernel_args_from(kern, 12, partials_off);
    if (all) set_kernel_args_from(kern, 13, st.buffer);
    if (all || last.set != set) set_kernel_args_from(kern, 14, set);
    if (all || last.set_words != cap) set_kernel_args_from(kern, 15, cl_uint(cap));
    const std::size_t local = wg * std::max<std::size_t>(elem, 4);
    if (all || last.local != local) set_kernel_args_from(kern, 16, local_bytes{local});
    last.state = serial;
    last.in_off = in.offset;
    last.n = n;
    last.off_off = offsets.offset;
    last.num_segments = num_segments;
    last.out_off = result.offset;
    last.per_group = per_group;
    last.long_len = p.long_len;
    last.span = span;
    last.partials_off = partials_off;
    last.set = set;
    last.set_words = cl_uint(cap);
    last.local = local;
    last.valid = true;
    launch_1d(queue, kern, groups * wg, wg);
}

bool overlaps(const buffer_range& a, std::size_t a_elem, const buffer_range& b, std::size_t b_elem)
{
    if (a.size == 0 || b.size == 0 || a.buffer.get() != b.buffer.get()) return false;
    const std::size_t a0 = a.offset * a_elem, a1 = a0 + a.size * a_elem;
    const std::size_t b0 = b.offset * b_elem, b1 = b0 + b.size * b_elem;
    return a0 < b1 && b0 < a1;
}

} // namespace

void segmented_reduce_impl(const buffer_range& in, const buffer_range& offsets, element_type offset_type,
                           const buffer_range& result, element_type type, int op_code, const std::string& op_file,
                           bool commutative, const void* identity, bc::command_queue& user_queue)
{
    (void)identity; // rendered into op_file as CLPRIM_IDENTITY
    const std::size_t elem = size_of(type);
    if (overlaps(result, elem, in, elem) || overlaps(result, elem, offsets, size_of(offset_type)))
        throw invalid_argument_error("clprim::segmented_reduce: the result range overlaps an input");
    require_type_support(type, user_queue, who); // no driver query (queue_info.hpp)
    const std::size_t num_segments = offsets.size - 1;
    if (num_segments == 0) return;

    in_order_scope scope(user_queue); // in order on out-of-order queues too (queue_order.hpp)
    bc::command_queue& queue = scope.queue();
    guarded(who, [&] {
        const queue_info& info = info_of(queue); // no driver query on this thread's last queues
        const segmented_reduce_policy p = select_segmented_reduce_policy(*info.profile, in.size, num_segments);
        segred_kernels& k = cached_kernels(queue, info, type, offset_type, op_code, op_file, !commutative, p);
        const std::size_t wg = k.wg;
        if (p.single && k.single.get() != nullptr) {
            reduce_in_one_launch(in, offsets, num_segments, result, elem, p, k, queue);
            return;
        }
        const std::size_t teams = wg / p.team;
        const std::size_t groups = std::min(ceil_div(num_segments, teams), p.max_groups);
        const std::size_t per_group = round_up(ceil_div(num_segments, groups), teams);
        const std::size_t team_groups = ceil_div(num_segments, per_group);
        // Partials: well-formed offsets give at most n / chunk + (number of long segments) chunks.
        const std::size_t max_chunks = in.size / p.chunk + in.size / (p.long_len + 1) + 1;
        const std::size_t scratch_elem = std::max<std::size_t>(elem, 4);

        scratch_lease lease(queue);
        const bc::buffer counts = lease.buffer((num_segments + 1) * sizeof(cl_ulong));
        const bc::buffer partials = lease.buffer(max_chunks * elem);

        launch(queue, k.teams, team_groups * wg, wg, in.buffer, cl_ulong(in.offset), cl_ulong(in.size),
               offsets.buffer, cl_ulong(offsets.offset), cl_ulong(num_segments), result.buffer, cl_ulong(result.offset),
               cl_ulong(per_group), cl_ulong(p.long_len), cl_ulong(p.chunk), counts, local_bytes{wg * scratch_elem});
        // counts[s] -> the first chunk of segment s, counts[num_segments] -> how many in all.
        const buffer_range c{counts, 0, num_segments + 1};
        const cl_ulong zero = 0;
        scan_impl(c, c, element_type::uint64, false, &zero, scan_algorithm::fast, queue);
        const std::size_t chunk_groups = std::min(p.chunk_groups, max_chunks);
        launch(queue, k.chunks, chunk_groups * wg, wg, in.buffer, cl_ulong(in.offset), cl_ulong(in.size),
               offsets.buffer, cl_ulong(offsets.offset), cl_ulong(num_segments), counts, cl_ulong(p.chunk), partials,
               cl_ulong(max_chunks), local_bytes{wg * scratch_elem});
        launch(queue, k.finish, team_groups * wg, wg, partials, cl_ulong(0), cl_ulong(max_chunks), counts, cl_ulong(0),
               cl_ulong(num_segments), result.buffer, cl_ulong(result.offset), cl_ulong(per_group),
               local_bytes{wg * scratch_elem});
    });
}

} // namespace detail
} // namespace clprim
