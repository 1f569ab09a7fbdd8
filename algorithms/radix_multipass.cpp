// The radix sort's multi-pass path: the textbook LSD sort (Zagha & Blelloch;
// algorithms/radix_sort.cl): per pass, digit counts per tile (work-group histogram), device-wide
// exclusive scan of the digit-major table (clprim::scan), then rank and scatter. One read-back per
// call: after the first count kernel, the OR/AND of all keys' sortable bits says which digits
// vary; passes over a digit that is the same for every key are skipped. radix_sort.cpp runs it
// where CLPRIM_RADIX_PATH=multipass forces it (the one-sweep path takes GPUs at every size).
#include "radix_multipass.hpp"
#include "radix_policy.hpp"
#include "sort_support.hpp"

#include <clprim/detail/algorithms_kernels.hpp>
#include <clprim/detail/device_limits.hpp>
#include <clprim/detail/device_profile.hpp>
#include <clprim/detail/kernel_launch.hpp>
#include <clprim/detail/knobs.hpp>
#include <clprim/detail/scratch_pool.hpp>
#include <clprim/detail/sort_trace.hpp>
#include <clprim/scan.hpp>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

namespace clprim {
namespace detail {

namespace {

constexpr unsigned radix_bits = multipass_radix_bits; // radix_policy.hpp
constexpr std::size_t radix = std::size_t(1) << radix_bits;
constexpr unsigned rank_bins = multipass_rank_bins;

struct radix_kernels {
    bc::kernel count, scatter;
    std::size_t wg = 0, kpt = 0;
    std::size_t tile() const { return wg * kpt; }
};

radix_kernels build_kernels(const bc::command_queue& queue, const sort_request& r)
{
    const bc::context context = queue.get_context();
    const bc::device device = queue.get_device();
    const std::size_t key_size = size_of(r.key_type);
    const std::size_t local_mem = device.local_memory_size();
    // Work-group, keys per work-item and kernel variants: radix_policy.hpp (select_multipass_policy).
    const multipass_policy pol = select_multipass_policy(profile_of(device), r);
    std::size_t wg = pol.wg;
    std::size_t max_kpt = pol.max_kpt;
    const unsigned variant = pol.variant;
    const bool packed = (variant & 1u) != 0;
    const bool stage_values = (variant & 2u) != 0 && r.has_values && size_of(r.value_type) <= key_size;
    const bool blocked_load = (variant & 4u) != 0;
    if (packed) max_kpt = std::min<std::size_t>(max_kpt, std::max<std::size_t>(1, 32768 / wg)); // tile < 2^16
    // The local memory radix_scatter takes comes from the built kernel (CL_KERNEL_LOCAL_MEM_SIZE):
    // too much (or a build the compiler refuses for it, as NVIDIA's does) halves the keys per
    // work-item; a work-group size the kernels do not allow halves the group.
    for (;;) {
        const std::size_t kpt = max_kpt;
        std::string options = type_options(r.key_type, "K") + " -DWG=" + std::to_string(wg) +
                              " -DKPT=" + std::to_string(kpt) + " -DRADIX_BITS=" + std::to_string(radix_bits);
        if (r.order == sort_order::descending) options += " -DSORT_DESCENDING";
        if (r.has_values) options += std::string(" -DHAS_VALUES -DV=") + bits_name(r.value_type);
        if (packed) options += " -DRANK_PACKED";
        if (stage_values) options += " -DSTAGE_VALUES";
        if (blocked_load) options += " -DBLOCKED_LOAD";
        bc::program program;
        try {
            program = algorithms_program(
                context, {"sort_key_order.cl", "workgroup_scan.cl", "workgroup_histogram.cl", "radix_sort.cl"}, options);
        } catch (const build_error&) {
            if (kpt == 1) throw;
            max_kpt = kpt / 2;
            continue;
        }
        radix_kernels k{program.create_kernel("radix_count"), program.create_kernel("radix_scatter"), wg, kpt};
        const auto lc = limits_for(k.count, device);
        const auto ls = limits_for(k.scatter, device);
        const auto used = k.scatter.get_work_group_info<cl_ulong>(device, CL_KERNEL_LOCAL_MEM_SIZE);
        const bool fits = lc.max_work_group_size >= wg && ls.max_work_group_size >= wg && used <= local_mem;
        if (fits) return k;
        if (used > local_mem && kpt > 1) {
            max_kpt = kpt / 2;
        } else if (wg > rank_bins) {
            wg /= 2;
        } else {
            throw unsupported_error("clprim::radix_sort: device '" + device.name() +
                                    "' lacks the work-group size or local memory the radix sort needs");
        }
    }
}

} // namespace

void radix_sort_multipass(const sort_request& r, bc::command_queue& queue)
{
    const std::size_t n = r.keys.size;
    radix_kernels k = build_kernels(queue, r);
    const std::size_t key_size = size_of(r.key_type);
    const std::size_t value_size = size_of(r.value_type);
    const std::size_t groups = ceil_div(n, k.tile());
    const std::size_t num_passes = (key_size * 8 + radix_bits - 1) / radix_bits;
    const cl_uint n32 = cl_uint(n);

    // Every temporary of the call, taken once (from the queue's scratch pool: reused from the
    // last call where they fit): counts, mask, one ping-pong buffer (the second only if two
    // or more passes run, below).
    scratch_lease scratch(queue);
    bc::buffer counts = scratch.buffer(radix * groups * sizeof(cl_uint));
    bc::buffer mask = scratch.buffer(4 * sizeof(cl_uint));
    bc::buffer keys_a = scratch.buffer(n * key_size);
    bc::buffer values_a;
    if (r.has_values) values_a = scratch.buffer(n * value_size);

    static const cl_uint mask_init[4] = {0u, 0u, ~0u, ~0u};
    queue.enqueue_write_buffer(mask, 0, sizeof mask_init, mask_init);

    auto count = [&](const bc::buffer& src, std::size_t src_off, bool convert, unsigned shift, bool want_mask) {
        launch(queue, k.count, groups * k.wg, k.wg, src, cl_ulong(src_off), n32, cl_uint(convert), cl_uint(shift),
            counts, mask, cl_uint(want_mask));
    };
    const cl_uint zero = 0;
    auto scan_counts = [&] {
        const buffer_range table{counts, 0, radix * groups};
        scan_impl(table, table, element_type::uint32, false, &zero, scan_algorithm::fast, queue);
    };
    auto scatter = [&](const sort_place& from, const sort_place& to, bool convert_in, bool convert_out, unsigned shift) {
        set_kernel_args(k.scatter, from.k, cl_ulong(from.koff), to.k, cl_ulong(to.koff), n32,
            cl_uint(convert_in), cl_uint(convert_out), cl_uint(shift), counts);
        if (r.has_values) set_kernel_args_from(k.scatter, 9, from.v, cl_ulong(from.voff), to.v, cl_ulong(to.voff));
        launch_1d(queue, k.scatter, groups * k.wg, k.wg);
    };

    // First pass's counts, and which digits vary (the one host round trip of the call).
    count(r.keys.buffer, r.keys.offset, true, 0, true);
    cl_uint m[4];
    queue.enqueue_read_buffer(mask, 0, sizeof m, m);
    const std::uint64_t varying = ((std::uint64_t(m[1]) << 32) | m[0]) ^ ((std::uint64_t(m[3]) << 32) | m[2]);
    const std::vector<unsigned> passes = varying_digit_passes(varying, num_passes, radix_bits);
    if (passes.empty()) return; // every key has the same bits: already in (stable) order

    const sort_pingpong places(queue, r, scratch, keys_a, values_a, n, passes.size());
    sort_observer* const trace = sort_trace(); // examples/sort_steps prints each step
    using step = sort_observer::radix_step;
    for (std::size_t i = 0; i < passes.size(); ++i) {
        const unsigned shift = passes[i] * radix_bits;
        const bool first = i == 0, last = i + 1 == passes.size();
        const sort_place& from = places.from(i);
        const sort_place& to = places.to(i);
        // Pass 0's counts are already there (same keys, same tiles) if pass 0 runs first.
        if (!(first && passes[i] == 0)) count(from.k, from.koff, first, shift, false);
        if (trace) trace->radix_pass(queue, step::counts, shift, counts, groups, radix, from.k, from.koff, n, first);
        scan_counts();
        if (trace) trace->radix_pass(queue, step::offsets, shift, counts, groups, radix, from.k, from.koff, n, first);
        scatter(from, to, first, last, shift);
        if (trace) trace->radix_pass(queue, step::scattered, shift, counts, groups, radix, to.k, to.koff, n, last);
    }
}

} // namespace detail
} // namespace clprim
