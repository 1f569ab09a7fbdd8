#pragma once
#include <clprim/config.hpp>
#include <boost/compute/type_traits/is_vector_type.hpp>
#include <cstddef>
#include <string>
#include <type_traits>

namespace clprim {
namespace detail {

// THE list of element types clprim's kernels are built for (keys, elements and values); adding a
// scalar type is one line here. Each row: X(enumerator, host type, OpenCL C name, float?, signed?,
// largest value, smallest value) (+-INFINITY for floats: the identities of min and max).
// Everything else about a type (its size, unsigned twin, the build options of clprim_types.cl, the
// host dispatch visit_element_type) is derived from this row.
#define CLPRIM_ELEMENT_TYPES(X)                                               \
    X(int8, cl_char, "char", false, true, "CHAR_MAX", "CHAR_MIN")             \
    X(uint8, cl_uchar, "uchar", false, false, "UCHAR_MAX", "(uchar)0")        \
    X(int16, cl_short, "short", false, true, "SHRT_MAX", "SHRT_MIN")          \
    X(uint16, cl_ushort, "ushort", false, false, "USHRT_MAX", "(ushort)0")    \
    X(int32, cl_int, "int", false, true, "INT_MAX", "INT_MIN")                \
    X(uint32, cl_uint, "uint", false, false, "UINT_MAX", "0u")                \
    X(int64, cl_long, "long", false, true, "LONG_MAX", "LONG_MIN")            \
    X(uint64, cl_ulong, "ulong", false, false, "ULONG_MAX", "0ul")            \
    X(float32, cl_float, "float", true, true, "INFINITY", "-INFINITY")        \
    X(float64, cl_double, "double", true, true, "INFINITY", "-INFINITY")

// Value-only types: the by-key sorts, merges and top k move values of any trivially copyable type
// of 1, 2, 4, 8, 16 or 32 bytes (Boost.Compute vector types: cl_float4, bc::int2_, ...) as bits,
// unchanged: 1 to 8 bytes as the unsigned integer of that width, 16 and 32 bytes as these.
// X(enumerator, bytes, OpenCL C type that moves them).
#define CLPRIM_VALUE_ONLY_TYPES(X) \
    X(bits128, 16, "uint4")        \
    X(bits256, 32, "uint8")

#define CLPRIM_ELEMENT_ENUM_(e, ...) e,
enum class element_type { CLPRIM_ELEMENT_TYPES(CLPRIM_ELEMENT_ENUM_) CLPRIM_VALUE_ONLY_TYPES(CLPRIM_ELEMENT_ENUM_) };
#undef CLPRIM_ELEMENT_ENUM_

template <class T>
struct type_tag {
    using type = T;
};

template <class T>
constexpr bool is_element_type_v = false;
#define CLPRIM_ELEMENT_IS_(e, host, ...) \
    template <>                          \
    constexpr bool is_element_type_v<host> = true;
CLPRIM_ELEMENT_TYPES(CLPRIM_ELEMENT_IS_)
#undef CLPRIM_ELEMENT_IS_

// The element type of a key or element (scalars only).
template <class T>
constexpr element_type element_type_of()
{
#define CLPRIM_ELEMENT_OF_(e, host, ...) \
    if constexpr (std::is_same_v<T, host>) return element_type::e; else
    CLPRIM_ELEMENT_TYPES(CLPRIM_ELEMENT_OF_)
#undef CLPRIM_ELEMENT_OF_
    static_assert(!sizeof(T), "clprim's element types: cl_char, cl_uchar, cl_short, cl_ushort, cl_int, cl_uint, "
                              "cl_long, cl_ulong, cl_float, cl_double");
}

// The element type that carries a value of type V (the by-key sorts, merges and top k): a scalar
// is itself; a Boost.Compute vector type (bc::float4_, ...) or any other trivially copyable type
// (cl_float4, ...) of 1, 2, 4, 8, 16 or 32 bytes travels as bits of its width.
template <class V>
constexpr element_type value_type_of()
{
    if constexpr (is_element_type_v<V>) {
        return element_type_of<V>();
    } else {
        static_assert((bc::is_vector_type<V>::value || std::is_trivially_copyable_v<V>) && (sizeof(V) == 1 || sizeof(V) == 2 || sizeof(V) == 4 ||
                                                          sizeof(V) == 8 || sizeof(V) == 16 || sizeof(V) == 32),
                      "clprim values: an element type, or a vector type (trivially copyable) of 1, 2, 4, 8, 16 or 32 bytes");
        if constexpr (sizeof(V) == 1) return element_type::uint8;
        else if constexpr (sizeof(V) == 2) return element_type::uint16;
        else if constexpr (sizeof(V) == 4) return element_type::uint32;
        else if constexpr (sizeof(V) == 8) return element_type::uint64;
        else if constexpr (sizeof(V) == 16) return element_type::bits128;
        else return element_type::bits256;
    }
}

[[noreturn]] void throw_not_an_element_type(element_type t);

// The type Boost.Compute's own algorithms see for a value of type V: V itself where Boost.Compute
// knows it (an element type, bc::float4_, ...), else (cl_float4, a struct) a Boost.Compute type of
// its width, which moves the same bytes.
template <class V>
auto bc_value_carrier()
{
    if constexpr (is_element_type_v<V> || bc::is_vector_type<V>::value) return type_tag<V>{};
    else if constexpr (sizeof(V) == 1) return type_tag<cl_uchar>{};
    else if constexpr (sizeof(V) == 2) return type_tag<cl_ushort>{};
    else if constexpr (sizeof(V) == 4) return type_tag<cl_uint>{};
    else if constexpr (sizeof(V) == 8) return type_tag<cl_ulong>{};
    else if constexpr (sizeof(V) == 16) return type_tag<bc::uint4_>{};
    else return type_tag<bc::uint8_>{};
}
template <class V>
using bc_value_carrier_t = typename decltype(bc_value_carrier<V>())::type;

// Calls f(type_tag<host type>{}) for scalar element type t (host code that needs the value type:
// identities, histogram bounds); a value-only type throws invalid_argument_error.
template <class F>
decltype(auto) visit_element_type(element_type t, F&& f)
{
    switch (t) {
#define CLPRIM_ELEMENT_VISIT_(e, host, ...) \
    case element_type::e: return f(type_tag<host>{});
        CLPRIM_ELEMENT_TYPES(CLPRIM_ELEMENT_VISIT_)
#undef CLPRIM_ELEMENT_VISIT_
    default: break;
    }
    throw_not_an_element_type(t);
    return f(type_tag<cl_uint>{}); // not reached
}

std::size_t size_of(element_type t);
bool is_float(element_type t);
bool is_signed(element_type t);
// A value-only type (bits128, bits256): moved, never compared or computed with.
bool is_value_only(element_type t);
// The OpenCL C spelling: "char", "uchar", ..., "int", "uint", "long", "ulong", "float", "double".
const char* cl_name(element_type t);
// The OpenCL C type that moves a value of t as bits: the unsigned integer of its width
// ("uchar", "ushort", "uint", "ulong"), "uint4" (16 bytes) or "uint8" (32 bytes).
const char* bits_name(element_type t);
// The unsigned integer type of that width for 1..8 bytes (uint8 for 1 byte, ..., uint64 for 8).
element_type bits_type(std::size_t bytes);

// Build options that define the type macros of lib/clprim_types.cl for prefix P (T, K, V...):
// P, P_IS_FLOAT, P_IS_SIGNED, P_BITS, P_UNSIGNED, P_MAXVAL, P_MINVAL and CLPRIM_FP64 where needed.
std::string type_options(element_type t, const std::string& prefix = "T");

// Throws unsupported_error if the device cannot handle t (double without fp64).
void require_type_support(element_type t, const bc::device& device, const char* who);
// The same for the queue's device, asking the driver for it only where t needs checking (double):
// a small call's entry checks cost no driver query then.
void require_type_support(element_type t, const bc::command_queue& queue, const char* who);

} // namespace detail
} // namespace clprim
