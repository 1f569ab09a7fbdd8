#pragma once
/// \file
/// \brief Traits of the Boost.Compute function objects that clprim's reductions, scans and
/// copy_if accept as operators and predicates.
#include <clprim/config.hpp>

#include <boost/compute/function.hpp>
#include <boost/compute/functional.hpp>
#include <boost/proto/traits.hpp>

#include <type_traits>

namespace clprim {

/// \cond CLPRIM_INTERNAL
namespace detail {
template <class Signature>
std::true_type is_bc_function_test(const bc::function<Signature>*);
std::false_type is_bc_function_test(...);
} // namespace detail
/// \endcond

/// \ingroup compaction
/// \brief True for Boost.Compute function objects, the only operators and predicates clprim
/// takes.
///
/// That is `bc::function<...>` and everything built on it (the built-in operators and functions
/// such as `bc::plus<T>`, `bc::max<T>`, `bc::bit_xor<T>`, and functions made with
/// `BOOST_COMPUTE_FUNCTION`), and Boost.Compute lambda expressions (`bc::lambda::_1 > 5`). A C++
/// lambda or a `std::` functor is not one: passing it stops the build with a `static_assert`.
/// \tparam F the type of the function object.
template <class F>
struct is_function_object
    : std::integral_constant<bool, decltype(detail::is_bc_function_test(static_cast<const F*>(nullptr)))::value ||
                                       boost::proto::is_expr<F>::value> {};

/// \ingroup compaction
/// \brief Operators for which `op(a, b) == op(b, a)`: the library may then combine elements in
/// any order (the reduction's fastest kernels interleave them).
///
/// Every other operator is only assumed associative, and the library keeps element order (left
/// operand = earlier elements). True for `bc::plus`, `bc::multiplies`, `bc::min`, `bc::max`,
/// `bc::fmin`, `bc::fmax`, `bc::bit_and`, `bc::bit_or` and `bc::bit_xor`; specialise it for a
/// commutative operator of your own to get the same speed:
/// \code
/// BOOST_COMPUTE_FUNCTION(cl_uint, larger, (cl_uint a, cl_uint b), { return a > b ? a : b; });
/// template <> struct clprim::is_commutative<decltype(larger)> : std::true_type {};
/// cl_uint m = clprim::reduce(v.begin(), v.end(), queue, larger, 0u);   // the fast kernels
/// \endcode
/// \tparam F the type of the binary function object.
template <class F>
struct is_commutative : std::false_type {};
/// \cond CLPRIM_INTERNAL
#define CLPRIM_COMMUTATIVE_(name)                                                                  \
    template <class T>                                                                             \
    struct is_commutative<bc::name<T>> : std::true_type {}
CLPRIM_COMMUTATIVE_(plus);
CLPRIM_COMMUTATIVE_(multiplies);
CLPRIM_COMMUTATIVE_(min);
CLPRIM_COMMUTATIVE_(max);
CLPRIM_COMMUTATIVE_(fmin);
CLPRIM_COMMUTATIVE_(fmax);
CLPRIM_COMMUTATIVE_(bit_and);
CLPRIM_COMMUTATIVE_(bit_or);
CLPRIM_COMMUTATIVE_(bit_xor);
#undef CLPRIM_COMMUTATIVE_
/// \endcond

} // namespace clprim
