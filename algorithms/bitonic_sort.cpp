// Bitonic sort, three variants (issue #6): global (one launch per pass, over global memory), local
// (one launch per pass too, but the passes whose distance fits a work-group's tile run in local
// memory, a tile of two elements per work-item; larger distances as in global) and fused (issue
// #14: every launch runs many passes on a work-group's 2^B elements in registers and local memory:
// whole tiles sorted up front; per later stage its long distances m = B - c at a time on groups
// of 2^m rows x 2^c consecutive columns, then its short ones in one tile launch; see
// bitonic_policy here and the fused kernels in bitonic_fused.cl), and the transpose variant (issue
// #15: rows of a tile sorted in local memory; the distances of a stage that span rows run in local
// memory too, between a transpose of the matrix into a scratch buffer and one back). Two programs,
// both joined after bitonic_common.cl: the fused variant's kernels (bitonic_fused.cl, its shape as
// build options) and the others (bitonic_sort.cl). Works in place on the caller's range; see
// bitonic_common.cl for how any n is handled.
#include "bitonic_policy.hpp"
#include "bitonic_sort_cpu.hpp"
#include "sort_support.hpp"

#include <clprim/detail/kernel_launch.hpp>
#include <clprim/detail/knobs.hpp>
#include <clprim/detail/scratch_pool.hpp>
#include <clprim/detail/sort_trace.hpp>
#include <clprim/bitonic_sort.hpp>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <mutex>
#include <string>
#include <tuple>
#include <vector>

namespace clprim {
namespace detail {

namespace {

std::string bitonic_fused_options(const bitonic_policy& p)
{
    return " -DBITONIC_REG_BITS=" + std::to_string(p.reg_bits) + " -DBITONIC_TILE_BITS=" +
           std::to_string(p.tile_bits) + " -DBITONIC_COL_BITS=" + std::to_string(p.col_bits);
}

struct bitonic_launcher {
    bc::command_queue& queue;
    const sort_request& r;
    std::size_t n;

    void set_common(bc::kernel& k)
    {
        set_kernel_args(k, r.keys.buffer, cl_ulong(r.keys.offset), values_buffer_or(r),
            cl_ulong(r.has_values ? r.values.offset : 0), cl_ulong(n));
    }

    // m consecutive passes of stage k starting at distance j, 2^m elements per work-item
    // (bitonic_global_m1: m = 1).
    void global_passes(bc::kernel& kern, std::size_t wg, std::size_t N, std::size_t k, std::size_t j, unsigned m)
    {
        const std::size_t groups = N >> m;
        set_common(kern);
        set_kernel_args_from(kern, 5, cl_ulong(k), cl_ulong(j), cl_uint(j * 2 == k ? 1 : 0), cl_ulong(groups));
        const std::size_t local = std::min(wg, next_pow2(groups));
        launch_1d(queue, kern, round_up(groups, local), local);
    }

    // One launch of a fused kernel: tile launches (bitonic_group_sort, bitonic_group_tail) hold
    // 2^tile_bits consecutive elements per group; rows launches (bitonic_rows_m<m>) 2^m rows at
    // index bits [a, a + m) of stage k.
    void group(bc::kernel& kern, const bitonic_policy& p, std::size_t N, bool rows, std::size_t k, unsigned a)
    {
        const std::size_t size = std::size_t(1) << p.tile_bits;
        const std::size_t slots = size + size / 32;
        set_common(kern);
        const local_bytes key_tile{slots * size_of(r.key_type)};
        const local_bytes value_tile{r.has_values ? slots * value_bytes(r) : std::size_t(8)};
        if (rows)
            set_kernel_args_from(kern, 5, cl_ulong(k), cl_uint(a), key_tile, value_tile);
        else
            set_kernel_args_from(kern, 5, key_tile, value_tile);
        // Tiles past n hold nothing; rows groups all hold some of [0, n) (their rows span the range).
        const std::size_t groups = rows ? N / size : ceil_div(n, size);
        const std::size_t wg = std::size_t(1) << (p.tile_bits - p.reg_bits);
        launch_1d(queue, kern, groups * wg, wg);
    }

