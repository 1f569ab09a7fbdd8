#pragma once
// clprim::partition_copy (and stable_partition's first step) through copy_if's single pass
// (copy_if_lookback.cl built with CPY_PARTITION): one read of each element, one write of each
// to one of the two ranges, one launch. A tile's kept elements go to the first range from the
// look-back's count of kept elements before the tile; its others to the second range from the
// tile's first element index less that count (the same look-back gives both starts), each group
// in input order. For the by-key family (by_key.cpp), which otherwise runs partition as its
// segmented scan. Private to the primitives layer.
#include <clprim/detail/checks.hpp>
#include <clprim/detail/device_profile.hpp>
#include <clprim/detail/element_type.hpp>

#include <string>

namespace clprim {
namespace detail {

// Enqueues the single pass over in (n < 2^32): the elements for which the predicate of
// pred_file holds to out1 (at most out1.size of them written), the others to out2 (at most
// out2.size), the size of the first group to count_buffer's 64-bit word count_offset. queue
// must be in order (the caller's in_order_scope).
void copy_if_partition_launch(const buffer_range& in, const buffer_range& out1, const buffer_range& out2,
                              element_type type, const std::string& pred_file, const bc::buffer& count_buffer,
                              std::size_t count_offset, bc::command_queue& queue);

// stable_partition of a range that fits one tile of the single pass, in one launch: the tile is
// read whole before anything is written, its kept elements go to the front, the others right
// after them (CPY_PARTITION_IN_PLACE). Returns false, enqueueing nothing, where the range is empty
// or larger than one tile (the caller then partitions into scratch and copies back).
bool copy_if_partition_in_place(const buffer_range& range, element_type type, const std::string& pred_file,
                                const bc::buffer& count_buffer, std::size_t count_offset, bc::command_queue& queue);

// stable_partition's copy back (copy_if_partition.cl): tmp holds the kept elements at [0, k)
// and the others at [n, 2n - k) (n = range.size), k in count_buffer's word count_offset; both
// groups to the range, kept first. A plain copy at memory speed.
void copy_if_partition_back(const buffer_range& range, element_type type, const bc::buffer& tmp,
                            const bc::buffer& count_buffer, std::size_t count_offset, bc::command_queue& queue);

// Whether partition_copy and stable_partition take copy_if's single pass on this device: every
// device that is not a CPU; CPU devices take the by-key family's chunks.
// CLPRIM_PARTITION_PATH=by_key|copy_if forces either.
bool partition_takes_copy_if(const device_profile& profile);

} // namespace detail
} // namespace clprim
