#pragma once
/// \file
/// \brief Bitonic sorting network of keys, or of keys and the values travelling with them.
#include <clprim/sort_types.hpp>

namespace clprim {

namespace detail {
void bitonic_sort_impl(const sort_request& request, bitonic_variant variant, bc::command_queue& queue);
} // namespace detail

/// \addtogroup sorts
/// @{

/// \brief Bitonic sorting network for any n, not only powers of two (not stable).
///
/// O(n log^2 n) compare-exchanges, done in place on the caller's range.
/// \param first,last the keys, sorted in place.
/// \param queue the command queue the work is enqueued on (the call does not wait).
/// \param order ascending or descending.
/// \param variant which kernels: global, local, fused (the default) or transpose.
template <class T>
void bitonic_sort(bc::buffer_iterator<T> first, bc::buffer_iterator<T> last, bc::command_queue& queue,
                  sort_order order = sort_order::ascending, bitonic_variant variant = bitonic_variant::fused)
{
    detail::bitonic_sort_impl(detail::make_sort_request(first, last, queue, order, "clprim::bitonic_sort"),
                              variant, queue);
}

/// \brief The same network for keys with values: values_first[i] travels with keys_first[i].
/// \param keys_first,keys_last the keys, sorted in place.
/// \param values_first as many values, of any element type or a vector type of up to 32 bytes
/// (bc::float4_, cl_int2, ...), permuted with their keys, bytes unchanged.
/// \param queue the command queue the work is enqueued on (the call does not wait).
/// \param order ascending or descending.
/// \param variant which kernels.
/// \throws invalid_argument_error when keys and values overlap.
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

/// @}

} // namespace clprim
