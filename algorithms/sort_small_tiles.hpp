#pragma once
// The radix sort's path for inputs of a few tiles (sort_small_tiles.cl): one launch per 8-bit
// digit and nothing else. Private to the algorithms layer.
#include "sort_small_host.hpp"
#include "sort_small_policy.hpp"

#include <clprim/sort_types.hpp>

#include <cstddef>

namespace clprim {
namespace detail {

// Tiles of this path's status words: inputs of more tiles take another path.
constexpr std::size_t sort_small_tiles_max_tiles = 64;

// Keys per tile for these key and value types on this queue's device (0: the path does not take
// them: 8-bit keys, or a tile does not fit local memory).
std::size_t sort_small_tiles_tile(const sort_request& r, const device_profile& profile, const sort_small_policy& pol);

// Sorts r (n up to sort_small_tiles_max_tiles tiles) on queue (whose handles and profile are
// ids and profile, pol its policy); never waits for the device.
void sort_small_tiles(const sort_request& r, bc::command_queue& queue, const small_queue_ids& ids,
                      const device_profile& profile, const sort_small_policy& pol);

} // namespace detail
} // namespace clprim
