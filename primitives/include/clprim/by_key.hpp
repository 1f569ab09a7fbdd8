#pragma once
/** \file clprim/by_key.hpp
 *  reduce_by_key and the scans by key: one output per run of equal keys, or scans that restart at
 *  every run. Keys compare by their bits (floats: -0.0 and +0.0 differ, a NaN equals a NaN with the
 *  same bits). One pass over the data on GPUs (a segmented scan with decoupled look-back), a
 *  chunked two-pass path on CPU and other devices
 *  (primitives/by_key_policy.hpp).
 */
#include <clprim/config.hpp>
#include <clprim/detail/by_key_impl.hpp>
#include <clprim/detail/checks.hpp>
#include <clprim/detail/element_type.hpp>
#include <clprim/detail/operator_source.hpp>
#include <clprim/error.hpp>

#include <cstddef>
#include <string>

namespace clprim {

namespace detail {
template <class K, class V>
std::size_t reduce_by_key_call(bc::buffer_iterator<K> keys_first, bc::buffer_iterator<K> keys_last,
                               bc::buffer_iterator<V> values_first, bc::buffer_iterator<K> keys_result,
                               bc::buffer_iterator<V> values_result, const bc::buffer_iterator<cl_ulong>* count_result,
                               bc::command_queue& queue, const std::string& op_file)
{
    const char* who = "clprim::reduce_by_key";
    by_key_call call;
    call.mode = by_key_mode::reduce;
    call.keys = checked_range(keys_first, keys_last, queue, who);
    call.values = checked_output(values_first, call.keys.size, queue, who);
    call.out1 = checked_output(keys_result, room_of(keys_result), queue, who);
    call.out2 = checked_output(values_result, room_of(values_result), queue, who);
    call.key_type = element_type_of<K>();
    call.value_type = element_type_of<V>();
    call.op_file = op_file;
    return by_key_run(call, count_result, queue, who);
}

template <class K, class V>
void scan_by_key_call(bc::buffer_iterator<K> keys_first, bc::buffer_iterator<K> keys_last,
                      bc::buffer_iterator<V> values_first, bc::buffer_iterator<V> result, bc::command_queue& queue,
                      bool inclusive, const V& init, const std::string& op_file)
{
    const char* who = inclusive ? "clprim::inclusive_scan_by_key" : "clprim::exclusive_scan_by_key";
    by_key_call call;
    call.mode = by_key_mode::scan;
    call.keys = checked_range(keys_first, keys_last, queue, who);
    call.values = checked_output(values_first, call.keys.size, queue, who);
    call.out2 = checked_output(result, call.keys.size, queue, who);
    call.key_type = element_type_of<K>();
    call.value_type = element_type_of<V>();
    call.op_file = op_file;
    call.inclusive = inclusive;
    call.init = &init;
    by_key_impl(call, queue, who);
}
} // namespace detail

/// \addtogroup by_key
/// @{

/// \brief One output per run of equal keys, in order: the run's key to keys_result and the sum of
/// its values to values_result.
///
/// Returns the number of runs (waits for that count only). The results need room for every run and
/// may not overlap the inputs (invalid_argument_error; a result found too small once the count is
/// known is one too, after the runs that fit were written).
template <class K, class V>
std::size_t reduce_by_key(bc::buffer_iterator<K> keys_first, bc::buffer_iterator<K> keys_last,
                          bc::buffer_iterator<V> values_first, bc::buffer_iterator<K> keys_result,
                          bc::buffer_iterator<V> values_result, bc::command_queue& queue)
{
    return detail::reduce_by_key_call(keys_first, keys_last, values_first, keys_result, values_result, nullptr, queue,
                                      std::string());
}

/// \brief reduce_by_key with a Boost.Compute binary function object (associative, identity its
/// identity; earlier values are the left operand, so op need not commute).
template <class K, class V, class BinaryFunction>
std::size_t reduce_by_key(bc::buffer_iterator<K> keys_first, bc::buffer_iterator<K> keys_last,
                          bc::buffer_iterator<V> values_first, bc::buffer_iterator<K> keys_result,
                          bc::buffer_iterator<V> values_result, bc::command_queue& queue, BinaryFunction op,
                          detail::nondeduced_t<V> identity)
{
    return detail::reduce_by_key_call(keys_first, keys_last, values_first, keys_result, values_result, nullptr, queue,
                                      detail::binary_operator_file<V>(op, identity));
}

/// \brief reduce_by_key (sum) that writes the number of runs to *count_result on the device and
/// does not wait.
///
/// Runs beyond the results' room are not written.
template <class K, class V>
void reduce_by_key(bc::buffer_iterator<K> keys_first, bc::buffer_iterator<K> keys_last,
                   bc::buffer_iterator<V> values_first, bc::buffer_iterator<K> keys_result,
                   bc::buffer_iterator<V> values_result, bc::buffer_iterator<cl_ulong> count_result,
                   bc::command_queue& queue)
{
    detail::reduce_by_key_call(keys_first, keys_last, values_first, keys_result, values_result, &count_result, queue,
                               std::string());
}

/// \brief reduce_by_key with an operator, writing the number of runs to *count_result (no wait).
template <class K, class V, class BinaryFunction>
void reduce_by_key(bc::buffer_iterator<K> keys_first, bc::buffer_iterator<K> keys_last,
                   bc::buffer_iterator<V> values_first, bc::buffer_iterator<K> keys_result,
                   bc::buffer_iterator<V> values_result, bc::buffer_iterator<cl_ulong> count_result,
                   bc::command_queue& queue, BinaryFunction op, detail::nondeduced_t<V> identity)
{
    detail::reduce_by_key_call(keys_first, keys_last, values_first, keys_result, values_result, &count_result, queue,
                               detail::binary_operator_file<V>(op, identity));
}

/// \brief result[i] = the sum of the values from the start of i's run of equal keys to i.
///
/// result == values_first (in place) is allowed; any other overlap is an invalid_argument_error.
template <class K, class V>
void inclusive_scan_by_key(bc::buffer_iterator<K> keys_first, bc::buffer_iterator<K> keys_last,
                           bc::buffer_iterator<V> values_first, bc::buffer_iterator<V> result,
                           bc::command_queue& queue)
{
    detail::scan_by_key_call(keys_first, keys_last, values_first, result, queue, true, V(0), std::string());
}

/// \brief inclusive_scan_by_key with a Boost.Compute binary function object and its identity.
template <class K, class V, class BinaryFunction>
void inclusive_scan_by_key(bc::buffer_iterator<K> keys_first, bc::buffer_iterator<K> keys_last,
                           bc::buffer_iterator<V> values_first, bc::buffer_iterator<V> result,
                           bc::command_queue& queue, BinaryFunction op, detail::nondeduced_t<V> identity)
{
    detail::scan_by_key_call(keys_first, keys_last, values_first, result, queue, true, identity,
                             detail::binary_operator_file<V>(op, identity));
}

/// \brief result[i] = init + the values from the start of i's run to i - 1 (init at every run's
/// start).
///
/// result == values_first (in place) is allowed.
template <class K, class V>
void exclusive_scan_by_key(bc::buffer_iterator<K> keys_first, bc::buffer_iterator<K> keys_last,
                           bc::buffer_iterator<V> values_first, bc::buffer_iterator<V> result,
                           bc::command_queue& queue, detail::nondeduced_t<V> init = V(0))
{
    detail::scan_by_key_call(keys_first, keys_last, values_first, result, queue, false, init, std::string());
}

/// \brief exclusive_scan_by_key with an operator: result[i] = op(init, fold of the run's values
/// before i), init at a run's start.
template <class K, class V, class BinaryFunction>
void exclusive_scan_by_key(bc::buffer_iterator<K> keys_first, bc::buffer_iterator<K> keys_last,
                           bc::buffer_iterator<V> values_first, bc::buffer_iterator<V> result,
                           bc::command_queue& queue, detail::nondeduced_t<V> init, BinaryFunction op,
                           detail::nondeduced_t<V> identity)
{
    detail::scan_by_key_call(keys_first, keys_last, values_first, result, queue, false, init,
                             detail::binary_operator_file<V>(op, identity));
}

/// @}

} // namespace clprim
