// clprim::histogram: per-work-group local histograms (workgroup_histogram.cl) added into the
// caller's counts; bins tiled over the second NDRange dimension when they do not fit local memory
// at once, global atomics when even that would take too many passes.
#include "histogram_policy.hpp"

#include <clprim/detail/device_limits.hpp>
#include <clprim/detail/device_profile.hpp>
#include <clprim/detail/kernel_launch.hpp>
#include <clprim/detail/primitives_kernels.hpp>
#include <clprim/histogram.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>

namespace clprim {
namespace detail {

// Test hook (declared again in test/test_histogram.cpp): histogram_impl with the tuning forced.
// local_budget: bytes of local memory to plan with (0: the device's); copies: counters per bin
// (power of two, 0: chosen); wg_size: work-group size (0: chosen); path: 0 chosen, 1 local
// (tiled as needed), 2 global atomics.
void histogram_impl_tuned(const buffer_range& in, const buffer_range& counts, std::size_t num_bins,
                          element_type type, const void* lower, const void* upper,
                          bc::command_queue& queue, std::size_t local_budget, unsigned copies,
                          std::size_t wg_size, int path);

namespace {

constexpr const char* who = "clprim::histogram";

template <class T>
T load(const void* p)
{
    T v;
    std::memcpy(&v, p, sizeof v);
    return v;
}

// The kernel's bin parameters: p0..p2 (as T), shift, est, and whether the shift mode applies.
struct bin_params {
    unsigned char p[3][8] = {};
    cl_uint shift = 0;
    cl_float est = 0;
    bool shift_mode = false;
};

template <class T>
void check_bounds(T lo, T hi)
{
    if constexpr (std::is_floating_point_v<T>) {
        if (std::isnan(lo) || std::isnan(hi)) throw invalid_argument_error(std::string(who) + ": NaN bound");
    }
    if (!(lo < hi)) throw invalid_argument_error(std::string(who) + ": lower must be less than upper");
}

template <class T>
bin_params make_params(T lo, T hi, std::size_t num_bins)
{
    bin_params bp;
    if constexpr (std::is_floating_point_v<T>) {
        // See hist_bin in histogram.cl: h = 1, or 0.5 when hi - lo overflows, or doubled until
        // num_bins / range is finite (tiny ranges; power-of-two scaling is exact there).
        T h = 1;
        if (std::isinf(hi - lo)) h = T(0.5);
        T range = hi * h - lo * h;
        T scale = T(num_bins) / range;
        while (std::isinf(scale) && h < std::numeric_limits<T>::max() / 4) {
            h *= 2;
            range = hi * h - lo * h;
            scale = T(num_bins) / range;
        }
        const T lower_h = lo * h;
        std::memcpy(bp.p[0], &h, sizeof(T));
        std::memcpy(bp.p[1], &lower_h, sizeof(T));
        std::memcpy(bp.p[2], &scale, sizeof(T));
    } else {
        using U = std::make_unsigned_t<T>;
        const U r = U(U(hi) - U(lo)); // exact: the difference of two values of T fits U
        std::memcpy(bp.p[0], &r, sizeof(T));
        if (r % num_bins == 0) {
            const U w = r / num_bins;
            if ((w & (w - 1)) == 0) {
                bp.shift_mode = true;
                while ((U(1) << bp.shift) < w) ++bp.shift;
            }
        }
        bp.est = cl_float(double(num_bins) / double(r));
    }
    return bp;
}

} // namespace

void histogram_impl_tuned(const buffer_range& in, const buffer_range& counts, std::size_t num_bins,
                          element_type type, const void* lower, const void* upper,
                          bc::command_queue& user_queue, std::size_t local_budget, unsigned copies,
                          std::size_t wg_size, int path)
{
    in_order_scope scope(user_queue); // in order on out-of-order queues too (queue_order.hpp)
    bc::command_queue& queue = scope.queue();
    // Everything is checked before anything is enqueued.
    if (num_bins == 0) throw invalid_argument_error(std::string(who) + ": num_bins must be at least 1");
    if (num_bins > std::numeric_limits<cl_uint>::max() - 1)
        throw invalid_argument_error(std::string(who) + ": num_bins too large");
    bin_params bp;
    visit_element_type(type, [&](auto tag) {
        using T = typename decltype(tag)::type;
        check_bounds(load<T>(lower), load<T>(upper));
        bp = make_params(load<T>(lower), load<T>(upper), num_bins);
    });
    if (counts.size < num_bins) throw invalid_argument_error(std::string(who) + ": counts range shorter than num_bins");
    const std::size_t esize = size_of(type);
    if (in.size != 0 && in.buffer.get() == counts.buffer.get()) {
        // Same buffer: the byte ranges must not overlap (counts are written while the input is read).
        const std::size_t a0 = in.offset * esize, a1 = a0 + in.size * esize;
        const std::size_t b0 = counts.offset * sizeof(cl_uint), b1 = b0 + num_bins * sizeof(cl_uint);
        if (a0 < b1 && b0 < a1) throw invalid_argument_error(std::string(who) + ": input and counts overlap");
    }
    const bc::device device = queue.get_device();
    require_type_support(type, device, who);
    if (in.size == 0) return;

    guarded(who, [&] {
        const std::size_t n = in.size;
        const device_profile& profile = profile_of(device);
        const histogram_policy pol = select_histogram_policy(profile, num_bins, local_budget, copies, path);
        const bool use_local = pol.use_local;
        const std::size_t tile_bins = pol.tile_bins, tiles = pol.tiles;
        copies = pol.copies;

        // Index type: 32-bit unless indices (with the chunk rounding) may pass 2^32.
        const bool wide = n + std::size_t(1) * 1024 * 1024 * 64 > std::numeric_limits<cl_uint>::max();
        std::string options = type_options(type, "T") + " -DWG_HIST_COPIES=" + std::to_string(copies) +
                              " -DHIST_INDEX=" + (wide ? "ulong" : "uint") +
                              " -DHIST_SHIFT_MODE=" + (bp.shift_mode ? "1" : "0");
        auto program = primitives_program(queue.get_context(), {"workgroup_histogram.cl", "histogram.cl"}, options);
        bc::kernel kernel = program.create_kernel(use_local ? "histogram_local" : "histogram_global");
        const auto lim = limits_for(kernel, device);

        std::size_t lsize = wg_size ? wg_size : std::min<std::size_t>(histogram_wg, floor_pow2(lim.max_work_group_size));
        lsize = std::max<std::size_t>(1, std::min(lsize, lim.max_work_group_size));
        // Enough groups to fill the device, few enough that each counts a long chunk (fewer
        // flushes); a group never counts more than 2^31 values (its local counters are 32-bit).
        const std::size_t step = lsize * histogram_items_per_step;
        const std::size_t resident = histogram_resident_groups(profile, lim.compute_units, lsize);
        std::size_t groups = std::min(ceil_div(n, step), std::max<std::size_t>(resident, ceil_div(n, std::size_t(1) << 31)));
        const std::size_t chunk = round_up(ceil_div(n, groups), step);
        groups = ceil_div(n, chunk);

        // The arguments before the bin parameters: the index type (n, chunk) is the kernel's HIST_INDEX.
        if (wide)
            set_kernel_args(kernel, in.buffer, cl_ulong(in.offset), cl_ulong(n), cl_ulong(chunk));
        else
            set_kernel_args(kernel, in.buffer, cl_ulong(in.offset), cl_uint(n), cl_uint(chunk));
        set_kernel_args_from(kernel, 4, counts.buffer, cl_ulong(counts.offset), cl_uint(num_bins),
            cl_uint(use_local ? tile_bins : num_bins), raw_value{esize, lower}, raw_value{esize, upper},
            raw_value{esize, bp.p[0]}, raw_value{esize, bp.p[1]}, raw_value{esize, bp.p[2]}, bp.shift, bp.est);
        if (use_local) {
            set_kernel_args_from(kernel, 15, local_bytes{tile_bins * copies * sizeof(cl_uint)});
            const std::size_t global[2] = {groups * lsize, tiles};
            const std::size_t local[2] = {lsize, 1};
            queue.enqueue_nd_range_kernel(kernel, 2, nullptr, global, local);
        } else {
            launch_1d(queue, kernel, groups * lsize, lsize);
        }
    });
}

void histogram_impl(const buffer_range& in, const buffer_range& counts, std::size_t num_bins,
                    element_type type, const void* lower, const void* upper, bc::command_queue& queue)
{
    histogram_impl_tuned(in, counts, num_bins, type, lower, upper, queue, 0, 0, 0, 0);
}

} // namespace detail
} // namespace clprim
