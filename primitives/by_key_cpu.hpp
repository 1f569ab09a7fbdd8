#pragma once
// The by-key family's CPU path (by_key_policy.hpp's chunks): its launches, private to by_key.cpp.
#include "by_key_policy.hpp"

#include <clprim/config.hpp>

#include <cstddef>
#include <functional>

namespace clprim {
namespace detail {

// The chunks path's kernels (by_key_cpu.cl's two, by_key_cpu_single.cl's one).
struct by_key_cpu_kernels {
    bc::kernel& count;
    bc::kernel& emit;
    bc::kernel& single;
};

// Enqueues the chunks path for n > 0 elements: one launch of by_key_cpu_single (policy.single_pass:
// pieces of policy.piece elements taken by one work-group per compute unit, chained by a
// look-back), else by_key_cpu_count then by_key_cpu_emit over at most chunks_per_cu * compute
// units chunks. set_args sets every kernel's arguments 0..14 (BK_ARGS); slots_per_piece: the
// look-back words a piece's status takes (by_key_lookback.cl's BK_SLOTS); value_bytes: the size
// of V; in_place: a scan by key writing over its own values.
void by_key_cpu_launch(bc::command_queue& queue, const by_key_policy& policy, by_key_cpu_kernels kernels, std::size_t n,
                       std::size_t compute_units, std::size_t value_bytes, std::size_t slots_per_piece, bool in_place,
                       const std::function<void(bc::kernel&)>& set_args);

} // namespace detail
} // namespace clprim
