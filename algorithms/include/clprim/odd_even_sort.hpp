#pragma once
/// \file
/// \brief Odd-even transposition sort (O(n^2), for teaching and small inputs).
#include <clprim/sort_types.hpp>

namespace clprim {

namespace detail {
void odd_even_sort_impl(const sort_request& request, bc::command_queue& queue);
} // namespace detail

/// \addtogroup sorts
/// @{

/// \brief Odd-even transposition sort: O(n^2) work, for teaching and small inputs (not stable).
///
/// A range that fits one work-group's local memory runs all n phases in one launch; a larger one
/// runs blocks of phases per launch on tiles with halos in local memory.
/// \param first,last the keys, sorted in place.
/// \param queue the command queue the work is enqueued on (the call does not wait).
/// \param order ascending or descending.
template <class T>
void odd_even_sort(bc::buffer_iterator<T> first, bc::buffer_iterator<T> last, bc::command_queue& queue,
                   sort_order order = sort_order::ascending)
{
    detail::odd_even_sort_impl(detail::make_sort_request(first, last, queue, order, "clprim::odd_even_sort"), queue);
}

/// \brief The same order for keys with values: values_first[i] travels with keys_first[i].
/// \param keys_first,keys_last the keys, sorted in place.
/// \param values_first as many values, of any element type or a vector type of up to 32 bytes
/// (bc::float4_, cl_int2, ...), permuted with their keys, bytes unchanged.
/// \param queue the command queue the work is enqueued on (the call does not wait).
/// \param order ascending or descending.
/// \throws invalid_argument_error when keys and values overlap.
template <class K, class V>
void odd_even_sort_by_key(bc::buffer_iterator<K> keys_first, bc::buffer_iterator<K> keys_last,
                          bc::buffer_iterator<V> values_first, bc::command_queue& queue,
                          sort_order order = sort_order::ascending)
{
    detail::odd_even_sort_impl(detail::make_sort_request(keys_first, keys_last, values_first, queue, order,
                                                         "clprim::odd_even_sort_by_key"),
                               queue);
}

/// @}

} // namespace clprim
