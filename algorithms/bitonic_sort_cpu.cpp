// Host side of the bitonic sort's CPU path (algorithms/bitonic_sort_cpu.cl): the same network as
// the GPU variants, run as long loops per work-item: whole cache-sized blocks first, then per
// later stage its long-distance passes over the whole array and its short ones block by block.
#include "bitonic_policy.hpp"
#include "bitonic_sort_cpu.hpp"
#include "sort_support.hpp"

#include <clprim/detail/device_profile.hpp>
#include <clprim/detail/kernel_launch.hpp>
#include <clprim/detail/knobs.hpp>

#include <algorithm>
#include <cstdlib>
#include <cstring>

namespace clprim {
namespace detail {

bool bitonic_cpu_path_wanted(const bc::device& device, bitonic_variant variant)
{
    return select_bitonic_cpu_path(profile_of(device), variant);
}

void bitonic_sort_cpu(const sort_request& r, bc::command_queue& queue)
{
    const std::size_t n = r.keys.size;
    const std::size_t N = next_pow2(n);
    const bitonic_cpu_policy pol = select_bitonic_cpu_policy(profile_of(queue.get_device()), r, N);
    const bc::program program =
        algorithms_program(queue.get_context(), {"sort_key_order.cl", "bitonic_sort_cpu.cl"}, sort_build_options(r));
    bc::kernel bk = program.create_kernel("bitonic_cpu_blocks");
    bc::kernel mk = program.create_kernel("bitonic_cpu_mirror");
    bc::kernel pk = program.create_kernel("bitonic_cpu_pass");
    const bc::buffer& values = values_buffer_or(r);
    const cl_ulong voff = r.has_values ? r.values.offset : 0;

    auto common = [&](bc::kernel& k) {
        set_kernel_args(k, r.keys.buffer, cl_ulong(r.keys.offset), values, voff, cl_ulong(n));
    };
    const std::size_t blocks = ceil_div(n, pol.block);
    const std::size_t per_block = ceil_div(blocks, std::min(blocks, pol.workers));
    auto block_stages = [&](std::size_t k_lo, std::size_t k_hi, bool convert_in, bool convert_out) {
        common(bk);
        set_kernel_args_from(bk, 5, cl_ulong(pol.block), cl_ulong(per_block), cl_ulong(k_lo), cl_ulong(k_hi),
            cl_uint(convert_in), cl_uint(convert_out));
        launch_1d(queue, bk, ceil_div(blocks, per_block), 1);
    };
    const std::size_t half = N / 2;
    const std::size_t per_half = ceil_div(half, pol.workers);
    const std::size_t workers = ceil_div(half, per_half);
    auto whole_pass = [&](bc::kernel& k, std::size_t dist) {
        common(k);
        set_kernel_args_from(k, 5, cl_ulong(dist), cl_ulong(half), cl_ulong(per_half));
        launch_1d(queue, k, workers, 1);
    };

    // Stages 2 .. block inside each block (keys become sortable bits), then every later stage:
    // its mirror pass and passes down to the block size over the whole array, the rest per block.
    block_stages(2, pol.block, true, N == pol.block);
    for (std::size_t k = 2 * pol.block; k <= N; k <<= 1) {
        whole_pass(mk, k);
        for (std::size_t j = k / 4; j >= pol.block; j >>= 1) whole_pass(pk, j);
        block_stages(k, k, false, k == N);
    }
}

} // namespace detail
} // namespace clprim
