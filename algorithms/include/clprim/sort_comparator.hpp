#pragma once
/** \file clprim/sort_comparator.hpp
 *  Sorting by the user's strict weak order (a Boost.Compute binary predicate), on the merge sort. */
#include <clprim/detail/operator_source.hpp>
#include <clprim/merge_sort.hpp>
#include <clprim/sort_types.hpp>

#include <type_traits>

namespace clprim {

/// \addtogroup merge_search
/// @{

/// \brief Sorts [first, last) by comp, a strict weak order given as a Boost.Compute binary
/// predicate (a BOOST_COMPUTE_FUNCTION, a Boost.Compute lambda such as bc::lambda::_1 >
/// bc::lambda::_2, or bc::less<T>() / bc::greater<T>()): comp(a, b) is true when a goes before b.
///
/// Stable (equal keys keep their input order); runs on the merge sort's kernels with comp in place
/// of the key order. Chosen only for function objects (clprim::is_function_object), never for a
/// sort_algorithm.
template <class T, class Compare, std::enable_if_t<is_function_object<Compare>::value, int> = 0>
void sort(bc::buffer_iterator<T> first, bc::buffer_iterator<T> last, bc::command_queue& queue, Compare comp)
{
    auto request = detail::make_sort_request(first, last, queue, sort_order::ascending, "clprim::sort");
    if (request.keys.size < 2) return;
    detail::merge_sort_impl(request, detail::comparator_file<T>(comp), queue);
}

/// \brief sort() by comp of the keys, with the values (one per key, at values_first) following
/// them.
///
/// Stable.
template <class K, class V, class Compare, std::enable_if_t<is_function_object<Compare>::value, int> = 0>
void sort_by_key(bc::buffer_iterator<K> keys_first, bc::buffer_iterator<K> keys_last,
                 bc::buffer_iterator<V> values_first, bc::command_queue& queue, Compare comp)
{
    auto request = detail::make_sort_request(keys_first, keys_last, values_first, queue, sort_order::ascending,
                                             "clprim::sort_by_key");
    if (request.keys.size < 2) return;
    detail::merge_sort_impl(request, detail::comparator_file<K>(comp), queue);
}

/// @}

} // namespace clprim