    // The pass of stage k with distance j < 2 * wg in local memory, one tile of 2 * wg per work-group.
    void local_pass(bc::kernel& kern, std::size_t wg, std::size_t N, std::size_t k, std::size_t j)
    {
        const std::size_t tile_size = 2 * wg;
        set_common(kern);
        set_kernel_args_from(kern, 5, cl_ulong(k), cl_ulong(j), local_bytes{round_up(tile_size * size_of(r.key_type), 32)},
            local_bytes{r.has_values ? tile_size * value_bytes(r) : std::size_t(8)});
        const std::size_t tiles = ceil_div(std::min(N, round_up(n, tile_size)), tile_size);
        launch_1d(queue, kern, tiles * wg, wg);
    }

    void tile(bc::kernel& kern, std::size_t wg, std::size_t tile_size, std::size_t N, std::size_t k_lo,
              std::size_t k_hi)
    {
        set_common(kern);
        set_kernel_args_from(kern, 5, cl_ulong(k_lo), cl_ulong(k_hi), local_bytes{round_up(tile_size * size_of(r.key_type), 32)},
            local_bytes{r.has_values ? tile_size * value_bytes(r) : std::size_t(8)});
        const std::size_t tiles = ceil_div(std::min(N, round_up(n, tile_size)), tile_size);
        launch_1d(queue, kern, tiles * wg, wg);
    }

    // One transpose between the caller's range and the scratch layout of stage 2^s: index bit
    // fields [lo, lo + w) and [0, w) swapped (see bitonic_sort.cl), tiles of 2^(c + a) elements.
    void transpose(bc::kernel& kern, std::size_t N, const bc::buffer& sk, const bc::buffer& sv, unsigned s,
                   unsigned lo, unsigned w, unsigned tile_bits, bool back)
    {
        const unsigned a = std::min(w, tile_bits / 2);
        const unsigned c = std::min(tile_bits - a, lo);
        const std::size_t count = std::size_t(1) << (c + a);
        const std::size_t slots = count + count / 32 + 1; // padded (TPAD in bitonic_sort.cl)
        set_common(kern);
        set_kernel_args_from(kern, 5, sk, sv, cl_uint(s), cl_uint(lo), cl_uint(w), cl_uint(c), cl_uint(a),
            cl_uint(back ? 1 : 0), local_bytes{round_up(slots * size_of(r.key_type), 32)},
            local_bytes{r.has_values ? slots * value_bytes(r) : std::size_t(8)});
        const std::size_t local = std::min(pow2_group_size(kern, queue.get_device(), 256), count);
        launch_1d(queue, kern, (N / count) * local, local);
    }

