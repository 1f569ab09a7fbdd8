// Odd-even transposition sort (issue #6): O(n^2) work, for teaching and small inputs. A range that
// fits one work-group's local memory runs all n phases in one launch; a larger one runs one launch
// per phase over global memory (n launches: keep it to a few thousand elements).
#include "sort_support.hpp"

#include <clprim/odd_even_sort.hpp>

namespace clprim {
namespace detail {

void odd_even_sort_impl(const sort_request& r, bc::command_queue& queue)
{
    const char* who = "clprim::odd_even_sort";
    const bc::device device = queue.get_device();
    check_sort_types(r, device, who);
    const std::size_t n = r.keys.size;
    if (n < 2) return;

    guarded(who, [&] {
        const bc::program program =
            algorithms_program(queue.get_context(), {"sort_key_order.cl", "odd_even_sort.cl"}, sort_build_options(r));
        const bc::buffer& vbuf = values_buffer_or(r);
        const cl_ulong voff = r.has_values ? r.values.offset : 0;

        bc::kernel lk = program.create_kernel("odd_even_local");
        const device_limits lim = limits_for(lk, device);
        const std::size_t kbytes = size_of(r.key_type), vbytes = r.has_values ? value_bytes(r) : 0;
        // Local path: up to 8 elements per work-item of one work-group, within local memory.
        std::size_t wg = pow2_group_size(lk, device, 256);
        const std::size_t capacity = std::min(wg * 8, lim.local_mem_size / 2 / (kbytes + vbytes));
        if (n <= capacity) {
            wg = std::min(wg, next_pow2(ceil_div(n, 2)));
            lk.set_arg(0, r.keys.buffer);
            lk.set_arg(1, cl_ulong(r.keys.offset));
            lk.set_arg(2, vbuf);
            lk.set_arg(3, voff);
            lk.set_arg(4, cl_uint(n));
            lk.set_arg(5, n * kbytes, nullptr);
            lk.set_arg(6, r.has_values ? n * vbytes : std::size_t(8), nullptr);
            queue.enqueue_1d_range_kernel(lk, 0, wg, wg);
            return;
        }

        bc::kernel gk = program.create_kernel("odd_even_global");
        const std::size_t gwg = pow2_group_size(gk, device, 256);
        gk.set_arg(0, r.keys.buffer);
        gk.set_arg(1, cl_ulong(r.keys.offset));
        gk.set_arg(2, vbuf);
        gk.set_arg(3, voff);
        gk.set_arg(4, cl_ulong(n));
        const std::size_t pairs = n / 2;
        for (std::size_t phase = 0; phase < n; ++phase) {
            gk.set_arg(5, cl_uint(phase & 1));
            queue.enqueue_1d_range_kernel(gk, 0, round_up(pairs, gwg), gwg);
        }
    });
}

} // namespace detail
} // namespace clprim
