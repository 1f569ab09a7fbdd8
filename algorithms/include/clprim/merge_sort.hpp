#pragma once
/// \file
/// \brief Stable merge sort of keys, or of keys and the values travelling with them.
#include <clprim/sort_types.hpp>

#include <string>

namespace clprim {

namespace detail {
void merge_sort_impl(const sort_request& request, bc::command_queue& queue);
// With a comparator: comparator_file names the generated source of CLPRIM_LESS (sort_comparator.hpp);
// empty: the key order (request.order).
void merge_sort_impl(const sort_request& request, const std::string& comparator_file, bc::command_queue& queue);
} // namespace detail

/// \addtogroup sorts
/// @{

/// \brief Stable merge sort (keys by value; floats by IEEE-754 total order).
///
/// Tiles sorted in registers and local memory, then one merge-path round per doubling of the run
/// length; on CPU devices, chunks sorted sequentially, then co-rank rounds.
/// \param first,last the keys, sorted in place.
/// \param queue the command queue the work is enqueued on (the call does not wait).
/// \param order ascending or descending.
template <class T>
void merge_sort(bc::buffer_iterator<T> first, bc::buffer_iterator<T> last, bc::command_queue& queue,
                sort_order order = sort_order::ascending)
{
    detail::merge_sort_impl(detail::make_sort_request(first, last, queue, order, "clprim::merge_sort"), queue);
}

/// \brief The same order for keys with values: values_first[i] travels with keys_first[i].
/// \param keys_first,keys_last the keys, sorted in place.
/// \param values_first as many values, of any element type or a vector type of up to 32 bytes
/// (bc::float4_, cl_int2, ...), permuted with their keys, bytes unchanged.
/// \param queue the command queue the work is enqueued on (the call does not wait).
/// \param order ascending or descending.
/// \throws invalid_argument_error when keys and values overlap.
template <class K, class V>
void merge_sort_by_key(bc::buffer_iterator<K> keys_first, bc::buffer_iterator<K> keys_last,
                       bc::buffer_iterator<V> values_first, bc::command_queue& queue,
                       sort_order order = sort_order::ascending)
{
    detail::merge_sort_impl(detail::make_sort_request(keys_first, keys_last, values_first, queue, order,
                                                      "clprim::merge_sort_by_key"),
                            queue);
}

/// @}

} // namespace clprim
