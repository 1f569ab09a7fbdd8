#pragma once
/// \file
/// \brief The sort switch: every sort behind one call, chosen by sort_algorithm.
#include <clprim/bitonic_sort.hpp>
#include <clprim/merge_sort.hpp>
#include <clprim/odd_even_sort.hpp>
#include <clprim/radix_sort.hpp>
#include <clprim/sort_comparator.hpp> // sort / sort_by_key with a comparator
#include <clprim/sort_types.hpp>

#include <boost/compute/algorithm/sort.hpp>
#include <boost/compute/algorithm/sort_by_key.hpp>
#include <boost/compute/functional/operator.hpp>

namespace clprim {

namespace detail {
// Runs one of clprim's own sorts (not boost_compute) on the request.
void sort_impl(const sort_request& request, sort_algorithm algorithm, bc::command_queue& queue);
} // namespace detail

/// \addtogroup sorts
/// @{

/// \brief Sorts [first, last) with the chosen algorithm.
///
/// Every clprim algorithm gives the same order (integers by value, floats by IEEE-754 total
/// order); `boost_compute` hands the range to `bc::sort` and keeps Boost.Compute's own ordering
/// (which differs only on NaN and -0.0).
/// \param first,last the keys, sorted in place.
/// \param queue the command queue the work is enqueued on (the call does not wait).
/// \param algorithm radix (the default), merge, bitonic, odd_even or boost_compute.
/// \param order ascending or descending.
template <class T>
void sort(bc::buffer_iterator<T> first, bc::buffer_iterator<T> last, bc::command_queue& queue,
          sort_algorithm algorithm = sort_algorithm::radix, sort_order order = sort_order::ascending)
{
    auto request = detail::make_sort_request(first, last, queue, order, "clprim::sort");
    if (algorithm != sort_algorithm::boost_compute) return detail::sort_impl(request, algorithm, queue);
    detail::require_type_support(request.key_type, queue.get_device(), "clprim::sort");
    detail::in_order_scope scope(queue); // Boost.Compute's sort in order on out-of-order queues too
    detail::guarded("clprim::sort (boost_compute)", [&] {
        if (order == sort_order::ascending) bc::sort(first, last, bc::less<T>(), scope.queue());
        else bc::sort(first, last, bc::greater<T>(), scope.queue());
    });
}

/// \brief Sorts keys with their values with the chosen algorithm: values_first[i] travels with
/// keys_first[i].
/// \param keys_first,keys_last the keys, sorted in place.
/// \param values_first as many values, of any element type or a vector type of up to 32 bytes
/// (bc::float4_, cl_int2, ...), permuted with their keys, bytes unchanged.
/// \param queue the command queue the work is enqueued on (the call does not wait).
/// \param algorithm radix (the default), merge, bitonic, odd_even or boost_compute.
/// \param order ascending or descending.
template <class K, class V>
void sort_by_key(bc::buffer_iterator<K> keys_first, bc::buffer_iterator<K> keys_last,
                 bc::buffer_iterator<V> values_first, bc::command_queue& queue,
                 sort_algorithm algorithm = sort_algorithm::radix, sort_order order = sort_order::ascending)
{
    auto request = detail::make_sort_request(keys_first, keys_last, values_first, queue, order, "clprim::sort_by_key");
    if (algorithm != sort_algorithm::boost_compute) return detail::sort_impl(request, algorithm, queue);
    detail::require_type_support(request.key_type, queue.get_device(), "clprim::sort_by_key");
    detail::require_type_support(request.value_type, queue.get_device(), "clprim::sort_by_key");
    detail::in_order_scope scope(queue); // Boost.Compute's sort in order on out-of-order queues too
    // Values of a type Boost.Compute does not know (cl_float4, ...) as one it knows of their width.
    const bc::buffer_iterator<detail::bc_value_carrier_t<V>> values(values_first.get_buffer(), values_first.get_index());
    detail::guarded("clprim::sort_by_key (boost_compute)", [&] {
        if (order == sort_order::ascending) bc::sort_by_key(keys_first, keys_last, values, bc::less<K>(), scope.queue());
        else bc::sort_by_key(keys_first, keys_last, values, bc::greater<K>(), scope.queue());
    });
}

/// @}

} // namespace clprim
