#pragma once
#include <clprim/config.hpp>
#include <cstddef>
#include <string>
#include <type_traits>

namespace clprim {
namespace detail {

// The element types clprim's kernels are built for. Templates map their T onto one of these so
// the host code behind them is compiled once, not once per type.
enum class element_type { int32, uint32, int64, uint64, float32, float64 };

template <class T>
constexpr element_type element_type_of()
{
    if constexpr (std::is_same_v<T, cl_int>) return element_type::int32;
    else if constexpr (std::is_same_v<T, cl_uint>) return element_type::uint32;
    else if constexpr (std::is_same_v<T, cl_long>) return element_type::int64;
    else if constexpr (std::is_same_v<T, cl_ulong>) return element_type::uint64;
    else if constexpr (std::is_same_v<T, cl_float>) return element_type::float32;
    else if constexpr (std::is_same_v<T, cl_double>) return element_type::float64;
    else static_assert(!sizeof(T), "clprim supports cl_int, cl_uint, cl_long, cl_ulong, cl_float, cl_double");
}

std::size_t size_of(element_type t);
bool is_float(element_type t);
bool is_signed(element_type t);
// The OpenCL C spelling: "int", "uint", "long", "ulong", "float", "double".
const char* cl_name(element_type t);

// Build options that define the type macros of lib/clprim_types.cl for prefix P (T, K, V...):
// P, P_IS_FLOAT, P_IS_SIGNED, P_BITS and P_FP64 where needed.
std::string type_options(element_type t, const std::string& prefix = "T");

// Throws unsupported_error if the device cannot handle t (double without fp64).
void require_type_support(element_type t, const bc::device& device, const char* who);

} // namespace detail
} // namespace clprim
