#pragma once
// Private helpers shared by the comparison sorts (bitonic, odd-even, merge): build options, type
// checks, kernel launch sizes. Not installed.
#include <clprim/detail/algorithms_kernels.hpp>
#include <clprim/detail/device_limits.hpp>
#include <clprim/detail/kernel_launch.hpp>
#include <clprim/detail/scratch_pool.hpp>
#include <clprim/sort_types.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace clprim {
namespace detail {

// Throws unsupported_error for a key or value type the device cannot handle (before any enqueue).
inline void check_sort_types(const sort_request& r, const bc::device& device, const char* who)
{
    require_type_support(r.key_type, device, who);
    if (r.has_values) require_type_support(r.value_type, device, who);
}

// -DK... -DV... [-DSORT_DESCENDING] [-DSORT_HAS_VALUES]: the options every comparison-sort program
// is built with (V is defined even without values, so kernels keep one signature).
inline std::string sort_build_options(const sort_request& r)
{
    std::string o = type_options(r.key_type, "K") + type_options(r.has_values ? r.value_type : element_type::uint32, "V");
    if (r.order == sort_order::descending) o += " -DSORT_DESCENDING";
    if (r.has_values) o += " -DSORT_HAS_VALUES";
    return o;
}

// A sub-buffer view is not needed: kernels take the caller's buffer and an element offset. This
// returns the buffer that stands in for the values when there are none (never read or written).
inline const bc::buffer& values_buffer_or(const sort_request& r)
{
    return r.has_values ? r.values.buffer : r.keys.buffer;
}

// Where a sort's keys and values live for one kernel argument group: the caller's range or a
// scratch pair. Kernels take them as (keys, key offset, values, value offset).
struct sort_place {
    bc::buffer k, v;
    std::size_t koff = 0, voff = 0;

    static sort_place caller(const sort_request& r)
    {
        return {r.keys.buffer, values_buffer_or(r), r.keys.offset, r.has_values ? r.values.offset : 0};
    }
    bool same_keys(const sort_place& o) const { return k.get() == o.k.get() && koff == o.koff; }
    // Sets arguments first .. first + 3 of kern; returns the next argument's index.
    unsigned set_args(bc::kernel& kern, unsigned first) const
    {
        set_kernel_args_from(kern, first, k, cl_ulong(koff), v, cl_ulong(voff));
        return first + 4;
    }
};

// The LSD passes a radix sort needs: one per digit whose bits differ among the keys (varying =
// the OR of all keys XOR their AND). A digit every key shares leaves the (stable) order as it is.
inline std::vector<unsigned> varying_digit_passes(std::uint64_t varying, unsigned num_passes, unsigned digit_bits)
{
    const std::uint64_t digit_mask = (std::uint64_t(1) << digit_bits) - 1;
    std::vector<unsigned> passes;
    for (unsigned p = 0; p < num_passes; ++p)
        if ((varying >> (p * digit_bits)) & digit_mask) passes.push_back(p);
    return passes;
}

// Ping-pong of scatter passes that each read one place and write another: caller -> a -> b -> a
// ... and the last pass back into the caller's range. One pass cannot scatter in place, so a
// single-pass sort first copies the input into a and reads it from there (start()).
struct sort_pingpong {
    sort_place caller, a, b;
    std::size_t passes;

    // a is the scratch pair the caller already holds; b is leased only when two or more passes
    // need it (without values b.v stands in as b.k, never read).
    sort_pingpong(bc::command_queue& queue, const sort_request& r, scratch_lease& scratch, const bc::buffer& keys_a,
        const bc::buffer& values_a, std::size_t n, std::size_t pass_count)
        : caller(sort_place::caller(r)), a{keys_a, r.has_values ? values_a : keys_a, 0, 0}, b(a), passes(pass_count)
    {
        const std::size_t key_size = size_of(r.key_type);
        if (passes == 1) {
            queue.enqueue_copy_buffer(caller.k, a.k, caller.koff * key_size, 0, n * key_size);
            if (r.has_values) {
                const std::size_t value_size = size_of(r.value_type);
                queue.enqueue_copy_buffer(caller.v, a.v, caller.voff * value_size, 0, n * value_size);
            }
        } else if (passes > 1) {
            b.k = scratch.buffer(n * key_size);
            b.v = r.has_values ? scratch.buffer(n * size_of(r.value_type)) : b.k;
        }
    }
    const sort_place& from(std::size_t i) const { return i == 0 ? (passes == 1 ? a : caller) : (i % 2 == 1 ? a : b); }
    const sort_place& to(std::size_t i) const { return i + 1 == passes ? caller : (i % 2 == 0 ? a : b); }
};

// Bytes of one value as the kernels store it (a dummy 4 bytes without values).
inline std::size_t value_bytes(const sort_request& r) { return r.has_values ? size_of(r.value_type) : 4; }

// Largest power-of-two work-group size <= cap that the kernel allows on the device.
inline std::size_t pow2_group_size(const bc::kernel& k, const bc::device& device, std::size_t cap)
{
    const device_limits l = limits_for(k, device);
    std::size_t wg = floor_pow2(std::min(cap, l.max_work_group_size));
    return wg == 0 ? 1 : wg;
}

inline std::size_t next_pow2(std::size_t x)
{
    std::size_t p = 1;
    while (p < x) p <<= 1;
    return p;
}

} // namespace detail
} // namespace clprim
