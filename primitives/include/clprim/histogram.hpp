#pragma once
/// \file
/// \brief Histograms of equal-width bins, counted on the device.
#include <clprim/config.hpp>
#include <clprim/detail/checks.hpp>
#include <clprim/detail/element_type.hpp>
#include <clprim/error.hpp>

namespace clprim {

namespace detail {
// lower and upper point at one value of type each. Validates its arguments before enqueuing.
void histogram_impl(const buffer_range& in, const buffer_range& counts, std::size_t num_bins,
                    element_type type, const void* lower, const void* upper, bc::command_queue& queue);
} // namespace detail

/// \ingroup histogram
/// \brief `counts[b] +=` the number of x in [first, last) with `lower <= x < upper` that fall
/// in bin b of num_bins equal-width bins; values outside [lower, upper) are ignored.
///
/// counts is added to, so histograms of several ranges accumulate: zero it first for a fresh
/// one. For integer types the bin of x is `(x - lower) * num_bins / (upper - lower)` computed
/// without overflow; for floats the same in floating point, clamped into [0, num_bins).
/// \param first,last the values.
/// \param counts num_bins counters, added to.
/// \param num_bins the number of bins, from 1 to at least 65536.
/// \param lower,upper the half-open interval the bins divide.
/// \param queue the command queue the work is enqueued on (the call does not wait).
/// \throws invalid_argument_error for `num_bins == 0`, `lower >= upper` or NaN bounds.
template <class T>
void histogram(bc::buffer_iterator<T> first, bc::buffer_iterator<T> last,
               bc::buffer_iterator<cl_uint> counts, std::size_t num_bins, T lower, T upper,
               bc::command_queue& queue)
{
    const auto in = detail::checked_range(first, last, queue, "clprim::histogram");
    const auto out = detail::checked_output(counts, num_bins, queue, "clprim::histogram");
    detail::histogram_impl(in, out, num_bins, detail::element_type_of<T>(), &lower, &upper, queue);
}

} // namespace clprim
