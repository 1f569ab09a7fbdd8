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

// The same ranges sorted most significant digit first: one segmented radix pass on the top digit
// from r's range into a packed temporary cuts every range into one sub-segment per digit
// (ssr_bucket_offsets); segmented_sort_nested sorts those (most of them short enough for the local
// size classes) in the temporary, and the result goes back into the ranges.
void segmented_msd_sort(const sort_request& r, const std::vector<cl_ulong>& large, const segmented_sort_policy& p,
                        bc::command_queue& queue, const char* who);

// clprim::segmented_sort of r over the uint offsets of `offsets`, without the MSD form for its
// long segments (segmented_sort.cpp): the second level of segmented_msd_sort.
void segmented_sort_nested(const sort_request& r, const buffer_range& offsets, bc::command_queue& queue);

// The OpenCL type that moves a value of `bytes` bytes as its bits.
const char* segmented_value_word(std::size_t bytes);

} // namespace detail
} // namespace clprim
