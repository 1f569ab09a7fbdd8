#pragma once
#include <clprim/config.hpp>
#include <clprim/detail/checks.hpp>
#include <clprim/detail/element_type.hpp>
#include <clprim/error.hpp>

namespace clprim {

enum class sort_order { ascending, descending };
enum class sort_algorithm { radix, bitonic, odd_even, merge, boost_compute };
enum class bitonic_variant { global, local, fused, transpose };

namespace detail {

// What the non-template sort implementations receive: keys, and values travelling with them
// (values.buffer empty when sorting keys alone).
struct sort_request {
    buffer_range keys;
    element_type key_type;
    buffer_range values;
    element_type value_type = element_type::uint32;
    bool has_values = false;
    sort_order order = sort_order::ascending;
};

template <class K>
sort_request make_sort_request(bc::buffer_iterator<K> first, bc::buffer_iterator<K> last,
                               bc::command_queue& queue, sort_order order, const char* who)
{
    sort_request r;
    r.keys = checked_range(first, last, queue, who);
    r.key_type = element_type_of<K>();
    r.order = order;
    return r;
}

template <class K, class V>
sort_request make_sort_request(bc::buffer_iterator<K> first, bc::buffer_iterator<K> last,
                               bc::buffer_iterator<V> values, bc::command_queue& queue,
                               sort_order order, const char* who)
{
    sort_request r = make_sort_request(first, last, queue, order, who);
    r.values = checked_output(values, r.keys.size, queue, who);
    r.value_type = element_type_of<V>();
    r.has_values = true;
    if (r.keys.size > 0 && r.values.buffer.get() == r.keys.buffer.get() &&
        r.values.offset < r.keys.offset + r.keys.size && r.keys.offset < r.values.offset + r.values.size)
        throw invalid_argument_error(std::string(who) + ": keys and values overlap");
    return r;
}

} // namespace detail
} // namespace clprim
