#pragma once
// The segments of clprim::segmented_sort longer than a work-group's tile, many at once: one
// segmented LSD radix sort (segmented_sort_lsd.cl). Not installed.
#include "segmented_sort_policy.hpp"

#include <clprim/sort_types.hpp>

#include <vector>

namespace clprim {
namespace detail {

// Sorts r's keys (and values) in every range [large[2i], large[2i+1]) of r.keys (positions
// inside the range, clamped by the device), stably, in r.order.
void segmented_lsd_sort(const sort_request& r, const std::vector<cl_ulong>& large, const segmented_sort_policy& p,
                        bc::command_queue& queue, const char* who);

// The OpenCL type that moves a value of `bytes` bytes as its bits.
const char* segmented_value_word(std::size_t bytes);

} // namespace detail
} // namespace clprim
