#pragma once
// Counting sort of 16-bit keys alone (radix_counting16.cl): the radix sort's path for ushort /
// short keys without values where the policy takes it (radix_policy.hpp). Private to the
// algorithms layer.
#include <clprim/sort_types.hpp>

namespace clprim {
namespace detail {

// Sorts r (2-byte keys, no values, n >= 2): a histogram of the 65536 keys, one work-group's scan
// of the counts into run starts, one fill of the runs; never waits for the device.
void radix_sort_counting16(const sort_request& r, bc::command_queue& queue);

} // namespace detail
} // namespace clprim
