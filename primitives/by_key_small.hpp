#pragma once
// The by-key family's one-work-group path (by_key_small.cl) for ranges of at most a few thousand
// elements: one launch, no look-back, no tile counter, no fill. Private to the primitives layer.
#include <clprim/detail/by_key_impl.hpp>

namespace clprim {
namespace detail {

// Enqueues call (1 <= keys.size <= by_key_policy.hpp's select_by_key_small(profile).most) as one
// work-group on queue (in order: the caller's in_order_scope). The count, where write_count, goes
// to call.count_result or else to this thread's result word (count_read.hpp); *count_word names the
// word it went to. Returns false, enqueuing nothing, where the path does not take the call (too
// large, off, or a work-group the device cannot run): the caller takes another path.
bool by_key_small_launch(const by_key_call& call, bool write_count, bc::command_queue& queue, buffer_range* count_word);

} // namespace detail
} // namespace clprim
