#pragma once
// The radix sort's one-launch path for ranges that fit one work-group (sort_small.cl). Private
// to the algorithms layer.
#include <clprim/sort_types.hpp>

#include <cstddef>

namespace clprim {
namespace detail {

// The largest n sort_small takes for these key and value types on this queue's device (0: none):
// what one work-group holds (sort_small_policy.hpp), or more where the few-tiles path is on
// (sort_small_tiles.hpp).
std::size_t sort_small_max_keys(const sort_request& r, const bc::command_queue& queue);

// Sorts r (2 <= n <= sort_small_max_keys): one launch where one work-group holds it, else one
// launch per digit pass (sort_small_tiles); never waits for the device.
void sort_small(const sort_request& r, bc::command_queue& queue);

} // namespace detail
} // namespace clprim
