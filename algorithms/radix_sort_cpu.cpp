// Host side of the radix sort's CPU path (algorithms/radix_sort_cpu.cl): per pass a count of each
// chunk's digits, a small offsets kernel and one sequential stable scatter, each work-item owning
// one contiguous chunk. One read-back per call (which digits vary, after the first count).
#include "radix_policy.hpp"
#include "radix_sort_cpu.hpp"
#include "sort_support.hpp"

#include <clprim/detail/algorithms_kernels.hpp>
#include <clprim/detail/device_limits.hpp>
#include <clprim/detail/kernel_launch.hpp>
#include <clprim/detail/knobs.hpp>
#include <clprim/detail/scratch_pool.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <cstdio>
#include <string>
#include <vector>

namespace clprim {
namespace detail {

void radix_sort_cpu_impl(const sort_request& r, bc::command_queue& queue)
{
    const char* who = r.has_values ? "clprim::radix_sort_by_key" : "clprim::radix_sort";
    const std::size_t n = r.keys.size;
    if (n < 2) return;

    guarded(who, [&] {
        const bc::device device = queue.get_device();
        const radix_cpu_policy pol = select_radix_cpu_policy(profile_of(device), r);
        const std::size_t key_size = size_of(r.key_type);
        const std::size_t value_size = r.has_values ? size_of(r.value_type) : 4;
        const unsigned key_bits = unsigned(key_size * 8);
        const unsigned num_passes = (key_bits + pol.digit_bits - 1) / pol.digit_bits;
        const std::size_t radix = std::size_t(1) << pol.digit_bits;
        const std::size_t chunk = ceil_div(n, pol.chunks);
        const std::size_t chunks = ceil_div(n, chunk);

        std::string options = type_options(r.key_type, "K") + " -DDIGIT_BITS=" + std::to_string(pol.digit_bits) +
                              " -DPASSES=" + std::to_string(num_passes) + " -DWC_LINE=" + std::to_string(pol.wc_line);
        if (r.order == sort_order::descending) options += " -DSORT_DESCENDING";
        if (r.has_values) options += std::string(" -DHAS_VALUES -DV=") + bits_name(r.value_type);
        const bc::program program =
            algorithms_program(queue.get_context(), {"sort_key_order.cl", "radix_sort_cpu.cl"}, options);
        bc::kernel count = program.create_kernel("radix_cpu_count");
        bc::kernel offsets = program.create_kernel("radix_cpu_offsets");
        bc::kernel scatter = program.create_kernel("radix_cpu_scatter");

        // Every temporary of the call, from the queue's scratch pool.
        scratch_lease scratch(queue);
        const bc::buffer counts = scratch.buffer(chunks * num_passes * radix * sizeof(cl_uint));
        const bc::buffer masks = scratch.buffer(chunks * 2 * key_size);
        const bc::buffer keys_a = scratch.buffer(n * key_size);
        const bc::buffer values_a = r.has_values ? scratch.buffer(n * value_size) : keys_a;

        // (1) + (2) for one pass: the chunks' digit counts, then their output slots.
        auto count_and_offsets = [&](const bc::buffer& keys, std::size_t off, unsigned pass, bool convert, bool want_mask) {
            launch(queue, count, chunks, 1, keys, cl_ulong(off), cl_ulong(n), cl_ulong(chunk), cl_uint(pass),
                cl_uint(convert), counts, masks, cl_uint(want_mask));
            launch(queue, offsets, 1, 1, counts, cl_ulong(chunks), cl_uint(pass));
        };

        // The first pass's counts and which digits vary (the one read-back of the call).
        count_and_offsets(r.keys.buffer, r.keys.offset, 0, true, true);
        std::vector<std::uint64_t> any_all(2 * chunks);
        {   // masks of key_size bytes each (little-endian, as OpenCL devices and hosts here are)
            std::vector<unsigned char> m(2 * chunks * key_size);
            queue.enqueue_read_buffer(masks, 0, m.size(), m.data());
            for (std::size_t i = 0; i < any_all.size(); ++i) {
                any_all[i] = 0;
                std::memcpy(&any_all[i], &m[i * key_size], key_size);
            }
        }
        std::uint64_t any = 0, all = ~std::uint64_t(0);
        for (std::size_t c = 0; c < chunks; ++c) {
            any |= any_all[2 * c];
            all &= any_all[2 * c + 1];
        }
        std::uint64_t varying = any ^ all;
        if (key_size < 8) varying &= (std::uint64_t(1) << (8 * key_size)) - 1;
        const std::vector<unsigned> passes = varying_digit_passes(varying, num_passes, pol.digit_bits);
        if (passes.empty()) return; // every key has the same bits: already in (stable) order

        // (3) One scatter per varying digit, ping-ponging through scratch; the last lands in the
        // caller's range.
        const sort_pingpong places(queue, r, scratch, keys_a, values_a, n, passes.size());
        const std::size_t wc_elems = pol.wc_line ? radix * pol.wc_line : 1;
        for (std::size_t i = 0; i < passes.size(); ++i) {
            const bool first = i == 0, last = i + 1 == passes.size();
            const sort_place& from = places.from(i);
            const sort_place& to = places.to(i);
            // Pass 0's slots are there already (same keys, same chunks) if pass 0 runs first.
            if (!(first && passes[i] == 0)) count_and_offsets(from.k, from.koff, passes[i], first, false);
            set_kernel_args(scatter, from.k, cl_ulong(from.koff), to.k, cl_ulong(to.koff), from.v,
                cl_ulong(from.voff), to.v, cl_ulong(to.voff), cl_ulong(n), cl_ulong(chunk),
                cl_uint(passes[i]));
            // The caller's keys are converted on the first read; a one-pass sort reads a copy of them.
            set_kernel_args_from(scatter, 11, cl_uint(first), cl_uint(last), counts, local_bytes{wc_elems * key_size},
                local_bytes{r.has_values ? wc_elems * value_size : 8});
            launch_1d(queue, scatter, chunks, 1);
        }
    });
}

} // namespace detail
} // namespace clprim
