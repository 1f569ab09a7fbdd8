// The key order of every clprim sort, on the host: the C++ twin of algorithms/sort_key_order.cl.
// ordered_key maps a key to an unsigned integer of its width whose unsigned order is the sort's
// key order: integers by value, floats by IEEE-754 total order (-NaN < -inf < ... < -0.0 < +0.0
// < ... < +inf < +NaN). Host code that splits, merges or checks sorted runs (multi-device and
// MPI sorts) compares keys through it so that it agrees with the device sorts bit for bit.
#ifndef CLPRIM_DETAIL_HOST_KEY_ORDER_HPP
#define CLPRIM_DETAIL_HOST_KEY_ORDER_HPP

#include <clprim/sort_types.hpp>

#include <cstdint>
#include <cstring>
#include <type_traits>

namespace clprim {
namespace detail {

/// The unsigned integer type as wide as K.
template <class K>
using ordered_key_t = std::conditional_t<
    sizeof(K) == 1, std::uint8_t,
    std::conditional_t<sizeof(K) == 2, std::uint16_t,
                       std::conditional_t<sizeof(K) == 4, std::uint32_t, std::uint64_t>>>;

/// The key's place in the ascending sort order as an unsigned integer.
template <class K>
ordered_key_t<K> ordered_key(K key)
{
    static_assert(std::is_arithmetic_v<K>, "ordered_key takes scalar keys");
    using U = ordered_key_t<K>;
    constexpr U sign = U(U(1) << (8 * sizeof(K) - 1));
    U u;
    std::memcpy(&u, &key, sizeof(K));
    if constexpr (std::is_floating_point_v<K>)
        return (u & sign) ? U(~u) : U(u | sign);
    else if constexpr (std::is_signed_v<K>)
        return U(u ^ sign);
    else
        return u;
}

/// The key's place in `order` as an unsigned integer: descending order inverts it, so equal keys
/// stay equal and a stable ascending merge of these values is a stable merge in `order`.
template <class K>
ordered_key_t<K> ordered_key(K key, sort_order order)
{
    const auto u = ordered_key(key);
    return order == sort_order::descending ? ordered_key_t<K>(~u) : u;
}

} // namespace detail
} // namespace clprim

#endif
