#pragma once
// The reduction's tuning of its fast variant, in one place, with the knobs' overrides (for sweeps
// on new devices). The defaults are what measured best on an H100 and do no harm on CPU devices:
// docs/RESULTS.md, "Tuning notes behind the policies" (reduce). Read once per process by
// reduce.cpp. Private to the primitives layer.
#include <clprim/detail/knobs.hpp>

#include <cstddef>

namespace clprim {
namespace detail {

struct reduce_policy {
    bool once = true;     // one launch (the last work-group reduces the partials); false: two
    int read = 2;         // how the one value comes back: 0 blocking read into the caller's
                          // variable, 1 blocking read into pinned host memory, 2 non-blocking
                          // read into pinned memory, then clFinish
    int small_read = 0;   // the same for a range one work-group takes (one plain kernel, its value
                          // in a per-queue word): a blocking read into the caller's variable (H100,
                          // 2^10 uint, three interleaved runs: 0.0184 / 0.0187 / 0.0182 ms a call
                          // against 0.0252 / 0.0245 / 0.0189 with 1 and 0.0181 / 0.0225 / 0.0225
                          // with 2; docs/RESULTS.md)
    std::size_t gpc = 8;  // work-groups per compute unit on GPUs (grid-stride variants)
    int loads = 2;        // 16-byte loads in flight per work-item (2, 4 or 8)
    std::size_t wg = 256; // cap on the work-group size (a power of two)
};

// CLPRIM_REDUCE_ONCE=0|1, CLPRIM_REDUCE_READ=0..2 (read and small_read), CLPRIM_REDUCE_GPC=k,
// CLPRIM_REDUCE_LOADS=2|4|8, CLPRIM_REDUCE_WG=w override the fields.
inline reduce_policy select_reduce_policy()
{
    reduce_policy r;
    if (const auto v = knob_choice("CLPRIM_REDUCE_ONCE", {"0", "1"})) r.once = *v == 1;
    if (const auto v = knob_number("CLPRIM_REDUCE_READ", 0, 2)) r.read = r.small_read = int(*v);
    if (const auto v = knob_number("CLPRIM_REDUCE_GPC", 1, std::size_t(-1))) r.gpc = *v;
    if (const auto v = knob_choice("CLPRIM_REDUCE_LOADS", {"2", "4", "8"})) r.loads = 2 << *v;
    if (const auto v = knob_number("CLPRIM_REDUCE_WG", 1, std::size_t(-1))) r.wg = *v;
    return r;
}

// The fast variant's loop, read at every call (tests force both on one device): -1 by device
// (grid stride on GPUs, a contiguous chunk per work-item elsewhere), 0 grid stride, 1 chunks;
// CLPRIM_REDUCE_LAYOUT=stride|chunks.
inline int forced_reduce_layout()
{
    const auto v = knob_choice("CLPRIM_REDUCE_LAYOUT", {"stride", "chunks"});
    return v ? int(*v) : -1;
}

} // namespace detail
} // namespace clprim
