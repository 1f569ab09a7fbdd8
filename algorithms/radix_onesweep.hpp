#pragma once
// The radix sort's one-sweep path (radix_onesweep.cl / .cpp). Private to the algorithms layer.
#include <clprim/sort_types.hpp>

#include <cstddef>

namespace clprim {
namespace detail {

// Largest n the one-sweep path takes: its look-back slots hold counts below 2^30.
constexpr std::size_t onesweep_max_keys = (std::size_t(1) << 30) - 1;

// How a pass ranks its tile: match_any (NVIDIA's match.any.sync / shfl.sync through inline PTX)
// or portable (the same ranking with local memory and work-group barriers).
enum class onesweep_ranking { match_any, portable };

// True if the device's OpenCL compiler takes the inline PTX that match_any ranking needs (NVIDIA
// platforms only; the answer is cached per device).
bool onesweep_match_any_available(const bc::command_queue& queue);

// Sorts r, 2 <= n <= onesweep_max_keys, types already checked. Never waits for the device.
void radix_sort_onesweep(const sort_request& r, bc::command_queue& queue, onesweep_ranking ranking);

} // namespace detail
} // namespace clprim
