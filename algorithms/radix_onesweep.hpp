#pragma once
// The radix sort's one-sweep path (radix_onesweep.cl / .cpp). Private to the algorithms layer.
#include <clprim/sort_types.hpp>

#include <cstddef>

namespace clprim {
namespace detail {

// Largest n the one-sweep path takes: every n the radix sort takes (radix_sort.cpp: 2^32 - 2^16),
// from 2^30 keys in portions of below 2^30 keys each (a look-back slot counts 30 bits).
constexpr std::size_t onesweep_max_keys = (std::size_t(1) << 32) - (std::size_t(1) << 16);

// How a pass ranks its tile: match_any (NVIDIA's match.any.sync / shfl.sync through inline PTX)
// or portable (the same ranking with local memory and work-group barriers).
enum class onesweep_ranking { match_any, portable };

// True if the device's OpenCL compiler takes the inline PTX that match_any ranking needs (NVIDIA
// platforms only; the answer is cached per device).
bool onesweep_match_any_available(const bc::command_queue& queue);

// Sorts r, 2 <= n <= onesweep_max_keys, types already checked. Never waits for the device.
// Scratch: one copy of the keys (and values).
void radix_sort_onesweep(const sort_request& r, bc::command_queue& queue, onesweep_ranking ranking);

} // namespace detail
} // namespace clprim
