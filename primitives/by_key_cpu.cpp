// The by-key family's CPU path's launches (by_key_cpu.hpp).
#include "by_key_cpu.hpp"

#include <clprim/detail/device_limits.hpp>
#include <clprim/detail/kernel_launch.hpp>
#include <clprim/detail/lookback_slots.hpp>
#include <clprim/detail/scratch_pool.hpp>

#include <algorithm>

namespace clprim {
namespace detail {

void by_key_cpu_launch(bc::command_queue& queue, const by_key_policy& policy, by_key_cpu_kernels kernels, std::size_t n,
                       std::size_t compute_units, std::size_t value_bytes, std::size_t slots_per_piece, bool in_place,
                       const std::function<void(bc::kernel&)>& set_args)
{
    if (policy.single_pass) {
        const std::size_t piece = std::max<std::size_t>(1, policy.piece), pieces = ceil_div(n, piece);
        // (word 0 the piece counter; one word more, as the look-back path's slots)
        const lookback_slots status = take_lookback_slots(queue, 2 + pieces * slots_per_piece);
        set_args(kernels.single);
        set_kernel_args_from(kernels.single, 15, cl_ulong(piece), cl_uint(pieces), status.buffer, status.epoch,
                             cl_uint(in_place ? 1 : 0));
        launch_1d(queue, kernels.single, std::min(pieces, std::max<std::size_t>(1, compute_units)), 1);
        return;
    }
    scratch_lease lease(queue);
    const std::size_t chunks =
        std::max<std::size_t>(1, std::min(ceil_div(n, policy.min_chunk), policy.chunks_per_cu * compute_units));
    const std::size_t chunk = ceil_div(n, chunks);
    const bc::buffer agg_c = lease.buffer(chunks * sizeof(cl_uint));
    const bc::buffer agg_v = lease.buffer(chunks * value_bytes);
    set_args(kernels.count);
    set_kernel_args_from(kernels.count, 15, cl_ulong(chunk), agg_c, agg_v);
    launch_1d(queue, kernels.count, chunks, 1);
    set_args(kernels.emit);
    set_kernel_args_from(kernels.emit, 15, cl_ulong(chunk), agg_c, agg_v);
    launch_1d(queue, kernels.emit, chunks, 1);
}

} // namespace detail
} // namespace clprim
