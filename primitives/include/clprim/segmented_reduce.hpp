#pragma once
/** \file
 * clprim::segmented_reduce: one reduction per segment of a range, in one call.
 *
 * A segmented call works on `num_segments` independent pieces of one range, given by an offsets
 * range of `num_segments + 1` entries (`cl_uint` or `cl_ulong`): segment s is
 * `[first + offsets[s], first + offsets[s + 1])`. Offsets are non-decreasing and at most `n`;
 * `offsets[0]` need not be 0. Segments may be empty and of any mix of lengths. Malformed offsets
 * (decreasing, or beyond the range) may give any result values, but nothing outside the given
 * ranges is ever read or written.
 */
#include <clprim/config.hpp>
#include <clprim/detail/checks.hpp>
#include <clprim/detail/element_type.hpp>
#include <clprim/detail/operator_source.hpp>
#include <clprim/error.hpp>
#include <clprim/reduce.hpp>

#include <string>
#include <type_traits>

namespace clprim {

namespace detail {
// The offset types segmented calls take.
template <class Offset>
constexpr element_type offset_type_of()
{
    static_assert(std::is_same_v<Offset, cl_uint> || std::is_same_v<Offset, cl_ulong>,
                  "clprim: segment offsets are cl_uint or cl_ulong");
    return element_type_of<Offset>();
}

// Checks the offsets range (at least one entry, the queue's context) and returns it.
template <class Offset>
buffer_range checked_offsets(bc::buffer_iterator<Offset> first, bc::buffer_iterator<Offset> last,
                             const bc::command_queue& queue, const char* who)
{
    const buffer_range r = checked_range(first, last, queue, who);
    if (r.size == 0) throw invalid_argument_error(std::string(who) + ": the offsets range needs num_segments + 1 entries");
    return r;
}

// Reduces every segment of in (offsets of offset_type) into result (num_segments = offsets.size - 1
// elements). op_code: 0 sum, 1 min, 2 max, 3 the generated operator op_file with its identity.
void segmented_reduce_impl(const buffer_range& in, const buffer_range& offsets, element_type offset_type,
                           const buffer_range& result, element_type type, int op_code, const std::string& op_file,
                           bool commutative, const void* identity, bc::command_queue& queue);
} // namespace detail

/// \addtogroup segments
/// @{

/// \brief result[s] = the reduction of segment s with `op` (sum, min or max); the identity for an
/// empty segment (0 for sum; the type's largest value for min, its lowest for max, +-infinity for
/// floats).
///
/// `result` has num_segments elements and overlaps neither input. Does not wait. Integer sums wrap
/// like OpenCL arithmetic.
template <class T, class Offset>
void segmented_reduce(bc::buffer_iterator<T> first, bc::buffer_iterator<T> last,
                      bc::buffer_iterator<Offset> offsets_first, bc::buffer_iterator<Offset> offsets_last,
                      bc::buffer_iterator<T> result, bc::command_queue& queue, reduce_op op = reduce_op::sum)
{
    const char* who = "clprim::segmented_reduce";
    const auto in = detail::checked_range(first, last, queue, who);
    const auto offs = detail::checked_offsets(offsets_first, offsets_last, queue, who);
    const auto out = detail::checked_output(result, offs.size - 1, queue, who);
    const int code = op == reduce_op::sum ? 0 : op == reduce_op::min ? 1 : 2;
    detail::segmented_reduce_impl(in, offs, detail::offset_type_of<Offset>(), out, detail::element_type_of<T>(), code,
                                  std::string(), true, nullptr, queue);
}

/// \brief The same with any associative Boost.Compute binary function object over T (bc::plus<T>(),
/// bc::max<T>(), bc::bit_xor<T>(), a BOOST_COMPUTE_FUNCTION, ...) whose identity element is
/// `identity` (also the result of an empty segment).
///
/// Elements of a segment are combined left to right unless clprim::is_commutative<BinaryFunction>
/// says the order does not matter.
template <class T, class Offset, class BinaryFunction>
void segmented_reduce(bc::buffer_iterator<T> first, bc::buffer_iterator<T> last,
                      bc::buffer_iterator<Offset> offsets_first, bc::buffer_iterator<Offset> offsets_last,
                      bc::buffer_iterator<T> result, bc::command_queue& queue, BinaryFunction op,
                      detail::nondeduced_t<T> identity)
{
    detail::check_function_object<BinaryFunction>();
    const char* who = "clprim::segmented_reduce";
    const auto in = detail::checked_range(first, last, queue, who);
    const auto offs = detail::checked_offsets(offsets_first, offsets_last, queue, who);
    const auto out = detail::checked_output(result, offs.size - 1, queue, who);
    const std::string file = detail::binary_operator_file<T>(op, identity);
    detail::segmented_reduce_impl(in, offs, detail::offset_type_of<Offset>(), out, detail::element_type_of<T>(), 3, file,
                                  is_commutative<BinaryFunction>::value, &identity, queue);
}

/// @}

} // namespace clprim
