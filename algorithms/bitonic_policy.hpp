#pragma once
// The bitonic sort's tuning, in one place: which path the fused variant takes (CPU-shaped or the
// GPU kernels), the GPU fused shape and the CPU path's shape, each from the device profile, with
// the knobs' overrides inside the select functions. Why these values: docs/RESULTS.md, "Tuning
// notes behind the policies" (bitonic). Private to the algorithms layer.
#include "sort_support.hpp"

#include <clprim/detail/device_profile.hpp>
#include <clprim/detail/knobs.hpp>

#include <algorithm>
#include <cstddef>

namespace clprim {
namespace detail {

// Whether the fused variant (the one clprim::sort uses) runs the CPU-shaped network
// (bitonic_sort_cpu.cpp): on CPU devices; CLPRIM_BITONIC_PATH=cpu|gpu forces it on or off.
inline bool select_bitonic_cpu_path(const device_profile& profile, bitonic_variant variant)
{
    if (variant != bitonic_variant::fused) return false;
    if (const auto v = knob_choice("CLPRIM_BITONIC_PATH", {"cpu", "gpu"})) return *v == 0;
    return profile.is_cpu();
}

// The GPU fused variant's shape. Every launch holds 2^tile_bits elements per work-group,
// 2^reg_bits per work-item (so 2^(tile_bits - reg_bits) work-items); rows launches take
// 2^col_bits or more consecutive columns, so up to m = tile_bits - col_bits passes per launch.
// All three are build options of the fused program (-DBITONIC_REG_BITS, -DBITONIC_TILE_BITS,
// -DBITONIC_COL_BITS): the kernels' chunk positions are then constants (see bitonic_fused.cl).
//  - reg_bits: 4 (16 keys per work-item in registers: four passes per local-memory round trip).
//  - tile_bits: the largest group whose keys and values (padded one slot per 32) fit the
//    device's local memory, at most 13 (8192 elements), with a work-group the device allows
//    (the caller lowers it further if the built kernels allow fewer work-items).
//  - col_bits: runs of 128 bytes of keys (32 4-byte or 16 8-byte keys), the width at which GPUs
//    coalesce.
// CLPRIM_BITONIC_TUNE="tile_bits,col_bits[,reg_bits]" overrides (measurements; tests force tiny
// shapes), CLPRIM_BITONIC_TILE=<elements> caps the tile as for the transpose variant.
struct bitonic_policy {
    unsigned reg_bits = 4;
    unsigned tile_bits = 13;
    unsigned col_bits = 5;
};

// The largest rows launch the fused program has a kernel for (bitonic_rows_m1 .. m12).
constexpr unsigned bitonic_max_rows = 12;

inline bitonic_policy select_bitonic_policy(const device_profile& profile, const sort_request& r)
{
    bitonic_policy p;
    int f[3] = {-1, -1, -1}; // the fields of CLPRIM_BITONIC_TUNE that are set
    if (const auto t = knob_numbers("CLPRIM_BITONIC_TUNE", 1, 3, 0, 20))
        for (std::size_t i = 0; i < t->size(); ++i) f[i] = int((*t)[i]);
    if (f[2] >= 1) p.reg_bits = unsigned(std::min(f[2], 5));
    const std::size_t key_bytes = size_of(r.key_type);
    const std::size_t bytes = key_bytes + (r.has_values ? value_bytes(r) : 0);
    p.col_bits = key_bytes >= 8 ? 4 : 5;
    while (p.tile_bits > p.reg_bits &&
           ((std::size_t(1) << p.tile_bits) * 33 / 32 * bytes > profile.local_mem_size ||
            (std::size_t(1) << (p.tile_bits - p.reg_bits)) > profile.max_work_group_size))
        --p.tile_bits;
    if (f[0] >= 1) p.tile_bits = std::min(unsigned(f[0]), 13u);
    if (f[1] >= 0) p.col_bits = unsigned(f[1]);
    if (const auto cap = knob_number("CLPRIM_BITONIC_TILE", 0, std::size_t(-1)))
        while (p.tile_bits > 1 && (std::size_t(1) << p.tile_bits) > *cap) --p.tile_bits;
    // No smaller than one work-item's registers; rows launches need at least one row bit and
    // have kernels for up to bitonic_max_rows.
    p.tile_bits = std::max(p.reg_bits, p.tile_bits);
    p.col_bits = std::max(std::min(p.col_bits, p.tile_bits - 1), p.tile_bits - std::min(p.tile_bits, bitonic_max_rows));
    return p;
}

// The CPU path's shape: blocks of at most 256 KiB of keys and values, 4 work-items per compute
// unit. CLPRIM_BITONIC_CPU_TUNE="block_elements,workers" overrides.
struct bitonic_cpu_policy {
    std::size_t block = 0;   // elements a work-item sorts in its cache (power of two)
    std::size_t workers = 1; // work-items per launch
};

inline bitonic_cpu_policy select_bitonic_cpu_policy(const device_profile& profile, const sort_request& r, std::size_t N)
{
    bitonic_cpu_policy p;
    const std::size_t bytes = size_of(r.key_type) + (r.has_values ? value_bytes(r) : 0);
    p.block = floor_pow2((std::size_t(256) << 10) / bytes);
    p.workers = 4 * profile.compute_units;
    if (const auto t = knob_numbers("CLPRIM_BITONIC_CPU_TUNE", 1, 2)) {
        if ((*t)[0] >= 2) p.block = floor_pow2((*t)[0]);
        if (t->size() > 1) p.workers = std::max<std::size_t>(1, (*t)[1]);
    }
    p.block = std::min(p.block, N);
    return p;
}

} // namespace detail
} // namespace clprim
