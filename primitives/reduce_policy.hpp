#pragma once
// The reduction's tuning of its fast variant, in one place, with the knobs' overrides (for sweeps
// on new devices). The defaults are what measured best on an H100 and do no harm on CPU devices:
// docs/RESULTS.md, "Tuning notes behind the policies" (reduce). Read once per process by
// reduce.cpp. Private to the primitives layer.
#include "reduce_pinned.hpp"

#include <clprim/detail/knobs.hpp>

#include <cstddef>

namespace clprim {
namespace detail {

struct reduce_policy {
    bool once = true;     // one launch (the last work-group reduces the partials); false: two
    std::size_t gpc = 8;  // work-groups per compute unit on GPUs (grid-stride variants)
    int loads = 2;        // 16-byte loads in flight per work-item (2, 4 or 8)
    std::size_t wg = 256; // cap on the work-group size (a power of two)
};

// CLPRIM_REDUCE_ONCE=0|1, CLPRIM_REDUCE_GPC=k,
// CLPRIM_REDUCE_LOADS=2|4|8, CLPRIM_REDUCE_WG=w override the fields.
inline reduce_policy select_reduce_policy()
{
    reduce_policy r;
    if (const auto v = knob_choice("CLPRIM_REDUCE_ONCE", {"0", "1"})) r.once = *v == 1;
    if (const auto v = knob_number("CLPRIM_REDUCE_GPC", 1, std::size_t(-1))) r.gpc = *v;
    if (const auto v = knob_choice("CLPRIM_REDUCE_LOADS", {"2", "4", "8"})) r.loads = 2 << *v;
    if (const auto v = knob_number("CLPRIM_REDUCE_WG", 1, std::size_t(-1))) r.wg = *v;
    return r;
}

// How a value-returning call's one value comes back (reduce_pinned.hpp's forms), by whether the
// range was one work-group's (one plain kernel, its value in a per-queue word) and the device kind;
// read at every call so that one process can compare the forms (bench case call_overhead):
// CLPRIM_REDUCE_READ=0..9 sets both. Defaults: docs/RESULTS.md, "#27 (s5-small)" and s4-reduce.
inline value_read select_reduce_read(bool small, bool gpu)
{
    if (const auto v = knob_number("CLPRIM_REDUCE_READ", 0, value_read_forms - 1)) return value_read(*v);
    // GPUs: flush_spin, the kernel flushed before the read is enqueued, then the host polls the
    // read's event. H100, bench case call_overhead at 2^10, every form interleaved in each of 18
    // processes (round 2): flush_spin 0.0165 ms a call on average and at most 0.0190 in every
    // process; a read enqueued right behind the kernel without a flush (pinned, async, spin, wait)
    // took 0.022 in every process whose floor was fastest (empty kernel + clFinish ~0.011), plain
    // up to 0.0207 (docs/RESULTS.md, "#27 (s5-small)"). CPU devices: a spinning host thread would
    // take a core from the device's own threads: plain for one work-group's range, async above.
    if (gpu) return value_read::flush_spin;
    return small ? value_read::plain : value_read::async;
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
