#pragma once
// The segments of clprim::segmented_sort longer than a work-group's tile, many at once: one
// segmented LSD radix sort (segmented_sort_lsd.cl). Not installed.
#include "segmented_sort_policy.hpp"

#include <clprim/sort_types.hpp>

#include <functional>
#include <vector>

namespace clprim {
namespace detail {

// Sorts r's keys (and values) in every range [large[2i], large[2i+1]) of r.keys (positions
// inside the range, clamped by the device), stably, in r.order.
void segmented_lsd_sort(const sort_request& r, const std::vector<cl_ulong>& large, const segmented_sort_policy& p,
                        bc::command_queue& queue, const char* who);

// Sorts every range [pairs[2i], pairs[2i+1]) of r.keys (and values) like segmented_lsd_sort, but
// each by one work-group that sorts the whole segment (ssr_group_sort): for many segments of a
// few tiles up to p.group_max keys. before_launch runs after its temporaries are had and before
// its kernel is enqueued.
void segmented_group_sort(const sort_request& r, const std::vector<cl_ulong>& pairs, const segmented_sort_policy& p,
                          bc::command_queue& queue, const char* who, const std::function<void()>& before_launch);

// The OpenCL type that moves a value of `bytes` bytes as its bits.
const char* segmented_value_word(std::size_t bytes);

} // namespace detail
} // namespace clprim
