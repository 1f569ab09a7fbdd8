#pragma once
// Private to algorithms/: whether two ranges share bytes (outputs that may not overlap inputs).
#include <clprim/detail/checks.hpp>

#include <cstddef>

namespace clprim {
namespace detail {

// The bytes of a (elements of asize bytes) and b (bsize) in one buffer intersect; empty ranges never do.
inline bool ranges_overlap(const buffer_range& a, std::size_t asize, const buffer_range& b, std::size_t bsize)
{
    if (a.size == 0 || b.size == 0 || a.buffer.get() != b.buffer.get()) return false;
    const std::size_t a0 = a.offset * asize, a1 = a0 + a.size * asize;
    const std::size_t b0 = b.offset * bsize, b1 = b0 + b.size * bsize;
    return a0 < b1 && b0 < a1;
}

} // namespace detail
} // namespace clprim
