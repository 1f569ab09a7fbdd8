#pragma once
// Segment layouts shared by test_segmented_sort and test_segmented_reduce: the length mixes of
// issue #29 in small form, as offsets (num_segments + 1 entries, starting at `base`).
#include <cstddef>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace clprim_test {

enum class seg_mix { tiny, fixed, few_large, power_law, empty_plus_one, with_empties };

inline const char* name_of(seg_mix m)
{
    switch (m) {
    case seg_mix::tiny: return "tiny";
    case seg_mix::fixed: return "fixed";
    case seg_mix::few_large: return "few_large";
    case seg_mix::power_law: return "power_law";
    case seg_mix::empty_plus_one: return "empty_plus_one";
    case seg_mix::with_empties: return "with_empties";
    }
    return "?";
}

// Segment lengths of a mix covering about n elements. fixed: segments of `len`; tiny: 0..8;
// few_large: 3 segments of about n/3 among tiny ones; power_law: lengths 1..2^20 (capped at n),
// density ~ 1/len^2 (mean ~ a few dozen); empty_plus_one: `len` empty segments and one of n;
// with_empties: random lengths 0..2*len, a third of them empty.
inline std::vector<std::size_t> segment_lengths(seg_mix m, std::size_t n, std::size_t len, std::uint64_t seed = 7)
{
    std::mt19937_64 rng(seed ^ n ^ (std::uint64_t(m) << 40));
    std::vector<std::size_t> L;
    std::size_t total = 0;
    auto push = [&](std::size_t l) {
        l = std::min(l, n - total);
        L.push_back(l);
        total += l;
    };
    switch (m) {
    case seg_mix::tiny:
        while (total < n) push(rng() % 9);
        break;
    case seg_mix::fixed:
        while (total < n) push(len);
        break;
    case seg_mix::few_large:
        for (int k = 0; k < 3; ++k) {
            for (int t = 0; t < 20 && total < n; ++t) push(rng() % 9);
            push(n / 3);
        }
        while (total < n) push(rng() % 9);
        break;
    case seg_mix::power_law: {
        std::uniform_real_distribution<double> u(0.0, 1.0);
        while (total < n) {
            const double x = 1.0 / (1.0 - u(rng) * (1.0 - 1.0 / 1048576.0)); // P(len > x) ~ 1/x
            push(std::size_t(x));
        }
        break;
    }
    case seg_mix::empty_plus_one:
        for (std::size_t i = 0; i < len / 2; ++i) push(0);
        push(n);
        for (std::size_t i = 0; i < len - len / 2; ++i) push(0);
        break;
    case seg_mix::with_empties:
        while (total < n) push(rng() % 3 == 0 ? 0 : rng() % (2 * len + 1));
        break;
    }
    return L;
}

// The length mixes both suites run: n elements for the large ones (2^17-2^18 on CPU devices,
// 2^22-2^24 elsewhere), `empties` empty segments beside the one huge.
struct mix_case {
    seg_mix mix;
    std::size_t n, len;
};
inline std::vector<mix_case> standard_mixes(std::size_t n, std::size_t empties)
{
    return {{seg_mix::tiny, 10007, 0},       {seg_mix::fixed, n, 32},        {seg_mix::fixed, n, 1024},
            {seg_mix::fixed, n, 65536},      {seg_mix::few_large, n, 0},     {seg_mix::power_law, n, 0},
            {seg_mix::empty_plus_one, n, empties}, {seg_mix::with_empties, 65537, 300},
            {seg_mix::fixed, 4097, 4097},    {seg_mix::fixed, 5000, 2049},   {seg_mix::fixed, 3001, 3},
            {seg_mix::fixed, 1000, 1}};
}

template <class Offset>
std::vector<Offset> offsets_from_lengths(const std::vector<std::size_t>& lengths, std::size_t base)
{
    std::vector<Offset> o(lengths.size() + 1);
    o[0] = Offset(base);
    for (std::size_t i = 0; i < lengths.size(); ++i) o[i + 1] = Offset(o[i] + lengths[i]);
    return o;
}

} // namespace clprim_test
