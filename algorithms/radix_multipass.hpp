#pragma once
// The radix sort's multi-pass path (radix_sort.cl / radix_multipass.cpp). Private to the
// algorithms layer.
#include <clprim/sort_types.hpp>

namespace clprim {
namespace detail {

// Sorts r (argument checks already done by radix_sort_impl: 2 <= n < 2^32 - 2^16, types
// supported). Never waits for the device except for its one read-back (which digits vary).
void radix_sort_multipass(const sort_request& r, bc::command_queue& queue);

} // namespace detail
} // namespace clprim
