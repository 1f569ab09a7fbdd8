#pragma once
// Operators shared by the suites that test user operators (reductions, scans, scans by key,
// queue states): device function objects with their host twins, and host arithmetic that wraps
// around the way OpenCL's does.
#include <boost/compute/function.hpp>

#include <limits>
#include <type_traits>

namespace clprim_test {

// Associative, not commutative, and sensitive to every element's position: composition of the
// affine maps x -> a*x + b (mod 2^16), a map packed as a << 16 | b; op(f, g) = "f, then g".
// Identity: the map x -> x, (1 << 16).
BOOST_COMPUTE_FUNCTION(cl_uint, affine_then, (cl_uint f, cl_uint g), {
    const uint af = f >> 16, bf = f & 0xffffu, ag = g >> 16, bg = g & 0xffffu;
    return (((ag * af) & 0xffffu) << 16) | ((ag * bf + bg) & 0xffffu);
});
inline cl_uint host_affine_then(cl_uint f, cl_uint g)
{
    const cl_uint af = f >> 16, bf = f & 0xffffu, ag = g >> 16, bg = g & 0xffffu;
    return (((ag * af) & 0xffffu) << 16) | ((ag * bf + bg) & 0xffffu);
}
constexpr cl_uint affine_identity = 1u << 16;

// The same over 64 bits: x -> a*x + b (mod 2^32), packed as a << 32 | b. Identity 1 << 32.
BOOST_COMPUTE_FUNCTION(cl_ulong, affine_then64, (cl_ulong f, cl_ulong g), {
    const ulong af = f >> 32, bf = f & 0xfffffffful, ag = g >> 32, bg = g & 0xfffffffful;
    return (((ag * af) & 0xfffffffful) << 32) | ((ag * bf + bg) & 0xfffffffful);
});
inline cl_ulong host_affine_then64(cl_ulong f, cl_ulong g)
{
    const cl_ulong af = f >> 32, bf = f & 0xffffffffull, ag = g >> 32, bg = g & 0xffffffffull;
    return (((ag * af) & 0xffffffffull) << 32) | ((ag * bf + bg) & 0xffffffffull);
}

// Integer wrap-around on the host, the way OpenCL does it (floats as they are).
template <class T>
T wrap_add(T a, T b)
{
    if constexpr (std::is_integral_v<T>) {
        using U = std::make_unsigned_t<T>;
        return T(U(U(a) + U(b)));
    } else {
        return a + b;
    }
}
template <class T>
T wrap_mul(T a, T b)
{
    if constexpr (std::is_integral_v<T>) {
        using U = std::make_unsigned_t<T>;
        return T(U(U(a) * U(b)));
    } else {
        return a * b;
    }
}

template <class T>
T host_max(T a, T b)
{
    return a < b ? b : a;
}

// The identity of max: -infinity for floats, the lowest value otherwise.
template <class T>
T lowest()
{
    if constexpr (std::is_floating_point_v<T>) return -std::numeric_limits<T>::infinity();
    else return std::numeric_limits<T>::lowest();
}

} // namespace clprim_test
