#pragma once
#include <clprim/sort_types.hpp>

namespace clprim {

namespace detail {
void bitonic_sort_impl(const sort_request& request, bitonic_variant variant, bc::command_queue& queue);
} // namespace detail

// Bitonic sorting network for any n (not stable).
template <class T>
void bitonic_sort(bc::buffer_iterator<T> first, bc::buffer_iterator<T> last, bc::command_queue& queue,
                  sort_order order = sort_order::ascending, bitonic_variant variant = bitonic_variant::fused)
{
    detail::bitonic_sort_impl(detail::make_sort_request(first, last, queue, order, "clprim::bitonic_sort"),
                              variant, queue);
}

template <class K, class V>
void bitonic_sort_by_key(bc::buffer_iterator<K> keys_first, bc::buffer_iterator<K> keys_last,
                         bc::buffer_iterator<V> values_first, bc::command_queue& queue,
                         sort_order order = sort_order::ascending,
                         bitonic_variant variant = bitonic_variant::fused)
{
    detail::bitonic_sort_impl(detail::make_sort_request(keys_first, keys_last, values_first, queue, order,
                                                        "clprim::bitonic_sort_by_key"),
                              variant, queue);
}

} // namespace clprim
