#pragma once
// Turning a Boost.Compute function object into OpenCL C for the library's own kernels.
//
// Boost.Compute's meta_kernel renders a function object applied to named variables as OpenCL C:
// bc::plus<uint>() gives "(a+b)", bc::max<uint>() "max(a,b)", a BOOST_COMPUTE_FUNCTION a call
// plus the function's definition, a lambda (bc::lambda::_1 > 5) its expression. The library
// wraps that text as
//     inline uint clprim_op_fn(const uint a, const uint b) { return (...); }
//     #define CLPRIM_OP(a, b) clprim_op_fn(a, b)
//     #define CLPRIM_IDENTITY as_uint(0x00000000u)
// (or clprim_pred_fn / CLPRIM_PRED(x) for a predicate), registers the text as a generated
// kernel source named after its hash, and joins it in front of its kernels: the program cache
// then holds one program per operator source.
#include <clprim/config.hpp>
#include <clprim/detail/element_type.hpp>
#include <clprim/operators.hpp>

#include <boost/compute/detail/meta_kernel.hpp>
#include <boost/compute/function.hpp>
#include <boost/compute/functional.hpp>
#include <boost/compute/lambda.hpp>
#include <boost/proto/traits.hpp>

#include <string>
#include <type_traits>
#include <unordered_map>

namespace clprim {

namespace detail {

// T, in a parameter that takes no part in deduction (so that an identity written as 0 works for
// any T the ranges give).
template <class T>
struct nondeduced {
    using type = T;
};
template <class T>
using nondeduced_t = typename nondeduced<T>::type;

// From the full source meta_kernel generated for a kernel named `kernel` whose body is one
// expression: the definitions before the kernel (functions, types, pragmas) and the expression.
void split_rendered(const std::string& source, const std::string& kernel, std::string& definitions,
                    std::string& expression);

// Registers a generated source text under a name made from its hash ("clprim_gen_<hash>.cl"),
// once, and returns the name (to put into a primitives_program's file list).
std::string register_generated_source(const std::string& text);

// "as_uint(0x0000002au)": the exact bits of *value (size_of(type) bytes) as an OpenCL C constant.
std::string exact_literal(element_type type, const void* value);

// The generated source for op over T with identity: CLPRIM_OP(a, b) and CLPRIM_IDENTITY.
std::string binary_operator_source(element_type type, const std::string& definitions,
                                   const std::string& expression, const void* identity);
// The generated source for pred over T: CLPRIM_PRED(x) (a bool).
std::string predicate_source(element_type type, const std::string& definitions, const std::string& expression);

// The generated source for a strict weak order comp over T: CLPRIM_LESS(a, b) (a bool).
std::string comparator_source(element_type type, const std::string& definitions, const std::string& expression);

template <class Op>
void check_function_object()
{
    static_assert(is_function_object<Op>::value,
                  "clprim: the operator or predicate must be a Boost.Compute function object "
                  "(bc::plus<T>(), bc::max<T>(), a BOOST_COMPUTE_FUNCTION, or a bc::lambda expression); "
                  "a C++ lambda or std:: functor cannot run on the device");
}

// Registers the source of op over T (with its identity) and returns the generated file's name.
template <class T, class Op>
std::string binary_operator_file(const Op& op, const T& identity)
{
    check_function_object<Op>();
    bc::detail::meta_kernel k("clprim_render_op");
    k << op(k.var<T>("a"), k.var<T>("b"));
    std::string definitions, expression;
    split_rendered(k.source(), "clprim_render_op", definitions, expression);
    return register_generated_source(
        binary_operator_source(element_type_of<T>(), definitions, expression, &identity));
}

// Registers the source of pred over T and returns the generated file's name.
template <class T, class Pred>
std::string predicate_file(const Pred& pred)
{
    check_function_object<Pred>();
    bc::detail::meta_kernel k("clprim_render_pred");
    k << pred(k.var<T>("x"));
    std::string definitions, expression;
    split_rendered(k.source(), "clprim_render_pred", definitions, expression);
    return register_generated_source(predicate_source(element_type_of<T>(), definitions, expression));
}

// The same for a Boost.Compute function (BOOST_COMPUTE_FUNCTION, make_function_from_source): its
// file follows from its name, source and definitions alone, so the name of the file is kept per
// host thread under those, and a call renders nothing after the first (rendering through a
// meta_kernel costs microseconds a call: bench case small_call_host).
template <class T, class Signature>
std::string predicate_file(const bc::function<Signature>& pred)
{
    const auto call = pred(0); // the function's name, source and definitions, without a kernel
    std::string key = std::to_string(int(element_type_of<T>())) + '\n' + call.name() + '\n' + call.source();
    for (const auto& d : call.definitions()) key += '\n' + d.first + '=' + d.second;
    thread_local std::unordered_map<std::string, std::string> files;
    auto it = files.find(key);
    if (it != files.end()) return it->second;
    bc::detail::meta_kernel k("clprim_render_pred");
    k << pred(k.var<T>("x"));
    std::string definitions, expression;
    split_rendered(k.source(), "clprim_render_pred", definitions, expression);
    std::string file = register_generated_source(predicate_source(element_type_of<T>(), definitions, expression));
    files.emplace(std::move(key), file);
    return file;
}

// Registers the source of the binary predicate comp over T (comp(a, b): a goes before b) and
// returns the generated file's name.
template <class T, class Compare>
std::string comparator_file(const Compare& comp)
{
    check_function_object<Compare>();
    bc::detail::meta_kernel k("clprim_render_less");
    k << comp(k.var<T>("a"), k.var<T>("b"));
    std::string definitions, expression;
    split_rendered(k.source(), "clprim_render_less", definitions, expression);
    return register_generated_source(comparator_source(element_type_of<T>(), definitions, expression));
}

} // namespace detail
} // namespace clprim
