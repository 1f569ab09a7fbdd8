#pragma once
// The bitonic sort's CPU path (bitonic_sort_cpu.cl / .cpp). Private to the algorithms layer.
#include <clprim/sort_types.hpp>

namespace clprim {
namespace detail {

// Whether bitonic_sort_impl hands `variant` to bitonic_sort_cpu: the fused variant (the one
// clprim::sort uses) on CPU devices; CLPRIM_BITONIC_PATH=cpu|gpu forces it on or off for fused.
bool bitonic_cpu_path_wanted(const bc::device& device, bitonic_variant variant);

// Sorts r (already checked by bitonic_sort_impl; n >= 2) with the CPU-shaped network.
void bitonic_sort_cpu(const sort_request& r, bc::command_queue& queue);

} // namespace detail
} // namespace clprim
