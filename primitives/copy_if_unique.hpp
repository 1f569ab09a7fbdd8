#pragma once
// clprim::unique through copy_if's single pass (copy_if_lookback.cl built with CPY_UNIQUE: an
// element is kept where its bits differ from the element before it), for the by-key family
// (by_key.cpp), which otherwise runs unique as its segmented scan. Private to the primitives layer.
#include <clprim/detail/device_profile.hpp>
#include <clprim/detail/checks.hpp>
#include <clprim/detail/element_type.hpp>

namespace clprim {
namespace detail {

// Enqueues the single pass over in (n < 2^32): the first element of every run of equal bits to
// out (at most out.size of them written), their count to count_buffer's 64-bit word count_offset.
// queue must be in order (the caller's in_order_scope).
void copy_if_unique_launch(const buffer_range& in, const buffer_range& out, element_type type,
                           const bc::buffer& count_buffer, std::size_t count_offset, bc::command_queue& queue);

// Whether clprim::unique takes copy_if's single pass on this device: every device that is not a
// CPU (H100, 2^10: copy_if's kernel 0.0064 ms against the by-key gather kernel's 0.0078; one
// read of each element, one write of each run head, no segmented pairs); CPU devices take the
// by-key family's chunks. CLPRIM_UNIQUE_PATH=by_key|copy_if forces either.
bool unique_takes_copy_if(const device_profile& profile);

} // namespace detail
} // namespace clprim
