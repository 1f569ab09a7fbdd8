#pragma once
#include <clprim/sort_types.hpp>

#include <string>

namespace clprim {

namespace detail {
void merge_sort_impl(const sort_request& request, bc::command_queue& queue);
// With a comparator: comparator_file names the generated source of CLPRIM_LESS (sort_comparator.hpp);
// empty: the key order (request.order).
void merge_sort_impl(const sort_request& request, const std::string& comparator_file, bc::command_queue& queue);
} // namespace detail

// Stable merge sort (keys by value; floats by IEEE-754 total order).
template <class T>
void merge_sort(bc::buffer_iterator<T> first, bc::buffer_iterator<T> last, bc::command_queue& queue,
                sort_order order = sort_order::ascending)
{
    detail::merge_sort_impl(detail::make_sort_request(first, last, queue, order, "clprim::merge_sort"), queue);
}

template <class K, class V>
void merge_sort_by_key(bc::buffer_iterator<K> keys_first, bc::buffer_iterator<K> keys_last,
                       bc::buffer_iterator<V> values_first, bc::command_queue& queue,
                       sort_order order = sort_order::ascending)
{
    detail::merge_sort_impl(detail::make_sort_request(keys_first, keys_last, values_first, queue, order,
                                                      "clprim::merge_sort_by_key"),
                            queue);
}

} // namespace clprim
