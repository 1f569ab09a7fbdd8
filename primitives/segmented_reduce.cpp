// clprim::segmented_reduce: teams of work-items for short segments, chunks of a work-group for
// long ones, their partials combined on the device (kernels and the argument in
// segmented_reduce.cl; shape in segmented_reduce_policy.hpp).
#include "segmented_reduce_policy.hpp"
#include "stream_block.hpp"

#include <clprim/detail/kernel_launch.hpp>
#include <clprim/detail/primitives_kernels.hpp>
#include <clprim/detail/queue_order.hpp>
#include <clprim/detail/queue_state.hpp>
#include <clprim/detail/scratch_pool.hpp>
#include <clprim/scan.hpp>
#include <clprim/segmented_reduce.hpp>

#include <algorithm>
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

struct segred_kernels {
    bc::kernel teams, chunks, finish, single; // single: where the type allows (one_launch)
    std::size_t wg = 1; // what the kernels allow, at most the policy's
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
                          " -DSR_PROBES=" + std::to_string(p.probes);
    if (single && size_of(type) == 8) options += " -DSR_ATOM64";
    bc::program program = stream_program(queue.get_context(), device, files, options);
    segred_kernels k{program.create_kernel("segred_teams"), program.create_kernel("segred_chunks"),
                     program.create_kernel("segred_finish"), {}};
    if (single) k.single = program.create_kernel("segred_single");
    std::size_t wg = std::min<std::size_t>(p.wg, 256); // segred_single's walk: 256 segments a step
    for (const bc::kernel* kern : {&k.teams, &k.chunks, &k.finish, &k.single})
        if (kern->get() != nullptr) wg = std::min(wg, limits_for(*kern, device).max_work_group_size);
    k.wg = std::max<std::size_t>(p.team, floor_pow2(std::max<std::size_t>(1, wg)));
    return k;
}

segred_kernels& cached_kernels(const bc::command_queue& queue, element_type type, element_type offset_type, int op_code,
                               const std::string& op_file, bool ordered, const segmented_reduce_policy& p)
{
    using key =
        std::tuple<cl_context, cl_device_id, int, int, int, std::string, bool, std::size_t, std::size_t, std::size_t>;
    thread_local std::map<key, segred_kernels> cache;
    const key k{queue.get_context().get(), queue.get_device().get(), int(type), int(offset_type), op_code, op_file,
                ordered, p.team, p.wg, (p.solo * 64 + p.loads) * 8 + p.probes};
    auto it = cache.find(k);
    if (it == cache.end()) it = cache.emplace(k, make_kernels(queue, type, offset_type, op_code, op_file, ordered, p)).first;
    return it->second;
}

// segred_single (segmented_reduce_single.cl): work-groups of `span` elements each (a power of
// two: ranges then meet segments of power-of-two lengths at their ends), every segment in some
// group's index range, two sets of arrival words kept per queue (zero-filled when new).
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

    scratch_lease lease(queue);
    const bc::buffer partials = lease.buffer(2 * groups * elem);
    // Two sets of arrival words: this call counts on one and clears the other for the next call.
    const std::size_t words = round_up(groups, 32);
    queue_state st = take_queue_state(queue, "segmented_reduce_arrivals", 2 * words * sizeof(cl_uint));
    const std::size_t half = st.buffer.size() / 2 / sizeof(cl_uint); // words a set, at least `words`
    if (st.fresh) {
        const cl_uint zero = 0;
        queue.enqueue_fill_buffer(st.buffer, &zero, sizeof zero, 0, st.buffer.size());
        st.fresh = false;
    }
    const std::size_t set = std::size_t(st.counter++ % 2);
    launch(queue, k.single, groups * wg, wg, in.buffer, cl_ulong(in.offset), cl_ulong(n), offsets.buffer,
           cl_ulong(offsets.offset), cl_ulong(num_segments), result.buffer, cl_ulong(result.offset), cl_ulong(per_group),
           cl_ulong(p.long_len), cl_ulong(span), partials, st.buffer, cl_uint(set), cl_uint(half),
           local_bytes{wg * std::max<std::size_t>(elem, 4)});
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
    require_type_support(type, user_queue.get_device(), who);
    const std::size_t num_segments = offsets.size - 1;
    if (num_segments == 0) return;

    in_order_scope scope(user_queue); // in order on out-of-order queues too (queue_order.hpp)
    bc::command_queue& queue = scope.queue();
    guarded(who, [&] {
        const segmented_reduce_policy p =
            select_segmented_reduce_policy(profile_of(queue.get_device()), in.size, num_segments);
        segred_kernels& k = cached_kernels(queue, type, offset_type, op_code, op_file, !commutative, p);
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
