#pragma once
/** \file clprim/merge.hpp
 *  Merging two sorted ranges (merge-path partitioning; the merge sort's rounds run once). */
#include <clprim/sort_types.hpp>

namespace clprim {

namespace detail {
// What merge_impl receives: the two inputs, the result, their element types (values: uint32 and
// empty ranges when there are none).
struct merge_request {
    buffer_range keys1, keys2, keys_out;
    buffer_range values1, values2, values_out;
    element_type key_type = element_type::uint32;
    element_type value_type = element_type::uint32;
    bool has_values = false;
    sort_order order = sort_order::ascending;
};
void merge_impl(const merge_request& request, bc::command_queue& queue, const char* who);
} // namespace detail

/// \addtogroup merge_search
/// @{

/// \brief Merges [first1, last1) and [first2, last2), both sorted in `order` (the library's key
/// order: integers by value, floats by IEEE-754 total order), into result (last1 - first1 + last2 -
/// first2 elements, overlapping neither input, else invalid_argument_error).
///
/// Stable: of equal keys, those of the first range come first. Either range may be empty.
template <class T>
void merge(bc::buffer_iterator<T> first1, bc::buffer_iterator<T> last1, bc::buffer_iterator<T> first2,
           bc::buffer_iterator<T> last2, bc::buffer_iterator<T> result, bc::command_queue& queue,
           sort_order order = sort_order::ascending)
{
    const char* who = "clprim::merge";
    detail::merge_request r;
    r.keys1 = detail::checked_range(first1, last1, queue, who);
    r.keys2 = detail::checked_range(first2, last2, queue, who);
    r.keys_out = detail::checked_output(result, r.keys1.size + r.keys2.size, queue, who);
    r.key_type = detail::element_type_of<T>();
    r.order = order;
    detail::merge_impl(r, queue, who);
}

/// \brief merge() of keys with values travelling with them: values_first1 / values_first2 hold one
/// value per key of each input; the merged keys go to keys_result, their values to values_result.
///
/// No output range may overlap an input or the other output (invalid_argument_error). Stable.
template <class K, class V>
void merge_by_key(bc::buffer_iterator<K> keys_first1, bc::buffer_iterator<K> keys_last1,
                  bc::buffer_iterator<V> values_first1, bc::buffer_iterator<K> keys_first2,
                  bc::buffer_iterator<K> keys_last2, bc::buffer_iterator<V> values_first2,
                  bc::buffer_iterator<K> keys_result, bc::buffer_iterator<V> values_result,
                  bc::command_queue& queue, sort_order order = sort_order::ascending)
{
    const char* who = "clprim::merge_by_key";
    detail::merge_request r;
    r.keys1 = detail::checked_range(keys_first1, keys_last1, queue, who);
    r.keys2 = detail::checked_range(keys_first2, keys_last2, queue, who);
    const std::size_t n = r.keys1.size + r.keys2.size;
    r.keys_out = detail::checked_output(keys_result, n, queue, who);
    r.values1 = detail::checked_output(values_first1, r.keys1.size, queue, who);
    r.values2 = detail::checked_output(values_first2, r.keys2.size, queue, who);
    r.values_out = detail::checked_output(values_result, n, queue, who);
    r.key_type = detail::element_type_of<K>();
    r.value_type = detail::value_type_of<V>();
    r.has_values = true;
    r.order = order;
    detail::merge_impl(r, queue, who);
}

/// @}

} // namespace clprim
