#pragma once
/** \file
 * clprim::segmented_sort and segmented_sort_by_key: every segment of a range sorted on its own,
 * stably, in one call.
 *
 * Segment s is `[first + offsets[s], first + offsets[s + 1])` for an offsets range of
 * `num_segments + 1` entries (`cl_uint` or `cl_ulong`). Offsets are non-decreasing and at most
 * `n`; `offsets[0]` need not be 0 (elements outside every segment are left untouched). Segments
 * may be empty and of any mix of lengths. Malformed offsets (decreasing, or beyond the range) may
 * give any order inside the range, but nothing outside the given ranges is ever read or written.
 */
#include <clprim/config.hpp>
#include <clprim/detail/checks.hpp>
#include <clprim/segmented_reduce.hpp> // offset_type_of, checked_offsets
#include <clprim/sort_types.hpp>

namespace clprim {

namespace detail {
// Sorts every segment of request's keys (and values) given by offsets (of offset_type).
void segmented_sort_impl(const sort_request& request, const buffer_range& offsets, element_type offset_type,
                         bc::command_queue& queue);
} // namespace detail

/// \addtogroup segments
/// @{

/// \brief Sorts every segment of [first, last) on its own, stably, in the library's key order
/// (integers by value, floats by IEEE-754 total order), ascending or descending.
///
/// Only enqueues, except that when n is larger than the tile one work-group sorts in local memory
/// (4096 keys, or less) it waits for one read of how many segments are longer than that (and of
/// their bounds), which the host hands to the radix sort.
template <class T, class Offset>
void segmented_sort(bc::buffer_iterator<T> first, bc::buffer_iterator<T> last,
                    bc::buffer_iterator<Offset> offsets_first, bc::buffer_iterator<Offset> offsets_last,
                    bc::command_queue& queue, sort_order order = sort_order::ascending)
{
    const char* who = "clprim::segmented_sort";
    const auto request = detail::make_sort_request(first, last, queue, order, who);
    const auto offs = detail::checked_offsets(offsets_first, offsets_last, queue, who);
    detail::segmented_sort_impl(request, offs, detail::offset_type_of<Offset>(), queue);
}

/// \brief The same for keys [keys_first, keys_last) with values starting at values_first travelling
/// with their keys (same segments).
///
/// Stable: equal keys keep their order within a segment.
template <class K, class V, class Offset>
void segmented_sort_by_key(bc::buffer_iterator<K> keys_first, bc::buffer_iterator<K> keys_last,
                           bc::buffer_iterator<V> values_first,
                           bc::buffer_iterator<Offset> offsets_first, bc::buffer_iterator<Offset> offsets_last,
                           bc::command_queue& queue, sort_order order = sort_order::ascending)
{
    const char* who = "clprim::segmented_sort_by_key";
    const auto request = detail::make_sort_request(keys_first, keys_last, values_first, queue, order, who);
    const auto offs = detail::checked_offsets(offsets_first, offsets_last, queue, who);
    detail::segmented_sort_impl(request, offs, detail::offset_type_of<Offset>(), queue);
}

/// @}

} // namespace clprim
