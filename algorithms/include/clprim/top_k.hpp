#pragma once
/** \file clprim/top_k.hpp
 *  The k largest or smallest elements, in order (a radix select, then a sort of the k). */
#include <clprim/sort_types.hpp>

#include <cstddef>
#include <string>

namespace clprim {

namespace detail {
struct top_k_request {
    buffer_range keys, values, keys_out, values_out;
    element_type key_type = element_type::uint32;
    element_type value_type = element_type::uint32;
    bool has_values = false;
    std::size_t k = 0;
    sort_order order = sort_order::descending;
};
void top_k_impl(const top_k_request& request, bc::command_queue& queue, const char* who);

inline void check_k(std::size_t k, std::size_t n, const char* who)
{
    if (k > n) throw invalid_argument_error(std::string(who) + ": k is larger than the range");
}
} // namespace detail

/// \addtogroup merge_search
/// @{

/// \brief The k largest (order descending) or smallest (ascending) elements of [first, last), in
/// that order, to result (k elements, overlapping the input is an invalid_argument_error), in the
/// library's key order (integers by value, floats by IEEE-754 total order).
///
/// Of equal keys the earlier ones are taken first and come first. k = 0 does nothing; k > n is an
/// invalid_argument_error.
template <class T>
void top_k(bc::buffer_iterator<T> first, bc::buffer_iterator<T> last, std::size_t k, bc::buffer_iterator<T> result,
           bc::command_queue& queue, sort_order order = sort_order::descending)
{
    const char* who = "clprim::top_k";
    detail::top_k_request r;
    r.keys = detail::checked_range(first, last, queue, who);
    detail::check_k(k, r.keys.size, who);
    r.keys_out = detail::checked_output(result, k, queue, who);
    r.key_type = detail::element_type_of<T>();
    r.k = k;
    r.order = order;
    detail::top_k_impl(r, queue, who);
}

/// \brief top_k() of the keys, with the value of each chosen key (values_first holds one per key)
/// to values_result.
///
/// No output may overlap an input or the other output (invalid_argument_error).
template <class K, class V>
void top_k_by_key(bc::buffer_iterator<K> keys_first, bc::buffer_iterator<K> keys_last,
                  bc::buffer_iterator<V> values_first, std::size_t k, bc::buffer_iterator<K> keys_result,
                  bc::buffer_iterator<V> values_result, bc::command_queue& queue,
                  sort_order order = sort_order::descending)
{
    const char* who = "clprim::top_k_by_key";
    detail::top_k_request r;
    r.keys = detail::checked_range(keys_first, keys_last, queue, who);
    detail::check_k(k, r.keys.size, who);
    r.values = detail::checked_output(values_first, r.keys.size, queue, who);
    r.keys_out = detail::checked_output(keys_result, k, queue, who);
    r.values_out = detail::checked_output(values_result, k, queue, who);
    r.key_type = detail::element_type_of<K>();
    r.value_type = detail::value_type_of<V>();
    r.has_values = true;
    r.k = k;
    r.order = order;
    detail::top_k_impl(r, queue, who);
}

/// @}

} // namespace clprim