    // The w row-spanning passes of stage 2^s, as in-row passes on the transposed rows.
    void transposed_passes(bc::kernel& kern, std::size_t wg, std::size_t row, std::size_t N, const bc::buffer& sk,
                           const bc::buffer& sv, unsigned s, unsigned lo, unsigned w)
    {
        launch(queue, kern, (N / row) * wg, wg, sk, sv, cl_uint(row), cl_uint(s), cl_uint(lo), cl_uint(w),
            local_bytes{round_up(row * size_of(r.key_type), 32)}, local_bytes{r.has_values ? row * value_bytes(r) : std::size_t(8)});
    }
};

unsigned log2_exact(std::size_t p)
{
    unsigned b = 0;
    while ((std::size_t(1) << b) < p) ++b;
    return b;
}

// The fused program's kernels: the two tile kernels, then bitonic_rows_m1 .. m(tile_bits - col_bits).
std::vector<std::string> fused_kernel_names(const bitonic_policy& p)
{
    std::vector<std::string> names{"bitonic_group_sort", "bitonic_group_tail"};
    for (unsigned m = 1; m <= p.tile_bits - p.col_bits; ++m) names.push_back("bitonic_rows_m" + std::to_string(m));
    return names;
}

// Whether the fused kernels run with the work-group size they were built for (each kernel is built
// with reqd_work_group_size, so that size is the only one it takes). Asked only where
// CL_KERNEL_WORK_GROUP_SIZE reports less: NVIDIA's driver reports 256 for these kernels built for
// 512 work-items, and they run at 512 (measured on the H100; 512 saves a sweep per stage). One
// empty launch of each kernel (n = 0: nothing is read or written) decides.
bool fused_kernels_run(bc::command_queue& queue, const bc::program& fp, const bitonic_policy& p,
                       const sort_request& r)
{
    const std::size_t wg = std::size_t(1) << (p.tile_bits - p.reg_bits);
    const std::size_t slots = (std::size_t(1) << p.tile_bits) * 33 / 32;
    const std::vector<std::string> names = fused_kernel_names(p);
    for (std::size_t j = 0; j < names.size(); ++j) {
        bc::kernel k = fp.create_kernel(names[j]);
        set_kernel_args(k, r.keys.buffer, cl_ulong(0), values_buffer_or(r), cl_ulong(0), cl_ulong(0) /* n = 0 */);
        const local_bytes key_tile{slots * size_of(r.key_type)};
        const local_bytes value_tile{r.has_values ? slots * value_bytes(r) : std::size_t(8)};
        if (j >= 2) // bitonic_rows_m<j - 1>: rows [T - m, T) of stage 2^(T+1), no flip
            set_kernel_args_from(k, 5, cl_ulong(std::size_t(2) << p.tile_bits), cl_uint(p.tile_bits - (j - 1)),
                key_tile, value_tile);
        else
            set_kernel_args_from(k, 5, key_tile, value_tile);
        if (!launch_probe(queue, k, wg)) return false;
    }
    return true;
}

// The fused variant's shape on this queue's device, and its program. tile_bits comes down from the
// policy's until every kernel takes the work-group (register use: the driver's query, else one
// probe launch). That needs the built kernels, so the verdict is kept per context, device and
// starting shape (which includes the types and the CLPRIM_BITONIC_* overrides), not redone per call.
bc::program fused_program(bc::command_queue& queue, const sort_request& r, bitonic_policy& p)
{
    static std::mutex mutex;
    static std::map<std::tuple<cl_context, cl_device_id, std::string>, bitonic_policy> shapes;
    const bc::device device = queue.get_device();
    const auto build = [&] {
        return algorithms_program(queue.get_context(), {"sort_key_order.cl", "bitonic_common.cl", "bitonic_fused.cl"},
                                  sort_build_options(r) + bitonic_fused_options(p));
    };
    const auto key = std::make_tuple(queue.get_context().get(), device.get(), sort_build_options(r) + bitonic_fused_options(p));
    std::lock_guard<std::mutex> lock(mutex);
    if (auto it = shapes.find(key); it != shapes.end()) {
        p = it->second;
        return build();
    }
    for (;;) {
        bc::program fp = build();
        const std::size_t wg = std::size_t(1) << (p.tile_bits - p.reg_bits);
        std::size_t allowed = wg;
        for (const std::string& name : fused_kernel_names(p))
            allowed = std::min(allowed, limits_for(fp.create_kernel(name), device).max_work_group_size);
        if (wg <= allowed || p.tile_bits == p.reg_bits || fused_kernels_run(queue, fp, p, r)) {
            shapes[key] = p;
            return fp;
        }
        --p.tile_bits;
        p.col_bits = std::min(p.col_bits, p.tile_bits - 1);
    }
}

// The fused variant (its own program, bitonic_fused.cl: the group kernels only). Every tile
// sorted in one launch; then per stage k = 2^s > tile its distances from 2^(s-1) down to the
// tile, m = tile_bits - col_bits (or fewer) per rows launch, and its distances below the tile in
// one tail launch. At 2^26 with 13-bit groups and 8 row bits: 1 + 18 rows + 13 tail launches =
// 32 sweeps over the data.
void sort_fused(bc::command_queue& queue, const sort_request& r, bitonic_launcher& launch, std::size_t N)
{
    bitonic_policy p = select_bitonic_policy(profile_of(queue.get_device()), r);
    const bc::program fp = fused_program(queue, r, p);
    const unsigned T = p.tile_bits, S = log2_exact(N);
    {
        bc::kernel sk = fp.create_kernel("bitonic_group_sort");
        profile_label label("sort"); // launch roles apart in kernel profiles (bench bitonic_profile)
        launch.group(sk, p, N, false, 0, 0);
    }
    if (S <= T) return;
    bc::kernel tail = fp.create_kernel("bitonic_group_tail");
    bc::kernel rows[bitonic_max_rows + 1];
    for (unsigned s = T + 1; s <= S; ++s) {
        const std::size_t k = std::size_t(1) << s;
        for (unsigned top = s - 1; top >= T;) { // passes on index bits top .. T
            const unsigned m = std::min(top - T + 1, T - p.col_bits);
            if (!rows[m].get()) rows[m] = fp.create_kernel("bitonic_rows_m" + std::to_string(m));
            profile_label label(m == T - p.col_bits ? "rows" : "rows_short");
            launch.group(rows[m], p, N, true, k, top - m + 1);
            top -= m;
        }
        profile_label label("tail");
        launch.group(tail, p, N, false, k, 0);
    }
}

// Elements per work-item in the transpose variant's tile kernel: 8 (the last three passes of a
// stage in registers).
constexpr std::size_t transpose_elems = 8;

// The program of the global, local and transpose variants (bitonic_sort.cl).
bc::program variants_program(const bc::command_queue& queue, const sort_request& r)
{
    return algorithms_program(queue.get_context(), {"sort_key_order.cl", "bitonic_common.cl", "bitonic_sort.cl"},
                              sort_build_options(r) + " -DBITONIC_ELEMS=" + std::to_string(transpose_elems));
}

std::size_t bytes_per_element(const sort_request& r) { return size_of(r.key_type) + (r.has_values ? value_bytes(r) : 0); }

// The global variant: one launch per pass over global memory.
void sort_global(bc::command_queue& queue, const sort_request& r, bitonic_launcher& launch, const bc::program& program,
                 std::size_t N)
{
    bc::kernel g1 = program.create_kernel("bitonic_global_m1");
    const std::size_t gwg = pow2_group_size(g1, queue.get_device(), 256);
    sort_observer* trace = sort_trace(); // examples/sort_steps prints every pass
    for (std::size_t k = 2; k <= N; k <<= 1)
        for (std::size_t j = k / 2; j >= 1; j >>= 1) {
            launch.global_passes(g1, gwg, N, k, j, 1);
            if (trace) trace->bitonic_pass(queue, r.keys, k, j);
        }
}

// The local variant: a tile of 2 elements per work-item of a power-of-two work-group, within half
// the device's local memory, no larger than the padded input. Per stage k the passes with
// distance >= tile go over global memory, the others one launch each in local memory.
void sort_local(bc::command_queue& queue, const sort_request& r, bitonic_launcher& launch, const bc::program& program,
                std::size_t N)
{
    const bc::device device = queue.get_device();
    bc::kernel g1 = program.create_kernel("bitonic_global_m1");
    const std::size_t gwg = pow2_group_size(g1, device, 256);
    bc::kernel lp = program.create_kernel("bitonic_local_pass");
    const device_limits lim = limits_for(lp, device);
    std::size_t wg = pow2_group_size(lp, device, 256);
    while (wg > 1 && wg * 2 * bytes_per_element(r) > lim.local_mem_size / 2) wg /= 2;
    wg = std::min(wg, std::max<std::size_t>(1, N / 2));
    const std::size_t tile = wg * 2;
    for (std::size_t k = 2; k <= N; k <<= 1) {
        std::size_t j = k / 2;
        for (; j >= tile; j >>= 1) launch.global_passes(g1, gwg, N, k, j, 1);
        for (; j >= 1; j >>= 1) launch.local_pass(lp, wg, N, k, j);
    }
}

// The transpose variant: tile size a power-of-two work-group times transpose_elems, within the
// device's local memory, and no larger than the (padded) input needs. Rows of `tile` elements,
// sorted in local memory; then per stage k > tile the row-spanning distances (bits L .. s-1 of
// the index, at most L of them per transpose) between a transpose into the scratch layout and
// one back, and the stage's in-row passes in one tile launch. Transposes move tiles of
// 2^tile_bits elements, within half the local memory.
void sort_transpose(bc::command_queue& queue, const sort_request& r, bitonic_launcher& launch, const bc::program& program,
                    std::size_t N)
{
    const bc::device device = queue.get_device();
    const std::size_t elems = transpose_elems;
    const std::size_t bytes_per_elem = bytes_per_element(r);
    bc::kernel tk = program.create_kernel("bitonic_tile");
    const device_limits lim = limits_for(tk, device);
    std::size_t wg = pow2_group_size(tk, device, 256);
    while (wg > 1 && wg * elems * bytes_per_elem > lim.local_mem_size / 2) wg /= 2;
    wg = std::min(wg, std::max<std::size_t>(1, N / elems));
    // CLPRIM_BITONIC_TILE=<elements> caps the tile (fused and transpose), for tests: tiny tiles
    // make a few thousand keys take stages with many row-spanning distances.
    if (const auto cap = knob_number("CLPRIM_BITONIC_TILE", 0, std::size_t(-1)))
        while (wg > 1 && wg * elems > *cap) wg /= 2;
    const std::size_t tile = wg * elems;

    launch.tile(tk, wg, tile, N, 2, std::min(tile, N));
    if (N <= tile) return;
    bc::kernel tr = program.create_kernel("bitonic_transpose");
    bc::kernel tp = program.create_kernel("bitonic_transposed_passes");
    const std::size_t twg = std::min(wg, pow2_group_size(tp, device, 256));
    unsigned tile_bits = 10;
    while (tile_bits > 2 && (std::size_t(1) << tile_bits) * 33 / 32 * bytes_per_elem > limits_for(tr, device).local_mem_size / 2)
        --tile_bits;
    const unsigned L = log2_exact(tile), B = log2_exact(N);
    scratch_lease lease(queue);
    const bc::buffer sk = lease.buffer(N * size_of(r.key_type));
    const bc::buffer sv = r.has_values ? lease.buffer(N * value_bytes(r)) : sk;
    for (unsigned s = L + 1; s <= B; ++s) {
        for (unsigned hi = s; hi > L;) {
            const unsigned w = std::min(L, hi - L), lo = hi - w;
            launch.transpose(tr, N, sk, sv, s, lo, w, tile_bits, false);
            launch.transposed_passes(tp, twg, tile, N, sk, sv, s, lo, w);
            launch.transpose(tr, N, sk, sv, s, lo, w, tile_bits, true);
            hi = lo;
        }
        launch.tile(tk, wg, tile, N, std::size_t(1) << s, std::size_t(1) << s);
    }
}

} // namespace

void bitonic_sort_impl(const sort_request& r, bitonic_variant variant, bc::command_queue& user_queue)
{
    in_order_scope scope(user_queue); // in order on out-of-order queues too (queue_order.hpp)
    bc::command_queue& queue = scope.queue();
    const char* who = "clprim::bitonic_sort";
    const bc::device device = queue.get_device();
    check_sort_types(r, device, who);
    if (variant != bitonic_variant::global && variant != bitonic_variant::local && variant != bitonic_variant::fused &&
        variant != bitonic_variant::transpose)
        throw invalid_argument_error(std::string(who) + ": unknown bitonic_variant");
    const std::size_t n = r.keys.size;
    if (n < 2) return;
    // CPU devices sort `fused` with the CPU-shaped network (bitonic_sort_cpu.cpp, CLPRIM_BITONIC_PATH).
    if (bitonic_cpu_path_wanted(device, variant)) return guarded(who, [&] { bitonic_sort_cpu(r, queue); });

    guarded(who, [&] {
        const std::size_t N = next_pow2(n);
        bitonic_launcher launch{queue, r, n};
        if (variant == bitonic_variant::fused) return sort_fused(queue, r, launch, N);
        const bc::program program = variants_program(queue, r);
        if (variant == bitonic_variant::global) return sort_global(queue, r, launch, program, N);
        if (variant == bitonic_variant::local) return sort_local(queue, r, launch, program, N);
        sort_transpose(queue, r, launch, program, N);
    });
}

} // namespace detail
} // namespace clprim
