#pragma once
// The radix sort's CPU path (radix_sort_cpu.cl / .cpp). Private to the algorithms layer.
#include <clprim/sort_types.hpp>

namespace clprim {
namespace detail {

// Sorts r (argument checks already done by radix_sort_impl: n < 2^32 - 2^16, types supported).
// radix_sort_impl chooses this path on CPU devices, or on any device with CLPRIM_RADIX_PATH=cpu.
void radix_sort_cpu_impl(const sort_request& r, bc::command_queue& queue);

} // namespace detail
} // namespace clprim
