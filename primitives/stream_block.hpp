#pragma once
// The host side of stream_block.cl (the read-bound reductions' streaming loop): whether its
// 16-byte loads are PTX streaming loads (ld.global.nc.L1::no_allocate.L2::256B) on this device,
// and the program build that falls back to plain loads where a driver rejects them. Used by
// reduce, segmented_reduce and min/max_element. Private to the primitives layer.
#include <clprim/detail/device_profile.hpp>
#include <clprim/detail/knobs.hpp>
#include <clprim/detail/primitives_kernels.hpp>
#include <clprim/error.hpp>

#include <string>
#include <vector>

namespace clprim {
namespace detail {

// Whether NVIDIA devices (inline PTX) take the streaming loads by default; CLPRIM_STREAM_LOADS=
// plain|ptx decides instead (ptx still only where PTX exists). Read when a program is built (the
// callers keep built kernels for the process: a measurement sets the knob for the whole run).
// H100, 2^26 uint, reduce's kernel alone (100 calls back to back): 0.0933 / 0.0928 / 0.0923 ms
// with the PTX loads against 0.0930-0.0940 plain in the same runs; segmented_reduce and
// min_element within their noise either way (docs/RESULTS.md).
inline bool stream_ptx_default() { return true; }

inline std::string stream_block_options(const bc::device& device)
{
    bool ptx = stream_ptx_default();
    if (const auto v = knob_choice("CLPRIM_STREAM_LOADS", {"plain", "ptx"})) ptx = *v == 1;
    return ptx && profile_of(device).nvidia ? " -DCLPRIM_STREAM_PTX=1" : "";
}

// primitives_program(context, files, options + the stream option); where the driver fails to
// build the PTX loads, the same program with plain loads.
inline bc::program stream_program(const bc::context& context, const bc::device& device,
                                  const std::vector<std::string>& files, const std::string& options)
{
    const std::string stream = stream_block_options(device);
    if (!stream.empty()) {
        try {
            return primitives_program(context, files, options + stream);
        } catch (const build_error&) {
        }
    }
    return primitives_program(context, files, options);
}

} // namespace detail
} // namespace clprim
