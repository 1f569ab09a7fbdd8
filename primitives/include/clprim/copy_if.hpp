#pragma once
/// \file
/// \brief Stream compaction: the elements that pass a predicate, in their order.
#include <clprim/config.hpp>
#include <clprim/detail/checks.hpp>
#include <clprim/detail/element_type.hpp>
#include <clprim/detail/operator_source.hpp>
#include <clprim/error.hpp>

#include <cstddef>
#include <string>

namespace clprim {

namespace detail {
// The by-key family's partition with no second group (clprim/selection.hpp, included below):
// one pass on GPUs, the single-pass segmented scan of the predicate's flags with the scatter fused.
template <class T, class Predicate>
std::size_t partition_call(bc::buffer_iterator<T> first, bc::buffer_iterator<T> last, bc::buffer_iterator<T> true_result,
                           const bc::buffer_iterator<T>* false_result, const bc::buffer_iterator<cl_ulong>* count_result,
                           bc::command_queue& queue, const Predicate& pred, const char* who);
} // namespace detail

/// \ingroup compaction
/// \brief Copies, in their order, the elements x of [first, last) for which `pred(x)` is true to
/// result; returns how many (waits for that count only).
///
/// A result in another context or overlapping the input is an invalid_argument_error before
/// anything is enqueued; one found too small once the count is known is an
/// invalid_argument_error too (the elements that fit were written, nothing past the end of its
/// buffer).
/// \param first,last the input range.
/// \param result where the kept elements go: room for every element that passes, not
///        overlapping the input.
/// \param queue the command queue the work runs on.
/// \param pred a Boost.Compute unary function object returning bool (a `BOOST_COMPUTE_FUNCTION`,
///        or a lambda such as `bc::lambda::_1 > 5`).
/// \return the number of elements copied.
template <class T, class Predicate>
std::size_t copy_if(bc::buffer_iterator<T> first, bc::buffer_iterator<T> last, bc::buffer_iterator<T> result,
                    bc::command_queue& queue, Predicate pred)
{
    return detail::partition_call(first, last, result, static_cast<const bc::buffer_iterator<T>*>(nullptr),
                                  static_cast<const bc::buffer_iterator<cl_ulong>*>(nullptr), queue, pred,
                                  "clprim::copy_if");
}

} // namespace clprim

// copy_if is the by-key family's partition (both overloads; the count_result one keeps the count
// on the device): clprim/selection.hpp.
#include <clprim/selection.hpp>
