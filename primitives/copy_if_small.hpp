#pragma once
// copy_if's one-work-group path (copy_if_small.cl) for ranges of at most a few thousand elements:
// one launch, no look-back and no status words. Private to the primitives layer.
#include <clprim/detail/checks.hpp>
#include <clprim/detail/device_profile.hpp>
#include <clprim/detail/element_type.hpp>

#include <cstddef>
#include <string>

namespace clprim {
namespace detail {

// The largest range the path takes on this device (0: off). Default 4096 (256 work-items x 16
// rows) on every device, none where CLPRIM_COPY_IF_PATH or CLPRIM_COPY_IF_TUNE forces a path;
// CLPRIM_COPY_IF_SMALL="n[,wg]" sets it (0 turns the path off; at most 8192 and 32 rows of the
// group) and the work-group size (a power of two, at least 32; default 256).
std::size_t copy_if_small_max(const device_profile& profile);

// Enqueues the one-work-group copy_if of in (1 <= in.size <= copy_if_small_max) into out (at most
// out.size elements written), the count to count_buffer's 64-bit word count_offset, on queue (in
// order: the caller's in_order_scope). Returns false, enqueuing nothing, where the device cannot
// run the kernel's work-group (the caller takes another path).
// What the kernel keeps: the predicate's elements (copy_if), the first of every run of equal bits
// (clprim::unique; no predicate), or the predicate's elements with the others to a second range
// (partition_copy: out2, at most out2->size of them written).
enum class small_form { select, unique, partition };

bool copy_if_small_launch(const buffer_range& in, const buffer_range& out, element_type type, const std::string& pred_file,
                          const bc::buffer& count_buffer, std::size_t count_offset, bool count_is_ours,
                          bc::command_queue& queue, small_form form = small_form::select,
                          const buffer_range* out2 = nullptr);

} // namespace detail
} // namespace clprim
