#pragma once
// Private helpers shared by the comparison sorts (bitonic, odd-even, merge): build options, type
// checks, kernel launch sizes. Not installed.
#include <clprim/detail/algorithms_kernels.hpp>
#include <clprim/detail/device_limits.hpp>
#include <clprim/detail/kernel_launch.hpp>
#include <clprim/sort_types.hpp>

#include <cstddef>
#include <string>

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
