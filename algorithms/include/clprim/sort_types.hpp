#pragma once
/// \file
/// \brief The options every sort takes: order, algorithm, bitonic variant.
#include <clprim/config.hpp>
#include <clprim/detail/checks.hpp>
#include <clprim/detail/element_type.hpp>
#include <clprim/error.hpp>

namespace clprim {

/// \addtogroup sorts
/// @{

/// The order of the sorted keys (integers by value, floats by IEEE-754 total order).
enum class sort_order {
    ascending, ///< smallest key first (-NaN, -inf, ..., -0.0, +0.0, ..., +inf, +NaN for floats)
    descending ///< largest key first (the stable sorts keep equal keys in input order here too)
};

/// The algorithm sort() and sort_by_key() run.
enum class sort_algorithm {
    radix,        ///< radix_sort(): stable, O(n) per key byte (the default)
    bitonic,      ///< bitonic_sort(): not stable, O(n log^2 n)
    odd_even,     ///< odd_even_sort(): not stable, O(n^2), for teaching and small inputs
    merge,        ///< merge_sort(): stable, O(n log n)
    boost_compute ///< `bc::sort` / `bc::sort_by_key`, for comparison (Boost.Compute's own NaN and -0.0 order)
};

/// The bitonic sort's kernels, a progression.
enum class bitonic_variant {
    global,   ///< one launch per compare-exchange pass, over global memory
    local,    ///< passes whose distance fits a work-group's tile run in local memory, one launch each
    fused,    ///< whole tiles and several global passes per launch, in registers (the default)
    transpose ///< the matrix formulation: row-spanning stages run in local memory between transposes
};
/// @}

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
    r.value_type = value_type_of<V>(); // vector values travel as bits
    r.has_values = true;
    if (r.keys.size > 0 && r.values.buffer.get() == r.keys.buffer.get() &&
        r.values.offset < r.keys.offset + r.keys.size && r.keys.offset < r.values.offset + r.values.size)
        throw invalid_argument_error(std::string(who) + ": keys and values overlap");
    return r;
}

} // namespace detail
} // namespace clprim
