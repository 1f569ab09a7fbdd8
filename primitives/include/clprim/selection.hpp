#pragma once
/** \file clprim/selection.hpp
 *  unique, run_length_encode, partition_copy, stable_partition: the segmented scan of
 *  clprim/by_key.hpp with flags from the elements (runs of equal bits) or from a predicate, and a
 *  scatter as its epilogue. (copy_if and its count_result overload: clprim/copy_if.hpp.)
 */
#include <clprim/by_key.hpp>
#include <clprim/copy_if.hpp>

#include <cstddef>
#include <string>

namespace clprim {

namespace detail {
template <class T>
std::size_t unique_call(bc::buffer_iterator<T> first, bc::buffer_iterator<T> last, bc::buffer_iterator<T> result,
                        const bc::buffer_iterator<cl_ulong>* count_result, bc::command_queue& queue)
{
    const char* who = "clprim::unique";
    by_key_call call;
    call.mode = by_key_mode::unique;
    call.keys = checked_range(first, last, queue, who);
    call.out1 = checked_output(result, room_of(result), queue, who);
    call.key_type = element_type_of<T>();
    call.value_type = element_type::uint32;
    return by_key_run(call, count_result, queue, who);
}

template <class T>
std::size_t run_length_call(bc::buffer_iterator<T> first, bc::buffer_iterator<T> last,
                            bc::buffer_iterator<T> values_result, bc::buffer_iterator<cl_uint> counts_result,
                            const bc::buffer_iterator<cl_ulong>* count_result, bc::command_queue& queue)
{
    const char* who = "clprim::run_length_encode";
    by_key_call call;
    call.mode = by_key_mode::run_length;
    call.keys = checked_range(first, last, queue, who);
    call.out1 = checked_output(values_result, room_of(values_result), queue, who);
    call.out2 = checked_output(counts_result, room_of(counts_result), queue, who);
    call.key_type = element_type_of<T>();
    call.value_type = element_type::uint32;
    return by_key_run(call, count_result, queue, who);
}

// true_result only (copy_if) when false_result is null.
template <class T, class Predicate>
std::size_t partition_call(bc::buffer_iterator<T> first, bc::buffer_iterator<T> last,
                           bc::buffer_iterator<T> true_result, const bc::buffer_iterator<T>* false_result,
                           const bc::buffer_iterator<cl_ulong>* count_result, bc::command_queue& queue,
                           const Predicate& pred, const char* who)
{
    check_function_object<Predicate>();
    by_key_call call;
    call.mode = by_key_mode::partition;
    call.keys = checked_range(first, last, queue, who);
    call.out1 = checked_output(true_result, room_of(true_result), queue, who);
    if (false_result) call.out2 = checked_output(*false_result, room_of(*false_result), queue, who);
    call.key_type = call.value_type = element_type_of<T>();
    call.op_file = predicate_file<T>(pred);
    return by_key_run(call, count_result, queue, who);
}

template <class T, class Predicate>
std::size_t stable_partition_call(bc::buffer_iterator<T> first, bc::buffer_iterator<T> last,
                                  const bc::buffer_iterator<cl_ulong>* count_result, bc::command_queue& queue,
                                  const Predicate& pred)
{
    const char* who = "clprim::stable_partition";
    check_function_object<Predicate>();
    const buffer_range range = checked_range(first, last, queue, who);
    buffer_range count;
    if (count_result) count = checked_output(*count_result, 1, queue, who);
    return stable_partition_impl(range, element_type_of<T>(), predicate_file<T>(pred), count_result ? &count : nullptr,
                                 queue);
}
} // namespace detail

/// \addtogroup by_key
/// @{

/// \brief The first element of every run of equal elements (equal bits), in order, to result;
/// returns how many.
///
/// result needs room for them and may not overlap the input.
template <class T>
std::size_t unique(bc::buffer_iterator<T> first, bc::buffer_iterator<T> last, bc::buffer_iterator<T> result,
                   bc::command_queue& queue)
{
    return detail::unique_call(first, last, result, nullptr, queue);
}

/// \brief unique that writes the count to *count_result on the device and does not wait.
template <class T>
void unique(bc::buffer_iterator<T> first, bc::buffer_iterator<T> last, bc::buffer_iterator<T> result,
            bc::buffer_iterator<cl_ulong> count_result, bc::command_queue& queue)
{
    detail::unique_call(first, last, result, &count_result, queue);
}

/// \brief Every run's value (to values_result) and length (to counts_result), in order; returns the
/// number of runs.
template <class T>
std::size_t run_length_encode(bc::buffer_iterator<T> first, bc::buffer_iterator<T> last,
                              bc::buffer_iterator<T> values_result, bc::buffer_iterator<cl_uint> counts_result,
                              bc::command_queue& queue)
{
    return detail::run_length_call(first, last, values_result, counts_result, nullptr, queue);
}

/// \brief run_length_encode that writes the number of runs to *count_result on the device (no
/// wait).
template <class T>
void run_length_encode(bc::buffer_iterator<T> first, bc::buffer_iterator<T> last,
                       bc::buffer_iterator<T> values_result, bc::buffer_iterator<cl_uint> counts_result,
                       bc::buffer_iterator<cl_ulong> count_result, bc::command_queue& queue)
{
    detail::run_length_call(first, last, values_result, counts_result, &count_result, queue);
}

/// \brief The elements for which pred is true to true_result, the others to false_result, each
/// group in input order; returns the size of the first group.
///
/// pred: a Boost.Compute unary predicate.
template <class T, class Predicate>
std::size_t partition_copy(bc::buffer_iterator<T> first, bc::buffer_iterator<T> last,
                           bc::buffer_iterator<T> true_result, bc::buffer_iterator<T> false_result,
                           bc::command_queue& queue, Predicate pred)
{
    return detail::partition_call(first, last, true_result, &false_result, nullptr, queue, pred,
                                  "clprim::partition_copy");
}

/// \brief partition_copy that writes the size of the first group to *count_result (no wait).
template <class T, class Predicate>
void partition_copy(bc::buffer_iterator<T> first, bc::buffer_iterator<T> last, bc::buffer_iterator<T> true_result,
                    bc::buffer_iterator<T> false_result, bc::buffer_iterator<cl_ulong> count_result,
                    bc::command_queue& queue, Predicate pred)
{
    detail::partition_call(first, last, true_result, &false_result, &count_result, queue, pred,
                           "clprim::partition_copy");
}

/// \brief Reorders [first, last) in place: the elements for which pred is true, then the others,
/// each group in input order; returns the size of the first group.
template <class T, class Predicate>
std::size_t stable_partition(bc::buffer_iterator<T> first, bc::buffer_iterator<T> last, bc::command_queue& queue,
                             Predicate pred)
{
    return detail::stable_partition_call(first, last, nullptr, queue, pred);
}

/// \brief stable_partition that writes the size of the first group to *count_result (no wait).
template <class T, class Predicate>
void stable_partition(bc::buffer_iterator<T> first, bc::buffer_iterator<T> last,
                      bc::buffer_iterator<cl_ulong> count_result, bc::command_queue& queue, Predicate pred)
{
    detail::stable_partition_call(first, last, &count_result, queue, pred);
}

/// @}

} // namespace clprim
