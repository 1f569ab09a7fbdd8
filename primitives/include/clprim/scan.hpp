#pragma once
/// \file
/// \brief Inclusive and exclusive scans (prefix sums), with `+` or any associative Boost.Compute
/// operator.
#include <clprim/config.hpp>
#include <clprim/detail/checks.hpp>
#include <clprim/detail/element_type.hpp>
#include <clprim/detail/operator_source.hpp>
#include <clprim/error.hpp>

#include <string>

namespace clprim {

/// \addtogroup scans
/// @{

/// Which scan algorithm the sums take (the user-operator scans always take `fast`'s paths).
enum class scan_algorithm {
    hillis_steele, ///< reduce-then-scan over tiles, Hillis-Steele within a tile (O(n log n) work there)
    blelloch,      ///< reduce-then-scan over tiles, Blelloch's up- and down-sweep within a tile
    fast           ///< the library's best for the device (the default): one-pass look-back on GPUs, chunks on CPUs
};
/// @}

namespace detail {
// Scans in into out (same length; out may equal in). init (size_of(type) bytes) is added to
// every element of an exclusive scan; ignored for an inclusive one.
void scan_impl(const buffer_range& in, const buffer_range& out, element_type type, bool inclusive,
               const void* init, scan_algorithm algorithm, bc::command_queue& queue);
// The same with the generated operator op_file (operator_source.hpp) and its identity
// (size_of(type) bytes). init starts the scan on the left: the identity for an inclusive one.
// commutative: the operator may see elements in any order.
void scan_generated_impl(const buffer_range& in, const buffer_range& out, element_type type, bool inclusive,
                         const void* init, const std::string& op_file, bool commutative, const void* identity,
                         bc::command_queue& queue);
} // namespace detail

/// \addtogroup scans
/// @{

/// \brief `result[i] = first[0] + ... + first[i]`.
/// \param first,last the input range.
/// \param result the output, as long as the input; `result == first` (in place) is allowed.
/// \param queue the command queue the work is enqueued on (the call does not wait).
/// \param algorithm which scan; the default `fast` is the library's best for the device.
template <class T>
void inclusive_scan(bc::buffer_iterator<T> first, bc::buffer_iterator<T> last,
                    bc::buffer_iterator<T> result, bc::command_queue& queue,
                    scan_algorithm algorithm = scan_algorithm::fast)
{
    const auto in = detail::checked_range(first, last, queue, "clprim::inclusive_scan");
    const auto out = detail::checked_output(result, in.size, queue, "clprim::inclusive_scan");
    const T init{};
    detail::scan_impl(in, out, detail::element_type_of<T>(), true, &init, algorithm, queue);
}

/// \brief `result[i] = init + first[0] + ... + first[i-1]`.
/// \param first,last the input range.
/// \param result the output, as long as the input; `result == first` (in place) is allowed.
/// \param queue the command queue the work is enqueued on (the call does not wait).
/// \param init the value added to every element (`result[0] = init`).
/// \param algorithm which scan; the default `fast` is the library's best for the device.
template <class T>
void exclusive_scan(bc::buffer_iterator<T> first, bc::buffer_iterator<T> last,
                    bc::buffer_iterator<T> result, bc::command_queue& queue, T init = T(0),
                    scan_algorithm algorithm = scan_algorithm::fast)
{
    const auto in = detail::checked_range(first, last, queue, "clprim::exclusive_scan");
    const auto out = detail::checked_output(result, in.size, queue, "clprim::exclusive_scan");
    detail::scan_impl(in, out, detail::element_type_of<T>(), false, &init, algorithm, queue);
}

/// \brief `result[i] = op(...op(op(first[0], first[1]), first[2])..., first[i])` for any
/// associative Boost.Compute binary function object.
///
/// Earlier elements are always the left operand, so op need not be commutative. The operator is
/// rendered into the library's scan kernels (one cached program per operator source).
/// \param first,last the input range.
/// \param result the output, as long as the input; `result == first` (in place) is allowed.
/// \param queue the command queue the work is enqueued on (the call does not wait).
/// \param op `bc::plus<T>()`, `bc::max<T>()`, `bc::bit_xor<T>()`, a `BOOST_COMPUTE_FUNCTION`, ...
/// \param identity the operator's identity element: `op(identity, x) == x`.
template <class T, class BinaryFunction>
void inclusive_scan(bc::buffer_iterator<T> first, bc::buffer_iterator<T> last,
                    bc::buffer_iterator<T> result, bc::command_queue& queue, BinaryFunction op,
                    detail::nondeduced_t<T> identity)
{
    detail::check_function_object<BinaryFunction>();
    const auto in = detail::checked_range(first, last, queue, "clprim::inclusive_scan");
    const auto out = detail::checked_output(result, in.size, queue, "clprim::inclusive_scan");
    const std::string file = detail::binary_operator_file<T>(op, identity);
    detail::scan_generated_impl(in, out, detail::element_type_of<T>(), true, &identity, file,
                                is_commutative<BinaryFunction>::value, &identity, queue);
}

/// \brief `result[0] = init`, `result[i] = op(result[i-1], first[i-1])`: the same with init on
/// the left of everything.
/// \param first,last the input range.
/// \param result the output, as long as the input; `result == first` (in place) is allowed.
/// \param queue the command queue the work is enqueued on (the call does not wait).
/// \param init the leftmost operand of every result.
/// \param op an associative Boost.Compute binary function object.
/// \param identity the operator's identity element.
template <class T, class BinaryFunction>
void exclusive_scan(bc::buffer_iterator<T> first, bc::buffer_iterator<T> last,
                    bc::buffer_iterator<T> result, bc::command_queue& queue, detail::nondeduced_t<T> init,
                    BinaryFunction op, detail::nondeduced_t<T> identity)
{
    detail::check_function_object<BinaryFunction>();
    const auto in = detail::checked_range(first, last, queue, "clprim::exclusive_scan");
    const auto out = detail::checked_output(result, in.size, queue, "clprim::exclusive_scan");
    const std::string file = detail::binary_operator_file<T>(op, identity);
    detail::scan_generated_impl(in, out, detail::element_type_of<T>(), false, &init, file,
                                is_commutative<BinaryFunction>::value, &identity, queue);
}

/// @}

} // namespace clprim
