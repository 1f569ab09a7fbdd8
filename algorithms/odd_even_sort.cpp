// Odd-even transposition sort (issue #6): n phases of neighbour compare-exchange, O(n^2) work, so
// for teaching and small inputs (up to a few thousand elements), but correct for any n. Kernels
// in odd_even_sort.cl:
// - A range that fits one work-group's local memory runs all n phases in one launch
//   (odd_even_local).
// - A larger range runs its phases in blocks of P per launch (odd_even_tiles): each work-group
//   owns a tile of T positions and holds it with a halo of P positions on each side in local
//   memory, which makes the tiles independent for P phases (see the kernel for why). Launches
//   ping-pong between the caller's range and a scratch buffer, because work-groups read their
//   neighbours' positions as halo while writing their own.
// - The phases left over after the blocks (fewer than the number of blocks) run as global passes,
//   one launch per phase over global memory (odd_even_global), in place.
// CLPRIM_ODD_EVEN_WINDOW=<elements> caps what one work-group holds in local memory (both paths),
// for tests and measurements: small windows put a range of a few hundred elements on many tiles.
#include "sort_support.hpp"

#include <clprim/detail/kernel_launch.hpp>
#include <clprim/detail/knobs.hpp>
#include <clprim/detail/scratch_pool.hpp>
#include <clprim/odd_even_sort.hpp>

#include <cstdlib>

namespace clprim {
namespace detail {

namespace {

// The CLPRIM_ODD_EVEN_WINDOW cap, or 0 (none).
std::size_t window_cap()
{
    return knob_number("CLPRIM_ODD_EVEN_WINDOW", 0, std::size_t(-1)).value_or(0);
}

std::size_t capped(std::size_t x, std::size_t cap) { return cap ? std::min(x, cap) : x; }

} // namespace

void odd_even_sort_impl(const sort_request& r, bc::command_queue& user_queue)
{
    in_order_scope scope(user_queue); // in order on out-of-order queues too (queue_order.hpp)
    bc::command_queue& queue = scope.queue();
    const char* who = "clprim::odd_even_sort";
    const bc::device device = queue.get_device();
    check_sort_types(r, device, who);
    const std::size_t n = r.keys.size;
    if (n < 2) return;

    guarded(who, [&] {
        const bc::program program =
            algorithms_program(queue.get_context(), {"sort_key_order.cl", "odd_even_sort.cl"}, sort_build_options(r));
        const bc::buffer& vbuf = values_buffer_or(r);
        const cl_ulong koff = r.keys.offset;
        const cl_ulong voff = r.has_values ? r.values.offset : 0;
        const std::size_t kbytes = size_of(r.key_type), vbytes = r.has_values ? value_bytes(r) : 0;
        const std::size_t cap = window_cap();

        bc::kernel lk = program.create_kernel("odd_even_local");
        const device_limits lim = limits_for(lk, device);
        // Local path: up to 8 elements per work-item of one work-group, within local memory.
        std::size_t wg = pow2_group_size(lk, device, 256);
        const std::size_t capacity = capped(std::min(wg * 8, lim.local_mem_size / 2 / (kbytes + vbytes)), cap);
        if (n <= capacity) {
            wg = std::min(wg, next_pow2(ceil_div(n, 2)));
            launch(queue, lk, wg, wg, r.keys.buffer, koff, vbuf, voff, cl_uint(n), local_bytes{round_up(n * kbytes, 32)},
                local_bytes{r.has_values ? n * vbytes : std::size_t(8)});
            return;
        }

        // Tiled blocks. A window of W = T + 2P elements per work-group: W = 4 x work-group size
        // (each work-item takes at most two pairs per phase), within half the local memory. Tile
        // T = W/2 and halo P = W/4 = T/2: half of each window is halo, so a block does about twice
        // the compare-exchanges of P global phases, but the n phases need about n/P launches instead
        // of n, and an input this algorithm is meant for is a handful of tiles whose work-groups run
        // side by side: launches and barrier rounds, not the redundant work, set the time.
        bc::kernel tk = program.create_kernel("odd_even_tiles");
        const device_limits tlim = limits_for(tk, device);
        const std::size_t twg = pow2_group_size(tk, device, 256);
        const std::size_t window = capped(std::min(twg * 4, tlim.local_mem_size / 2 / (kbytes + vbytes)), cap) / 4 * 4;
        const std::size_t tile = window / 2, max_phases = window / 4;
        // L blocks of P = floor(n / L) phases (P <= max_phases), then the n - L*P < L phases left
        // as global passes (with no window to fit at all, every phase is a global pass).
        const std::size_t blocks = max_phases ? ceil_div(n, max_phases) : 0;
        const std::size_t phases = blocks ? n / blocks : 0;

        // Ping-pong between the caller's range (offset koff/voff) and scratch (offset 0).
        const bc::buffer* keys_at[2] = {&r.keys.buffer, nullptr};
        const bc::buffer* vals_at[2] = {&vbuf, nullptr};
        const cl_ulong koff_at[2] = {koff, 0}, voff_at[2] = {voff, 0};
        bc::buffer kscratch, vscratch;
        scratch_lease lease(queue); // reused from the last call on this queue where it fits
        if (blocks) {
            kscratch = lease.buffer(n * kbytes);
            if (r.has_values) vscratch = lease.buffer(n * vbytes);
            keys_at[1] = &kscratch;
            vals_at[1] = r.has_values ? &vscratch : &kscratch;
            set_kernel_args_from(tk, 8, cl_ulong(n));
            set_kernel_args_from(tk, 10, cl_uint(phases), cl_uint(tile), local_bytes{round_up((tile + 2 * phases) * kbytes, 32)},
                local_bytes{r.has_values ? (tile + 2 * phases) * vbytes : std::size_t(8)});
        }
        int cur = 0;
        for (std::size_t b = 0; b < blocks; ++b, cur ^= 1) {
            set_kernel_args(tk, *keys_at[cur], koff_at[cur], *vals_at[cur], voff_at[cur], *keys_at[cur ^ 1],
                koff_at[cur ^ 1], *vals_at[cur ^ 1], voff_at[cur ^ 1]);
            set_kernel_args_from(tk, 9, cl_ulong(b * phases));
            launch_1d(queue, tk, ceil_div(n, tile) * twg, twg);
        }

        // The phases left over, on whichever buffer holds the data now.
        bc::kernel gk = program.create_kernel("odd_even_global");
        const std::size_t gwg = pow2_group_size(gk, device, 256);
        set_kernel_args(gk, *keys_at[cur], koff_at[cur], *vals_at[cur], voff_at[cur], cl_ulong(n));
        for (std::size_t phase = blocks * phases; phase < n; ++phase) {
            set_kernel_args_from(gk, 5, cl_uint(phase & 1));
            launch_1d(queue, gk, round_up(n / 2, gwg), gwg);
        }

        if (cur == 1) {
            queue.enqueue_copy_buffer(kscratch, r.keys.buffer, 0, koff * kbytes, n * kbytes);
            if (r.has_values) queue.enqueue_copy_buffer(vscratch, r.values.buffer, 0, voff * vbytes, n * vbytes);
        }
    });
}

} // namespace detail
} // namespace clprim
